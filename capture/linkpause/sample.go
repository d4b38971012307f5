// SPDX-License-Identifier: Apache-2.0

package linkpause

import "github.com/dcbtop/dcbtop/engine/lossless"

// Sample maps a Pause onto the engine's sample (lossless.LinkPauseSample):
// an Unknown setting or a missing counter null, the reason kept.
func (p *Pause) Sample() *lossless.LinkPauseSample {
	s := &lossless.LinkPauseSample{Autoneg: p.Settings.Autoneg.Bool(), RX: p.Settings.RX.Bool(), TX: p.Settings.TX.Bool(),
		RxFrames: p.Stats.RxFrames, TxFrames: p.Stats.TxFrames, Source: p.Source}
	if p.Reason != "" {
		r := p.Reason
		s.Unknown = &r
	}
	return s
}
