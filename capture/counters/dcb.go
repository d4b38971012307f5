// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"strconv"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// An IEEEReader reads an interface's IEEE DCB state (DCB_CMD_IEEE_GET):
// a *dcbnl.Client, or one that shares each reply with another reader.
type IEEEReader interface {
	IEEE(ifname string) (*dcbnl.IEEE, error)
}

var _ IEEEReader = (*dcbnl.Client)(nil)

// pfc returns an interface's per-priority pause counters: the counts of
// dcb (what DCB netlink read, nil when nothing) when it counted any
// pause, otherwise those of the driver's ethtool statistics when table
// reads them, otherwise dcb's (its zeros are then all there is); nil when
// neither has anything. Durations and storm counters come from the
// driver's statistics whichever has the counts.
func pfc(dcb *lossless.PFCSample, stats map[string]uint64, table *pfcTable) *lossless.PFCSample {
	out := &lossless.PFCSample{}
	switch {
	case dcb != nil && pausesCounted(dcb):
		*out = *dcb
	case table != nil && table.counts(stats, out):
		out.Source = lossless.PFCSourceEthtool
	case dcb != nil:
		*out = *dcb
	default:
		return nil
	}
	if table != nil {
		table.extras(stats, out)
	}
	return out
}

// pausesCounted reports whether a priority of s counted a pause frame,
// sent or received.
func pausesCounted(s *lossless.PFCSample) bool {
	for _, p := range s.Priorities {
		if p.RxPause.Value != 0 || p.TxPause.Value != 0 {
			return true
		}
	}
	return false
}

// fromDCB sets out's counts to dcbnl's requests (sent) and indications
// (received).
func fromDCB(req, ind [8]uint64, out *lossless.PFCSample) {
	out.Source = lossless.PFCSourceDCBNL
	for p := range out.Priorities {
		i := strconv.Itoa(p)
		out.Priorities[p].RxPause = lossless.Reading{Value: ind[p], Source: "dcbnl ieee_pfc.indications[" + i + "]"}
		out.Priorities[p].TxPause = lossless.Reading{Value: req[p], Source: "dcbnl ieee_pfc.requests[" + i + "]"}
	}
}
