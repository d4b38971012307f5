// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// vlanDiagnostics raises vlan-not-advertised for each VLAN this host uses
// on the port (a VLAN interface on it) that a nearest-bridge peer
// advertising its VLANs (VLAN Name TLVs, IEEE Std 802.1Q-2018 D.2.3: a
// VLAN the port is a member of) does not name: a port that is not a
// member discards the frames tagged with it (8.6.2, ingress filtering),
// and with them the priority their PCP carries. A warning: a switch may
// name only some of its VLANs. Nothing is said while the host's VLANs
// are not known or the peer names none.
func (p *port) vlanDiagnostics() []diag.Diagnostic {
	if len(p.vlans) == 0 {
		return nil
	}
	var out []diag.Diagnostic
	for _, n := range p.neighbors {
		if len(n.vlanNames) == 0 || n.scope != ScopeNearestBridge {
			continue
		}
		for _, v := range p.vlans {
			if slices.Contains(n.vlanNames, v) {
				continue
			}
			out = append(out, diag.Newf(diag.CodeVLANNotAdvertised, diag.SeverityWarning, "lldp",
				fmt.Sprintf("make the switch port a (tagged) member of VLAN %d, or check that the switch names every VLAN of the port", v),
				"this host uses VLAN %d on %s (a VLAN interface), which peer %s does not name among its VLANs (%s): a port that is not a member of VLAN %d drops the frames tagged with it",
				v, p.name, msapName(n), vidList(n.vlanNames), v))
		}
	}
	return out
}

// vidList is VLAN IDs as "100, 200".
func vidList(v []uint16) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// A TLVFlag is what dcbtop notes about one TLV of a peer's LLDPDU given
// this host's facts: a frame size against the interface's MTU, a VLAN
// against the VLANs the host uses there.
type TLVFlag struct {
	// Severity is diag.SeverityInfo for a plain fact (it fits, the host
	// uses that VLAN or not), higher for a problem.
	Severity diag.Severity
	// Match marks a fact that agrees with the host (the frames fit, the
	// host uses that VLAN here).
	Match bool
	Text  string
}

// TLVFlags returns the flags of the TLVs of lldpdu (a peer's last LLDPDU
// on in, as Peer.LLDPDU holds it), one per view of lldp.DescribeLLDPDU in
// the same order (a zero TLVFlag where there is none); nil when the
// LLDPDU does not parse or nothing is known to compare it with.
//   - Maximum Frame Size (IEEE Std 802.3-2018 79.3.4) against the MTU
//     (frameFit, the max-frame-below-mtu rule). The TLV is what the peer's
//     MAC and PHY can carry, not its port's configured MTU: below this
//     interface's frames it is a limit; at or above, only information;
//   - Port VLAN ID and VLAN Name (IEEE Std 802.1Q-2018 D.2.1, D.2.3)
//     against the VLAN interfaces on in: whether this host uses that
//     VLAN here.
func TLVFlags(in *Interface, lldpdu []byte) []TLVFlag {
	if in.MTU == nil && in.VLANs == nil {
		return nil
	}
	du, err := lldp.Parse(lldpdu)
	if err != nil {
		return nil
	}
	out := make([]TLVFlag, 3+len(du.TLVs)) // the views: chassis, port, TTL, then du.TLVs
	uses := func(v uint16, what string) TLVFlag {
		if slices.Contains(in.VLANs, v) {
			return TLVFlag{Severity: diag.SeverityInfo, Match: true, Text: fmt.Sprintf("this host uses VLAN %d on %s", v, in.Name)}
		}
		return TLVFlag{Severity: diag.SeverityInfo, Text: fmt.Sprintf("this host has no VLAN interface for VLAN %d on %s%s", v, in.Name, what)}
	}
	for i, t := range du.TLVs {
		f := &out[3+i]
		switch t := t.(type) {
		case *lldp.MaxFrameSize:
			if in.MTU == nil {
				continue
			}
			ok, sev, why := frameFit(int(t.Size), *in.MTU, len(in.RoCEPorts()) > 0)
			if ok {
				// A capability, not the port's configured MTU (lldpd#511:
				// "MFS is not MTU"): that it fits proves nothing more.
				*f = TLVFlag{Severity: diag.SeverityInfo, Text: fmt.Sprintf("the peer's MAC and PHY take this interface's frames (MTU %d: up to %d bytes); its port's MTU is not advertised", *in.MTU, *in.MTU+ethFraming)}
			} else {
				*f = TLVFlag{Severity: sev, Text: "below this interface's frames: " + why}
			}
		case *lldp.PortVLANID:
			if in.VLANs != nil && t.PVID != 0 {
				*f = uses(t.PVID, " (its untagged frames are in it)")
			}
		case *lldp.VLANName:
			if in.VLANs != nil {
				*f = uses(t.VID, "")
			}
		}
	}
	return out
}
