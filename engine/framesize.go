// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// Frame sizes around an MTU, in bytes.
const (
	// ethFraming frames an MTU-sized payload: destination and source
	// addresses 12, length/type 2, FCS 4 (IEEE Std 802.3-2018 3.1.1),
	// with no 802.1Q tag: the least any sender adds.
	ethFraming = 18
	// roceV2Framing frames a RoCE v2 packet's payload at the least:
	// Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4 (InfiniBand
	// Architecture Annex A17; the kernel's IB_*_BYTES).
	roceV2Framing = 14 + 20 + 8 + 12 + 4 + 4
	// iboeHeaders is what iboe_get_mtu takes off the interface's MTU
	// before it picks the RoCE MTU: IB_GRH_BYTES 40 + IB_UDP_BYTES 8 +
	// IB_BTH_BYTES 12 + IB_EXT_XRC_BYTES 4 + IB_EXT_ATOMICETH_BYTES 28 +
	// IB_ICRC_BYTES 4 (include/rdma/ib_addr.h, include/rdma/ib_pack.h).
	iboeHeaders = 40 + 8 + 12 + 4 + 28 + 4
)

// roceMTU is the RoCE path MTU the kernel gives a RoCE port over an
// interface of MTU mtu (include/rdma/ib_addr.h iboe_get_mtu: the largest
// InfiniBand MTU, 256 to 4096, that fits mtu less the IB headers); 0 when
// none fits.
func roceMTU(mtu int) int {
	for _, m := range [...]int{4096, 2048, 1024, 512, 256} {
		if mtu-iboeHeaders >= m {
			return m
		}
	}
	return 0
}

// frameFit judges a peer's Maximum Frame Size TLV (IEEE Std 802.3-2018
// 79.3.4: the largest frame its MAC and PHY accept, a capability rather
// than the port's configured MTU, lldpd#511) against the frames
// an interface of MTU mtu sends: up to MTU+18 bytes, and, where it has a
// RoCE port (roce), RoCE v2 packets of its RoCE MTU. ok is true when they
// fit, which says nothing of the port's MTU (never "ok"); otherwise sev
// is an error where RoCE's own packets do not fit
// (RDMA retransmits until it gives up), a warning where only larger
// frames do not, and why says so (after "peer ... accepts frames of at
// most N bytes, but").
func frameFit(size, mtu int, roce bool) (ok bool, sev diag.Severity, why string) {
	if size >= mtu+ethFraming {
		return true, 0, ""
	}
	if r := roceMTU(mtu); roce && r > 0 && size < r+roceV2Framing {
		return false, diag.SeverityError, fmt.Sprintf("RoCE packets here are at least %d (RoCE MTU %d for MTU %d): the switch drops full RoCE packets, and RDMA retransmits until it gives up",
			r+roceV2Framing, r, mtu)
	}
	return false, diag.SeverityWarning, fmt.Sprintf("MTU %d here makes frames of up to %d: the switch drops full-size frames", mtu, mtu+ethFraming)
}

// roceMTUDiagnostic: a RoCE port over an interface whose MTU gives RoCE
// less than 4096-byte packets (iboe_get_mtu: MTU 1500 gives 1024), which
// needs no peer to be known. A warning where RDMA traffic flows (every
// message is cut into more, smaller packets); information on an idle
// port.
func (p *port) roceMTUDiagnostic() (diag.Diagnostic, bool) {
	if p.mtu == nil || !p.lossless.HasRoCE() {
		return diag.Diagnostic{}, false
	}
	mtu := *p.mtu
	r := roceMTU(mtu)
	if r >= 4096 {
		return diag.Diagnostic{}, false
	}
	sev, traffic := diag.SeverityInfo, "no RDMA traffic counted yet"
	if p.lossless.RDMATraffic() {
		sev, traffic = diag.SeverityWarning, "RDMA traffic flows"
	}
	return diag.Newf(diag.CodeRoCEMTU, sev, "",
		fmt.Sprintf("raise the MTU of %s to %d or more (ip link set %s mtu 4200; the switch ports on the path too) for RoCE MTU 4096", p.name, 4096+iboeHeaders, p.name),
		"the RoCE ports on %s run RoCE MTU %d (interface MTU %d, less %d bytes of IB headers: iboe_get_mtu), not 4096; %s", p.name, r, mtu, iboeHeaders, traffic), true
}

// frameSizeDiagnostics raises max-frame-below-mtu for each nearest-bridge
// peer whose Maximum Frame Size TLV is below this interface's frames
// (frameFit). Nothing is said when the MTU or the peer's size is not
// known.
func (p *port) frameSizeDiagnostics() []diag.Diagnostic {
	if p.mtu == nil {
		return nil
	}
	mtu := *p.mtu
	var out []diag.Diagnostic
	if d, ok := p.roceMTUDiagnostic(); ok {
		out = append(out, d)
	}
	for _, n := range p.neighbors {
		if n.maxFrame == 0 || n.scope != ScopeNearestBridge {
			continue
		}
		ok, sev, why := frameFit(int(n.maxFrame), mtu, p.lossless.HasRoCE())
		if ok {
			continue
		}
		out = append(out, diag.Newf(diag.CodeMaxFrameBelowMTU, sev, "lldp",
			fmt.Sprintf("raise the switch port's MTU so that it accepts frames of %d bytes, or lower this interface's MTU to %d", mtu+ethFraming, int(n.maxFrame)-ethFraming),
			"peer %s accepts frames of at most %d bytes, but %s", msapName(n), n.maxFrame, why))
	}
	return out
}
