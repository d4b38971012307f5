// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Parameters the tests share.
var (
	localETS  = &ETS{Willing: true, MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}}
	remoteETS = &ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{60, 40}, TSA: [8]lldp.TSA{2, 2}}
	remoteRec = &ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}}
	localPFC  = &PFC{Willing: true, Cap: 8, Enabled: 0}
	lowMAC    = lldp.MAC{0x02, 0, 0, 0, 0, 0x01}
	highMAC   = lldp.MAC{0x02, 0, 0, 0, 0, 0xff}
)

func localSet() *Params {
	return &Params{ETS: localETS, PFC: localPFC, App: []App{{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3}}}
}
