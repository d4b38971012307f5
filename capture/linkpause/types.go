// SPDX-License-Identifier: Apache-2.0

package linkpause

// A State is one pause setting as the kernel reported it. The zero value is
// Unknown: a setting nothing reported is never Off.
type State uint8

// The states of a setting.
const (
	Unknown State = iota // not reported (no attribute, no pause operations, or not read)
	Off
	On
)

// String returns "unknown", "off" or "on".
func (s State) String() string {
	switch s {
	case Off:
		return "off"
	case On:
		return "on"
	}
	return "unknown"
}

// Known reports whether s is On or Off.
func (s State) Known() bool { return s == On || s == Off }

// Bool returns s as a *bool: nil when Unknown.
func (s State) Bool() *bool {
	if !s.Known() {
		return nil
	}
	b := s == On
	return &b
}

// stateOf returns On for true and Off for false.
func stateOf(b bool) State {
	if b {
		return On
	}
	return Off
}

// Settings are an interface's IEEE 802.3 Annex 31B (802.3x) link-wide PAUSE
// settings, what `ethtool -a` shows (struct ethtool_pauseparam).
type Settings struct {
	// Autoneg is pause autonegotiation (ETHTOOL_A_PAUSE_AUTONEG), which is
	// not the link's own autonegotiation: when on, RX and TX are what the
	// PHY advertises and the link's resolution decides; when off, they are
	// forced.
	Autoneg State
	// RX is whether PAUSE frames received stop this port's transmission
	// (ETHTOOL_A_PAUSE_RX).
	RX State
	// TX is whether this port sends PAUSE frames (ETHTOOL_A_PAUSE_TX).
	TX State
}

// Enabled reports whether link-wide PAUSE is configured in either
// direction: On when RX or TX is On, Off when both are Off, Unknown
// otherwise. With PFC enabled on a port it should be Off: the two are
// mutually exclusive (Documentation/networking/flow_control.rst).
func (s Settings) Enabled() State {
	switch {
	case s.RX == On || s.TX == On:
		return On
	case s.RX == Off && s.TX == Off:
		return Off
	}
	return Unknown
}

// Stats are an interface's link-wide PAUSE frame counters, what `ethtool
// --include-statistics -a` shows (struct ethtool_pause_stats). A counter
// the driver does not report is nil, never 0.
type Stats struct {
	// TxFrames counts PAUSE frames sent (ETHTOOL_A_PAUSE_STAT_TX_FRAMES).
	TxFrames *uint64
	// RxFrames counts PAUSE frames received (ETHTOOL_A_PAUSE_STAT_RX_FRAMES).
	RxFrames *uint64
}

// Sources of a Pause.
const (
	// SourceNetlink is ETHTOOL_MSG_PAUSE_GET over the "ethtool" generic
	// netlink family (Linux 5.6+, statistics 5.10+).
	SourceNetlink = "ethtool netlink PAUSE_GET"
	// SourceIoctl is the SIOCETHTOOL ioctl ETHTOOL_GPAUSEPARAM, used when
	// the kernel has no "ethtool" generic netlink family: settings only.
	SourceIoctl = "ethtool ioctl ETHTOOL_GPAUSEPARAM"
)

// Reasons a Pause gives for what it does not know, one line each (several
// are joined with "; ").
const (
	// ReasonNoPauseOps is given when the driver has no pause operations
	// (EOPNOTSUPP): veth, lo, bridges, most virtual devices.
	ReasonNoPauseOps = "driver has no pause operations (no get_pauseparam in its ethtool_ops)"
	// ReasonNoStatsOp is given when the kernel asked but the driver
	// reports no PAUSE frame counters (no get_pause_stats).
	ReasonNoStatsOp = "driver reports no pause frame statistics (no get_pause_stats)"
	// ReasonNoTxStat and ReasonNoRxStat are given when the driver reports
	// one counter but not the other.
	ReasonNoTxStat = "driver reports no count of pause frames sent"
	ReasonNoRxStat = "driver reports no count of pause frames received"
	// ReasonOldKernelStats is given when the kernel refused
	// ETHTOOL_FLAG_STATS, as Linux 5.6 to 5.9 do, and the settings were
	// read without statistics.
	ReasonOldKernelStats = "kernel has no pause statistics (ETHTOOL_FLAG_STATS needs Linux 5.10)"
	// ReasonNoStatsNest is given when the kernel accepted
	// ETHTOOL_FLAG_STATS but sent no ETHTOOL_A_PAUSE_STATS.
	ReasonNoStatsNest = "kernel reply has no pause statistics"
	// ReasonIoctl is given when the kernel has no ethtool netlink (older
	// than 5.6, or built without CONFIG_ETHTOOL_NETLINK) and the settings
	// came from the ioctl, which has no statistics.
	ReasonIoctl = "kernel has no ethtool netlink family (Linux 5.6+): settings from the ETHTOOL_GPAUSEPARAM ioctl, no statistics"
)

// A Pause is an interface's link-wide PAUSE settings and statistics.
// Whatever was not reported is Unknown or nil, and Reason says why.
type Pause struct {
	// Ifname is the interface asked about.
	Ifname string
	// Ifindex is the interface index from the reply's header; 0 when the
	// reply had none (and from the ioctl).
	Ifindex int
	// Settings are the configured pause settings.
	Settings Settings
	// Stats are the PAUSE frame counters.
	Stats Stats
	// Source is where the values came from: SourceNetlink or SourceIoctl,
	// also when that source answered that the driver has no pause support.
	Source string
	// Unsupported is true when the driver has no pause operations: the
	// settings are Unknown because there is nothing to read, not because
	// something failed. Reason is then ReasonNoPauseOps.
	Unsupported bool
	// Reason says, in one line, why settings or statistics are Unknown or
	// nil (Reason* constants, joined with "; "); empty when all is known.
	Reason string
}
