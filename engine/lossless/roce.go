// SPDX-License-Identifier: Apache-2.0

package lossless

import "slices"

// The RoCE identity of an interface's RDMA ports and its link-level PAUSE,
// as the capture layer samples them with the counters
// (Sample.RoCE, LinkPause): facts, each with the source it was
// read from, null where unknown, never a zero by accident. The rules that
// judge them are in lossless_diag.go.

// A RoCEPortSample is one RDMA port bound to an interface: its GID table
// (drivers/infiniband/core/sysfs.c ports/P/gids, gid_attrs/types,
// gid_attrs/ndevs), the first routable RoCE v2 GID, and the defaults
// rdma_cm applies to connections that set none (configfs
// rdma_cm/DEV/ports/P, drivers/infiniband/core/cma_configfs.c).
type RoCEPortSample struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	// LinkLayer is "Ethernet" for RoCE, "InfiniBand", or null when
	// unknown.
	LinkLayer *string `json:"link_layer"`
	// GIDs are the non-empty entries of the GID table, by index.
	GIDs []RoCEGID `json:"gids"`
	// RoutableV2 is the index of the first RoCE v2 GID of the interface
	// with a routable address (IPv4-mapped or global IPv6, not link-local):
	// the one RoCE v2 traffic can leave the subnet from (IBTA Annex A17).
	// Null when there is none; RoutableV2Why then says why.
	RoutableV2    *int    `json:"routable_v2_gid"`
	RoutableV2Why *string `json:"routable_v2_why"`
	// DefaultToS is the ToS rdma_cm stamps on connections that set none;
	// null when unknown (rdma_cm's configfs directory for the device does
	// not exist: cma_roce_tos was never run).
	DefaultToS *RoCEToS `json:"default_tos"`
	// DefaultMode is rdma_cm's default GID type ("RoCE v2", "IB/RoCE
	// v1"); null when unknown.
	DefaultMode *string `json:"default_mode"`
	// Problems are what could not be read, one line each.
	Problems []string `json:"problems"`
	// Optional is the state of the port's optional hardware counters
	// (RDMA netlink); null where RDMA netlink was not asked or has no
	// RDMA subsystem.
	Optional *OptionalCounters `json:"optional_counters"`
}

// OptionalCounters is the state of an RDMA port's optional hardware
// counters. The kernel keeps counters a driver flags optional
// (IB_STAT_FLAG_OPTIONAL; mlx5's cc_rx_ce_pkts, cc_rx_cnp_pkts,
// cc_tx_cnp_pkts, ...) out of sysfs hw_counters
// (drivers/infiniband/core/sysfs.c); they exist only over RDMA netlink
// (RDMA_NLDEV_CMD_STAT_GET, RDMA_NLDEV_CMD_STAT_GET_STATUS, Linux 5.16),
// off until enabled and not kept across a reboot. dcbtop only reports
// them: it never enables one.
type OptionalCounters struct {
	// Source is where the state was read ("rdma netlink").
	Source string `json:"source"`
	// StatusKnown is false on kernels without STAT_GET_STATUS: which
	// counters are optional is then unknown, and Why says why.
	StatusKnown bool    `json:"status_known"`
	Why         *string `json:"why"`
	// Enabled are the optional counters that count, with their values
	// (null when the reply carried none); Disabled those that do not.
	Enabled  []OptionalCounter `json:"enabled"`
	Disabled []string          `json:"disabled"`
	// EnableCommand enables the disabled ones along with the enabled
	// ones (the set replaces what is enabled): iproute2's `rdma statistic
	// set link DEV/PORT optional-counters ...`. Null when none is
	// disabled.
	EnableCommand *string `json:"enable_command"`
}

// An OptionalCounter is an enabled optional counter and its value.
type OptionalCounter struct {
	Name  string  `json:"name"`
	Value *uint64 `json:"value"`
}

// equal reports whether two states are the same.
func (o *OptionalCounters) equal(p *OptionalCounters) bool {
	if o == nil || p == nil {
		return o == p
	}
	return o.Source == p.Source && o.StatusKnown == p.StatusKnown && ptrEqual(o.Why, p.Why) &&
		slices.EqualFunc(o.Enabled, p.Enabled, func(a, b OptionalCounter) bool { return a.Name == b.Name && ptrEqual(a.Value, b.Value) }) &&
		slices.Equal(o.Disabled, p.Disabled) && ptrEqual(o.EnableCommand, p.EnableCommand)
}

// A RoCEGID is one entry of a port's GID table.
type RoCEGID struct {
	Index int `json:"index"`
	// GID is the address as the kernel prints it, null when unreadable.
	GID *string `json:"gid"`
	// IPv4 is the address of an IPv4-mapped GID, null otherwise.
	IPv4 *string `json:"ipv4"`
	// Type is "RoCE v2", "RoCE v1" or "IB"; null when unknown.
	Type *string `json:"type"`
	// Netdev is the interface the GID belongs to; null when unknown.
	Netdev *string `json:"netdev"`
}

// A RoCEToS is an IP ToS octet: its DSCP (the upper six bits, RFC 2474)
// and ECN field (the lower two, RFC 3168), and the file it was read from.
type RoCEToS struct {
	ToS    uint8  `json:"tos"`
	DSCP   uint8  `json:"dscp"`
	ECN    uint8  `json:"ecn"`
	Source string `json:"source"`
}

// A LinkPauseSample is an interface's IEEE 802.3 Annex 31B (802.3x)
// link-wide PAUSE: its settings and frame counters (ethtool netlink
// PAUSE_GET with statistics, net/ethtool/pause.c; `ethtool -I -a`). Each
// is null when the driver does not report it.
type LinkPauseSample struct {
	Autoneg  *bool   `json:"autoneg"`
	RX       *bool   `json:"rx"`
	TX       *bool   `json:"tx"`
	RxFrames *uint64 `json:"rx_frames"`
	TxFrames *uint64 `json:"tx_frames"`
	// RxPauseUs is the time this port spent paused by received PAUSE
	// frames, in microseconds, where the driver counts it (mlx5
	// rx_global_pause_duration).
	RxPauseUs *uint64 `json:"rx_pause_duration_us"`
	// Source is where the values come from ("ethtool netlink
	// PAUSE_GET"); FramesSource, where the frame counters come from when
	// it is elsewhere (the driver's statistics: "ethtool -S
	// rx_pause_ctrl_phy, tx_pause_ctrl_phy"), "" otherwise. Unknown, when
	// set, says why the settings are unknown (a driver without pause
	// operations, as a veth).
	Source       string  `json:"source"`
	FramesSource string  `json:"frames_source"`
	Unknown      *string `json:"unknown"`
}

// On reports whether link-wide PAUSE is known to be on in either
// direction.
func (l *LinkPauseSample) On() bool {
	return l != nil && ((l.RX != nil && *l.RX) || (l.TX != nil && *l.TX))
}

// Known reports whether the sample holds any value (a driver without
// pause operations reports none).
func (l *LinkPauseSample) Known() bool {
	return l != nil && (l.Autoneg != nil || l.RX != nil || l.TX != nil || l.RxFrames != nil || l.TxFrames != nil)
}

// Routable reports whether the port has a routable RoCE v2 GID.
func (r *RoCEPortSample) Routable() bool { return r.RoutableV2 != nil }

// IsRoCE reports whether the port runs over Ethernet (its link layer is
// known to be Ethernet).
func (r *RoCEPortSample) IsRoCE() bool { return r.LinkLayer != nil && *r.LinkLayer == "Ethernet" }

// clone returns a deep copy.
func (r RoCEPortSample) clone() RoCEPortSample {
	r.GIDs = slices.Clone(r.GIDs)
	r.Problems = slices.Clone(r.Problems)
	if o := r.Optional; o != nil {
		c := *o
		c.Enabled, c.Disabled = slices.Clone(o.Enabled), slices.Clone(o.Disabled)
		r.Optional = &c
	}
	return r
}

// cloneRoCE deep-copies RoCE port samples ([] for none).
func cloneRoCE(s []RoCEPortSample) []RoCEPortSample {
	out := make([]RoCEPortSample, len(s))
	for i := range s {
		out[i] = s[i].clone()
	}
	return out
}

// equal reports whether two samples hold the same facts.
func (r *RoCEPortSample) equal(o *RoCEPortSample) bool {
	return r.Device == o.Device && r.Port == o.Port && ptrEqual(r.LinkLayer, o.LinkLayer) &&
		slices.EqualFunc(r.GIDs, o.GIDs, func(a, b RoCEGID) bool {
			return a.Index == b.Index && ptrEqual(a.GID, b.GID) && ptrEqual(a.IPv4, b.IPv4) &&
				ptrEqual(a.Type, b.Type) && ptrEqual(a.Netdev, b.Netdev)
		}) &&
		ptrEqual(r.RoutableV2, o.RoutableV2) && ptrEqual(r.RoutableV2Why, o.RoutableV2Why) &&
		ptrEqual(r.DefaultToS, o.DefaultToS) && ptrEqual(r.DefaultMode, o.DefaultMode) && slices.Equal(r.Problems, o.Problems) &&
		r.Optional.equal(o.Optional)
}

// equal reports whether two link pause samples hold the same facts.
func (l *LinkPauseSample) equal(o *LinkPauseSample) bool {
	if l == nil || o == nil {
		return l == o
	}
	return ptrEqual(l.Autoneg, o.Autoneg) && ptrEqual(l.RX, o.RX) && ptrEqual(l.TX, o.TX) &&
		ptrEqual(l.RxFrames, o.RxFrames) && ptrEqual(l.TxFrames, o.TxFrames) && ptrEqual(l.RxPauseUs, o.RxPauseUs) &&
		l.Source == o.Source && l.FramesSource == o.FramesSource && ptrEqual(l.Unknown, o.Unknown)
}

// sameRoCE reports whether two counters samples carry the same RoCE
// identity and link pause facts.
func sameRoCE(a, b *Sample) bool {
	return slices.EqualFunc(a.RoCE, b.RoCE, func(x, y RoCEPortSample) bool { return x.equal(&y) }) && a.LinkPause.equal(b.LinkPause) &&
		a.QoS.equal(b.QoS)
}
