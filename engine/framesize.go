package engine

import (
	"strconv"

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

// frameSizeDiagnostics compares each nearest-bridge peer's Maximum Frame
// Size TLV (IEEE Std 802.3-2018 79.3.4) with the frames this interface
// sends: up to MTU+18 bytes, and RoCE packets of its RoCE MTU. A peer
// that accepts less drops them: an error where RoCE's own packets do not
// fit (RDMA retransmits until it gives up), a warning otherwise. Nothing
// is said when the MTU or the peer's size is not known.
func (p *port) frameSizeDiagnostics() []diag.Diagnostic {
	if p.mtu == nil {
		return nil
	}
	mtu := *p.mtu
	var out []diag.Diagnostic
	for _, n := range p.neighbors {
		if n.maxFrame == 0 || n.scope != ScopeNearestBridge {
			continue
		}
		size := int(n.maxFrame)
		if size >= mtu+ethFraming {
			continue
		}
		action := "raise the switch port's MTU so that it accepts frames of " + strconv.Itoa(mtu+ethFraming) + " bytes, or lower this interface's MTU to " + strconv.Itoa(size-ethFraming)
		if r := roceMTU(mtu); p.lossless.HasRoCE() && r > 0 && size < r+roceV2Framing {
			out = append(out, diag.Newf(diag.CodeMaxFrameBelowMTU, diag.SeverityError, "lldp", action,
				"peer %s accepts frames of at most %d bytes, but RoCE packets here are at least %d (RoCE MTU %d for MTU %d): the switch drops full RoCE packets, and RDMA retransmits until it gives up",
				msapName(n), size, r+roceV2Framing, r, mtu))
			continue
		}
		out = append(out, diag.Newf(diag.CodeMaxFrameBelowMTU, diag.SeverityWarning, "lldp", action,
			"peer %s accepts frames of at most %d bytes, but MTU %d here makes frames of up to %d: the switch drops full-size frames",
			msapName(n), size, mtu, mtu+ethFraming))
	}
	return out
}
