// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Parameters the tests share.
var (
	localETS = &dcb.ETS{Willing: true, MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}}
	localPFC = &dcb.PFC{Willing: true, Cap: 8, Enabled: 0}
	lowMAC   = lldp.MAC{0x02, 0, 0, 0, 0, 0x01}
	highMAC  = lldp.MAC{0x02, 0, 0, 0, 0, 0xff}
)
