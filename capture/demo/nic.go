package demo

import (
	"math"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A NIC is the demo host's simulated RoCE NIC: an mlx5-shaped port
// (device mlx5_0, port 1, a RoCE v2 GID of the demo's interface, rdma_cm's
// default ToS 106: DSCP 26 with ECT(0), trust DSCP then PCP, priority 3 on
// a buffer of its own, DCQCN on priority 3) carrying RDMA traffic on
// priority 3, whose counters the demo's screen samples as it samples a
// real NIC's (session.Config.Sampler): no file is read or written, so a
// killed demo leaves nothing behind.
//
// Its traffic follows the scenario's clock: 1 GB/s each way of RoCE on
// priority 3, and in every 10 s of a pass a 3 s burst of congestion (the
// seventh to ninth second) in which the switch pauses priority 3 (400
// PAUSE frames/s received, 40 % of the time paused) and marks ECN, and
// the host answers with CNPs. Counters only grow (they are integrals of
// these rates), as a real NIC's do.
type NIC struct {
	start time.Time
}

// NewNIC returns the simulated NIC of a demo started at start (on the
// demo's clock).
func NewNIC(start time.Time) *NIC { return &NIC{start: start} }

// nicSource is the source every value of the simulated NIC names.
const nicSource = "the demo's simulated NIC"

// The simulated traffic's rates, per second.
const (
	nicBytesRate   = 1e9   // RoCE bytes each way on priority 3
	nicPauseRate   = 400.0 // PAUSE frames received on priority 3 in a burst
	nicPausedShare = 0.4   // share of a burst's time priority 3 is paused
	nicECNRate     = 2000.0
	nicCNPRate     = 500.0
	nicRocePrio    = 3
)

// burst reports whether the scenario is in a burst of congestion at
// seconds s into its run: the seventh to ninth second of every ten.
func burst(s float64) bool {
	m := math.Mod(s, 10)
	return m >= 7 && m < 10
}

// burstSeconds is the time spent in bursts in the first s seconds.
func burstSeconds(s float64) float64 {
	whole := math.Floor(s / 10)
	return whole*3 + math.Max(0, math.Mod(s, 10)-7)
}

// Sample returns the NIC's counters at at (an engine.CountersSampled as a
// real sampler gives it). The demo has one interface: every name gets the
// same NIC.
func (n *NIC) Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled {
	s := math.Max(0, at.Sub(n.start).Seconds())
	b := burstSeconds(s)
	reading := func(v float64, src string) lossless.Reading { return lossless.Reading{Value: uint64(v), Source: src} }
	var ndk [lossless.NDKBits]lossless.Reading
	ndk[lossless.NDKConnect] = reading(8, nicSource)
	ndk[lossless.NDKAccept] = reading(8, nicSource)
	ndk[lossless.NDKConnectFailure] = reading(0, nicSource)
	ndk[lossless.NDKConnectionError] = reading(0, nicSource)
	ndk[lossless.NDKActiveConnection] = reading(16, nicSource)
	ndk[lossless.NDKRDMAInOctets] = reading(s*nicBytesRate, nicSource)
	ndk[lossless.NDKRDMAOutOctets] = reading(s*nicBytesRate, nicSource)
	ndk[lossless.NDKRDMAInFrames] = reading(s*nicBytesRate/4096, nicSource)
	ndk[lossless.NDKRDMAOutFrames] = reading(s*nicBytesRate/4096, nicSource)
	var cong [lossless.NumCongestion]lossless.Reading
	cong[lossless.CNPSent] = reading(b*nicCNPRate, nicSource)
	cong[lossless.CNPHandled] = reading(b*nicCNPRate, nicSource)
	cong[lossless.CNPIgnored] = reading(0, nicSource)
	cong[lossless.ECNMarked] = reading(b*nicECNRate, nicSource)
	cong[lossless.OutOfSequence] = reading(0, nicSource)
	cong[lossless.OutOfBuffer] = reading(0, nicSource)
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool, StormWarning: reading(0, nicSource), StormError: reading(0, nicSource)}
	for p := range pfc.Priorities {
		pp := &pfc.Priorities[p]
		pp.RxPause, pp.TxPause = reading(0, nicSource), reading(0, nicSource)
		pp.RxPauseDuration, pp.TxPauseDuration = reading(0, nicSource), reading(0, nicSource)
		pp.RxBytes, pp.TxBytes = reading(0, nicSource), reading(0, nicSource)
		pp.RxPauseTransitions = reading(0, nicSource)
	}
	p3 := &pfc.Priorities[nicRocePrio]
	p3.RxBytes, p3.TxBytes = reading(s*nicBytesRate, nicSource), reading(s*nicBytesRate, nicSource)
	p3.RxPause = reading(b*nicPauseRate, nicSource)
	p3.RxPauseDuration = reading(b*nicPausedShare*1e6, nicSource)
	p3.RxPauseTransitions = reading(b*nicPauseRate/10, nicSource)
	ethernet, v2, v1, mode := "Ethernet", "RoCE v2", "RoCE v1", "RoCE v2"
	ll, v4, v4addr := "fe80::dc:b0ff:fe00:fe", "::ffff:192.0.2.10", "192.0.2.10"
	routable := 1
	delay := uint16(7)
	cnpDSCP, cnpPrio := uint8(48), uint8(nicRocePrio)
	return engine.CountersSampled{
		Interface: ifname, At: at, Interval: interval, Driver: "mlx5_core",
		RDMA: []lossless.RDMAPortSample{{Device: "mlx5_0", Port: 1, NDK: ndk, Congestion: cong}},
		PFC:  pfc,
		ECN: &lossless.ECNSample{Source: nicSource, NotificationPoint: dcb.PrioSet(1 << nicRocePrio), ReactionPoint: dcb.PrioSet(1 << nicRocePrio),
			CNPDSCP: &cnpDSCP, CNPPriority: &cnpPrio},
		RoCE: []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1, LinkLayer: &ethernet,
			GIDs:       []lossless.RoCEGID{{Index: 0, GID: &ll, Type: &v1, Netdev: &ifname}, {Index: 1, GID: &v4, IPv4: &v4addr, Type: &v2, Netdev: &ifname}},
			RoutableV2: &routable, DefaultToS: &lossless.RoCEToS{ToS: 106, DSCP: 26, ECN: 2, Source: nicSource}, DefaultMode: &mode, Problems: []string{}}},
		QoS: &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay, Source: nicSource,
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288}},
		LinkPause: &lossless.LinkPauseSample{Autoneg: new(false), RX: new(false), TX: new(false), Source: nicSource},
	}
}

// InBurst reports whether the NIC is in a burst of congestion at at (for
// tests and the demo's narration).
func (n *NIC) InBurst(at time.Time) bool { return burst(at.Sub(n.start).Seconds()) }
