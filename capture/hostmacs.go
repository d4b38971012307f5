// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"net"
	"slices"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// HostMACs returns the MAC addresses of this host's interfaces (each
// 6-byte hardware address but the zero one, once): a replay on the host
// where a capture without direction was taken tells this host's own
// LLDPDUs by them (engine.EndsEvidence).
func HostMACs() ([]lldp.MAC, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var out []lldp.MAC
	for _, i := range ifs {
		if len(i.HardwareAddr) != len(lldp.MAC{}) {
			continue
		}
		m := lldp.MAC(i.HardwareAddr)
		if m != (lldp.MAC{}) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}
