// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A NIC is the demo host's simulated RoCE NIC: an mlx5-shaped port
// (device mlx5_0, port 1, a RoCE v2 GID of the demo's interface, trust
// DSCP then PCP, priority 3 on a buffer of its own, DCQCN on priority 3)
// carrying RDMA traffic, whose counters the demo's screen samples as it
// samples a real NIC's (session.Config.Sampler). No file of the host is
// read or written, so a killed demo leaves nothing behind.
//
// Its traffic follows the scenario (Run with WithNIC):
//   - RoCE flows, 1 GB/s each way, while a simulated switch's link is up
//     (one transmits LLDPDUs): the fabric is the switches' links.
//   - It flows on the priority its ToS gives (the ToS of rdma_cm's
//     default, 106 at start: DSCP 26 with ECT(0)), through the port's
//     DSCP trust: priority = DSCP/8, mlx5's default DSCP-to-priority map
//     (the one mlnx_qos --trust dscp shows; DSCP 26 is priority 3).
//   - While the scenario's congestion is on, every 5 s has a 2 s burst
//     (the fourth and fifth second, from the start of the demo) in which
//     the switch's buffer for that traffic fills. If the switch runs PFC
//     on the traffic's priority (its operational PFC, which the switch
//     may have adopted from the host) it pauses the host: 400 PAUSE
//     frames/s received, paused 40 % of the time. If it does not, it
//     drops: 50 packets/s arrive out of sequence.
//   - While the scenario's ECN marking is on, the switch marks 2000
//     packets/s in a burst and the host answers with CNPs (500/s); DCQCN
//     slows the senders, so a lossless burst has 100 pauses/s, paused
//     10 % of the time.
//
// Counters only grow: they integrate these rates over the demo's clock,
// across passes, as a real NIC's do. The ToS can be written through
// ConfigFS (the screen's f key, dcbtop's own rdma_cm write): the written
// value holds until the scenario next sets one.
type NIC struct {
	mu    sync.Mutex
	clock Clock
	start time.Time
	last  time.Time // integrated up to
	tos   uint8
	// The scenario's state, and the switches' (Fabric).
	congestion, ecn bool
	up              bool
	switchPFC       dcb.PrioSet
	// made: rdma_cm/mlx5_0 was made in configfs (ConfigFS Mkdir).
	made bool
	acc  nicCounters
}

// nicCounters are the NIC's counters, as rates integrate them.
type nicCounters struct {
	bytes       [8]float64 // each way, per priority
	rxPause     [8]float64
	pausedUs    [8]float64
	transitions [8]float64
	ecnMarked   float64
	cnp         float64
	outOfSeq    float64
}

// NewNIC returns the simulated NIC of a demo started now on clock (the
// demo's; nil: the real clock): default ToS 106, no congestion, no ECN
// marking, and no switch up until Fabric says one is.
func NewNIC(clock Clock) *NIC {
	if clock == nil {
		clock = realClock{}
	}
	now := clock.Now()
	return &NIC{clock: clock, start: now, last: now, tos: nicDefaultToS}
}

// nicSource is the source every value of the simulated NIC names.
const nicSource = "the demo's simulated NIC"

// The simulated NIC's identity and traffic; rates are per second.
const (
	nicDevice      = "mlx5_0"
	nicPort        = 1
	nicDefaultToS  = 106 // DSCP 26, ECT(0)
	nicBytesRate   = 1e9 // RoCE bytes each way
	nicPauseRate   = 400.0
	nicPausedShare = 0.4
	nicDCQCNPauses = 100.0 // with ECN marking, DCQCN slows the senders
	nicDCQCNShare  = 0.1
	nicECNRate     = 2000.0
	nicCNPRate     = 500.0
	nicDropRate    = 50.0
	burstEvery     = 5.0 // seconds
	burstFrom      = 3.0 // a burst is [burstFrom, burstEvery) of each period
)

// burst reports whether the NIC's congestion, when on, is in a burst at
// seconds s into the demo.
func burst(s float64) bool { return math.Mod(s, burstEvery) >= burstFrom }

// burstSeconds is the time spent in bursts in the first s seconds.
func burstSeconds(s float64) float64 {
	s = math.Max(0, s)
	return math.Floor(s/burstEvery)*(burstEvery-burstFrom) + math.Max(0, math.Mod(s, burstEvery)-burstFrom)
}

// priority is the priority of the traffic a ToS marks, through the
// port's DSCP trust and mlx5's default DSCP-to-priority map.
func priority(tos uint8) uint8 { return tos >> 2 >> 3 }

// advance integrates the counters up to at (n.mu held) with the state in
// force; a time before the last one integrates nothing.
func (n *NIC) advance(at time.Time) {
	if !at.After(n.last) {
		return
	}
	a, b := n.last.Sub(n.start).Seconds(), at.Sub(n.start).Seconds()
	n.last = at
	if !n.up {
		return
	}
	p := priority(n.tos)
	c := &n.acc
	c.bytes[p] += (b - a) * nicBytesRate
	if !n.congestion {
		return
	}
	in := burstSeconds(b) - burstSeconds(a)
	if n.ecn {
		c.ecnMarked += in * nicECNRate
		c.cnp += in * nicCNPRate
	}
	if !n.switchPFC.Has(p) {
		c.outOfSeq += in * nicDropRate
		return
	}
	rate, share := nicPauseRate, nicPausedShare
	if n.ecn {
		rate, share = nicDCQCNPauses, nicDCQCNShare
	}
	c.rxPause[p] += in * rate
	c.pausedUs[p] += in * share * 1e6
	c.transitions[p] += in * rate / 10
}

// Script applies a scenario step's change to the NIC at at.
func (n *NIC) Script(at time.Time, ch NICChange) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.advance(at)
	if ch.ToS != nil {
		n.tos = *ch.ToS
	}
	if ch.Congestion != nil {
		n.congestion = *ch.Congestion
	}
	if ch.ECN != nil {
		n.ecn = *ch.ECN
	}
}

// Fabric tells the NIC, at at, whether a switch's link is up and on which
// priorities the switches run PFC (their operational PFC).
func (n *NIC) Fabric(at time.Time, up bool, pfc dcb.PrioSet) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.advance(at)
	n.up, n.switchPFC = up, pfc
}

// Sample returns the NIC's counters at at (an engine.CountersSampled as a
// real sampler gives it). The demo has one interface: every name gets the
// same NIC.
func (n *NIC) Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled {
	n.mu.Lock()
	n.advance(at)
	c, tos := n.acc, n.tos
	n.mu.Unlock()
	reading := func(v float64) lossless.Reading { return lossless.Reading{Value: uint64(v), Source: nicSource} }
	var total float64
	for _, b := range c.bytes {
		total += b
	}
	var ndk [lossless.NDKBits]lossless.Reading
	ndk[lossless.NDKConnect] = reading(8)
	ndk[lossless.NDKAccept] = reading(8)
	ndk[lossless.NDKConnectFailure] = reading(0)
	ndk[lossless.NDKConnectionError] = reading(0)
	ndk[lossless.NDKActiveConnection] = reading(16)
	ndk[lossless.NDKRDMAInOctets] = reading(total)
	ndk[lossless.NDKRDMAOutOctets] = reading(total)
	ndk[lossless.NDKRDMAInFrames] = reading(total / 4096)
	ndk[lossless.NDKRDMAOutFrames] = reading(total / 4096)
	var cong [lossless.NumCongestion]lossless.Reading
	cong[lossless.CNPSent] = reading(c.cnp)
	cong[lossless.CNPHandled] = reading(c.cnp)
	cong[lossless.CNPIgnored] = reading(0)
	cong[lossless.ECNMarked] = reading(c.ecnMarked)
	cong[lossless.OutOfSequence] = reading(c.outOfSeq)
	cong[lossless.OutOfBuffer] = reading(0)
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool, StormWarning: reading(0), StormError: reading(0)}
	for p := range pfc.Priorities {
		pp := &pfc.Priorities[p]
		pp.RxBytes, pp.TxBytes = reading(c.bytes[p]), reading(c.bytes[p])
		pp.RxPause, pp.TxPause = reading(c.rxPause[p]), reading(0)
		pp.RxPauseDuration, pp.TxPauseDuration = reading(c.pausedUs[p]), reading(0)
		pp.RxPauseTransitions = reading(c.transitions[p])
	}
	ethernet, v2, v1, mode := "Ethernet", "RoCE v2", "RoCE v1", "RoCE v2"
	ll, v4, v4addr := "fe80::dc:b0ff:fe00:fe", "::ffff:192.0.2.10", "192.0.2.10"
	routable := 1
	delay := uint16(7)
	cnpDSCP, cnpPrio := uint8(48), uint8(3)
	return engine.CountersSampled{
		Interface: ifname, At: at, Interval: interval, Driver: "mlx5_core",
		RDMA: []lossless.RDMAPortSample{{Device: nicDevice, Port: nicPort, NDK: ndk, Congestion: cong}},
		PFC:  pfc,
		ECN: &lossless.ECNSample{Source: nicSource, NotificationPoint: dcb.PrioSet(1 << 3), ReactionPoint: dcb.PrioSet(1 << 3),
			CNPDSCP: &cnpDSCP, CNPPriority: &cnpPrio},
		RoCE: []lossless.RoCEPortSample{{Device: nicDevice, Port: nicPort, LinkLayer: &ethernet,
			GIDs:       []lossless.RoCEGID{{Index: 0, GID: &ll, Type: &v1, Netdev: &ifname}, {Index: 1, GID: &v4, IPv4: &v4addr, Type: &v2, Netdev: &ifname}},
			RoutableV2: &routable, DefaultToS: &lossless.RoCEToS{ToS: tos, DSCP: tos >> 2, ECN: tos & 3, Source: nicSource}, DefaultMode: &mode, Problems: []string{}}},
		QoS: &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay, Source: nicSource,
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288}},
		LinkPause: &lossless.LinkPauseSample{Autoneg: new(false), RX: new(false), TX: new(false), Source: nicSource},
	}
}

// InBurst reports whether the NIC's congestion, when on, is in a burst at
// at (for tests and the demo's narration).
func (n *NIC) InBurst(at time.Time) bool { return burst(at.Sub(n.start).Seconds()) }

// ConfigFS returns the NIC's rdma_cm configfs, a tree standing for /sys
// that holds kernel/config/rdma_cm as the kernel serves it for mlx5_0
// (drivers/infiniband/core/cma_configfs.c): mkdir of rdma_cm/mlx5_0 makes
// ports/1 with its default_roce_tos, any other name is ENODEV, and a
// write of a decimal 0-255 sets the NIC's ToS (default_roce_tos_store,
// kstrtou8: EINVAL otherwise). The screen's host QoS fixes write it.
func (n *NIC) ConfigFS() rdma.WriteFS { return nicFS{n} }

// nicFS is a NIC's configfs.
type nicFS struct{ n *NIC }

const (
	cfgRoot = "kernel/config/rdma_cm"
	cfgDev  = cfgRoot + "/" + nicDevice
	cfgTos  = cfgDev + "/ports/1/default_roce_tos"
)

// dirs lists the directories that exist (rdma_cm/mlx5_0's once made).
func (f nicFS) dirs() []string {
	d := []string{".", "kernel", "kernel/config", cfgRoot}
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	if f.n.made {
		d = append(d, cfgDev, cfgDev+"/ports", cfgDev+"/ports/1")
	}
	return d
}

func (f nicFS) hasFile(name string) bool {
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	return f.n.made && name == cfgTos
}

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

func (f nicFS) Stat(name string) (hostfs.Info, error) {
	switch {
	case slices.Contains(f.dirs(), name):
		return hostfs.Info{Dir: true}, nil
	case f.hasFile(name):
		return hostfs.Info{Regular: true}, nil
	}
	return hostfs.Info{}, pathErr("stat", name, syscall.ENOENT)
}

func (f nicFS) ReadDir(name string) ([]string, error) {
	dirs := f.dirs()
	if !slices.Contains(dirs, name) {
		return nil, pathErr("open", name, syscall.ENOENT)
	}
	var out []string
	for _, d := range append(dirs, cfgTos) {
		if d != name && path.Dir(d) == name && (d != cfgTos || f.hasFile(d)) {
			out = append(out, path.Base(d))
		}
	}
	slices.Sort(out)
	return out, nil
}

func (f nicFS) Readlink(name string) (string, error) {
	return "", pathErr("readlink", name, syscall.EINVAL)
}

func (f nicFS) ReadFile(name string, limit int64) ([]byte, error) {
	if slices.Contains(f.dirs(), name) {
		return nil, hostfs.ErrIsDir
	}
	if !f.hasFile(name) {
		return nil, pathErr("open", name, syscall.ENOENT)
	}
	f.n.mu.Lock()
	b := []byte(strconv.Itoa(int(f.n.tos)) + "\n")
	f.n.mu.Unlock()
	if int64(len(b)) > limit+1 {
		b = b[:limit+1]
	}
	return b, nil
}

func (f nicFS) Mkdir(name string) error {
	switch {
	case slices.Contains(f.dirs(), name):
		return pathErr("mkdir", name, syscall.EEXIST)
	case path.Dir(name) != cfgRoot:
		return pathErr("mkdir", name, syscall.EPERM)
	case name != cfgDev:
		return pathErr("mkdir", name, syscall.ENODEV)
	}
	f.n.mu.Lock()
	f.n.made = true
	f.n.mu.Unlock()
	return nil
}

func (f nicFS) WriteFile(name string, data []byte) error {
	if !f.hasFile(name) {
		return pathErr("open", name, syscall.ENOENT)
	}
	v, err := strconv.ParseUint(strings.TrimSuffix(string(data), "\n"), 10, 8)
	if err != nil {
		return pathErr("write", name, syscall.EINVAL)
	}
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	f.n.advance(f.n.clock.Now())
	f.n.tos = uint8(v)
	return nil
}
