// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Fixed times: snapshots are built by the engine itself from frames with
// these timestamps, and the screen's clock is injected.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

var (
	macLocal0 = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x10}
	macLocal1 = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x11}
	macLeaf1  = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x01}
	macLeaf2  = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x02}
)

// A peer is an LLDP speaker on the far end of a link.
type peer struct {
	mac            lldp.MAC
	port           string
	name, desc     string
	portDesc       string
	ttl            uint16
	tlvs           []lldp.TLV
	chassisIfname  string // chassis ID as an interface name instead of the MAC
	withoutSysName bool
}

func (p peer) frame(t testing.TB) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: p.mac[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(p.port)},
		TTL:       p.ttl,
	}
	if p.chassisIfname != "" {
		du.ChassisID = lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeLocallyAssigned, ID: []byte(p.chassisIfname)}
	}
	if p.portDesc != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypePortDescription, Value: p.portDesc})
	}
	if !p.withoutSysName {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemName, Value: p.name})
	}
	if p.desc != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: p.desc})
	}
	du.TLVs = append(du.TLVs, p.tlvs...)
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, p.mac, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A scenario drives a real engine through timestamped events.
type scenario struct {
	t testing.TB
	e *engine.Engine
}

func newScenario(t testing.TB) *scenario {
	return &scenario{t: t, e: engine.New(engine.Config{Judge: check.Judge})}
}

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func (s *scenario) link(sec float64, iface string, mac lldp.MAC) *scenario {
	s.e.Apply(engine.LinkChanged{Interface: iface, At: at(sec), Ifindex: 2, MAC: mac, Up: true})
	return s
}

func (s *scenario) local(sec float64, iface string, source engine.LocalSource, willing bool, p *dcb.Params, mode string) *scenario {
	s.e.Apply(engine.LocalChanged{Interface: iface, At: at(sec), Source: source, Willing: willing, Params: p, Mode: mode})
	return s
}

func (s *scenario) rx(sec float64, iface string, p peer) *scenario {
	s.t.Helper()
	s.e.Apply(engine.FrameReceived{Interface: iface, At: at(sec), Data: p.frame(s.t)})
	return s
}

func (s *scenario) tick(sec float64) *scenario {
	s.e.Apply(engine.Tick{At: at(sec)})
	return s
}

func (s *scenario) snap() engine.Snapshot { return s.e.Snapshot() }

// Parameters of a RoCE deployment: priority 3 lossless on TC1.
func tsa2ets() [8]lldp.TSA {
	return [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict}
}

var roce = dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}

func localParams(willing bool) *dcb.Params {
	return &dcb.Params{
		ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 0, 0, 0, 0}, TCBandwidth: [8]uint8{50, 50}, TSA: tsa2ets()},
		PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: 1 << 3},
		App: []dcb.App{roce},
	}
}

func etsTLV(reco bool, bw0, bw1 uint8, prioTC [8]uint8) *lldp.ETS {
	return &lldp.ETS{Recommendation: reco, MaxTCs: 8, PrioTC: prioTC, Bandwidth: [8]uint8{bw0, bw1}, TSA: tsa2ets()}
}

var prio3onTC1 = [8]uint8{0, 0, 0, 1, 0, 0, 0, 0}

// leaf1 is an IEEE switch port, not willing, advertising priority 3
// lossless with an ETS recommendation and RoCE/DSCP/FCoE/NVMe APP entries.
func leaf1(bw0, bw1 uint8, pfc uint8) peer {
	return peer{mac: macLeaf1, port: "swp1", name: "leaf1", desc: "Cumulus Linux 5.9 on Mellanox SN2410", portDesc: "to host17 eth0", ttl: 120,
		tlvs: []lldp.TLV{
			etsTLV(false, bw0, bw1, prio3onTC1),
			etsTLV(true, bw0, bw1, prio3onTC1),
			&lldp.PFC{Cap: 8, Enabled: pfc},
			&lldp.AppPriority{Entries: []lldp.AppEntry{
				{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791},
				{Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26},
				{Priority: 5, Selector: lldp.AppSelDSCP, Protocol: 46},
				{Priority: 3, Selector: lldp.AppSelEthertype, Protocol: 0x8906},
				{Priority: 4, Selector: lldp.AppSelTCP, Protocol: 4420},
			}},
		}}
}

func leaf2() peer {
	return peer{mac: macLeaf2, port: "Ethernet12", name: "leaf2", desc: "Arista EOS 4.31", ttl: 120,
		tlvs: []lldp.TLV{
			etsTLV(false, 50, 50, prio3onTC1),
			&lldp.PFC{Cap: 8, Enabled: 1 << 3},
			&lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791}}},
		}}
}

// Snapshots of the golden tests.

// noPeer: the local side is known, nothing heard yet.
func noPeer(t testing.TB) engine.Snapshot {
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").tick(5).snap()
}

// firstReceipt: one peer, first LLDPDU, local willing.
func firstReceipt(t testing.TB) engine.Snapshot {
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3)).snap()
}

// mismatch: neither side willing and they disagree on ETS, PFC and APP.
func mismatch(t testing.TB) engine.Snapshot {
	p := leaf1(40, 60, 1<<3|1<<4)
	p.tlvs[3] = &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 4, Selector: lldp.AppSelUDP, Protocol: 4791}}}
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "dcbnl", false, localParams(false), "host agent, IEEE").
		rx(1, "eth0", p).snap()
}

// multiPeer: two switches speak DCBX on one link.
func multiPeer(t testing.TB) engine.Snapshot {
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3)).rx(6, "eth0", leaf2()).tick(8).snap()
}

// expired: the peer went silent and its TTL ran out.
func expired(t testing.TB) engine.Snapshot {
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3)).tick(125).snap()
}

// shutdown: the peer's agent stopped and sent a shutdown LLDPDU (TTL 0).
func shutdown(t testing.TB) engine.Snapshot {
	bye := leaf1(40, 60, 1<<3)
	bye.ttl = 0
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3)).rx(20, "eth0", bye).snap()
}

// ceePeer: a CEE DCBX switch (PG, PFC, APP with FCoE and iSCSI).
func ceePeer(t testing.TB) engine.Snapshot {
	cee := &lldp.CEE{
		Control: &lldp.CEEControl{SeqNo: 3, AckNo: 2},
		PG: &lldp.CEEPG{CEEFeature: lldp.CEEFeature{Enable: true}, PGID: [8]uint8{0, 0, 0, 1, 0, 0, 0, 15},
			Bandwidth: [8]uint8{60, 40}, NumTCs: 8},
		PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8},
		App: &lldp.CEEApp{CEEFeature: lldp.CEEFeature{Enable: true}, Entries: []lldp.CEEAppEntry{
			{Protocol: 0x8906, Selector: 0, PriorityMap: 1 << 3},
			{Protocol: 3260, Selector: 1, PriorityMap: 1 << 4},
		}},
	}
	p := peer{mac: macLeaf1, port: "Eth1/7", name: "nexus7", desc: "Cisco NX-OS 9.3", ttl: 120, tlvs: []lldp.TLV{cee}}
	return newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", p).snap()
}

// ceeAgent: dcbtop's agent fell back to CEE against ceePeer's switch and
// waits for it to acknowledge its sequence 1: the header says so, and the
// PFC pane's resolution says what the adoption waits for.
func ceeAgent(t testing.TB) engine.Snapshot {
	s := newScenario(t)
	cee := &lldp.CEE{
		Control: &lldp.CEEControl{SeqNo: 3, AckNo: 0},
		PFC:     &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8},
	}
	p := peer{mac: macLeaf1, port: "Eth1/7", name: "nexus7", desc: "Cisco NX-OS 9.3", ttl: 120, tlvs: []lldp.TLV{cee}}
	wait := "waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)"
	s.link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").rx(1, "eth0", p)
	s.e.Apply(engine.AgentDCBX{Interface: "eth0", At: at(1), State: engine.AgentDCBXState{Dialect: lldp.DialectCEE,
		Why:     "CEE DCBX: the peer speaks only CEE, so the agent falls back to it as lldpad does",
		Control: &engine.AgentCEEControl{Seq: 1, Ack: 3, PGWait: wait, PFCWait: wait, AppWait: wait}}})
	return s.snap()
}

// realistic: two interfaces with history: eth0 willing behind leaf1,
// whose recommendation and PFC change once; eth1 read from dcbnl, not
// willing, behind leaf2.
func realistic(t testing.TB) engine.Snapshot {
	s := newScenario(t).
		link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		link(0, "eth1", macLocal1).local(0, "eth1", "dcbnl", false, localParams(false), "host agent, IEEE").
		rx(1, "eth0", leaf1(50, 50, 1<<3)).
		rx(5, "eth1", leaf2()).
		rx(31, "eth0", leaf1(40, 60, 1<<3|1<<4)).
		rx(61, "eth0", leaf1(40, 60, 1<<3|1<<4)).
		rx(65, "eth1", leaf2())
	return s.snap()
}

// hostile: a peer whose identity strings try to drive the terminal.
func hostile(t testing.TB) engine.Snapshot {
	evil := "\x1b[2J\x1b]0;owned\a"
	p := leaf1(40, 60, 1<<3)
	p.name = "leaf" + evil + "1"
	p.desc = "desc" + evil + "\u202eevil\x9b31m\x7f"
	p.portDesc = "port" + evil
	p.port = "swp\x1b[31m1"
	p.chassisIfname = "chassis\x1b]8;;http://x\a"
	return newScenario(t).link(0, "eth\x1b[1m0", macLocal0).local(0, "eth\x1b[1m0", "agent", true, localParams(true), "").
		local(0, "eth\x1b[1m0", "dcbnl", true, localParams(true), "mode\x1b[5m"). // the NIC's mode, under the agent
		rx(1, "eth\x1b[1m0", p).snap()
}

// testState is the view state goldens start from: UTC, live, followed log.
func testState(snap engine.Snapshot, age time.Duration) viewState {
	vs := viewState{loc: time.UTC, logFollow: true, focus: paneLog, age: age, hasBackend: true}
	if len(snap.Interfaces) > 0 {
		vs.iface = snap.Interfaces[0].Name
	}
	return vs
}

func (s *scenario) counters(sec float64, ev engine.CountersSampled) *scenario {
	ev.At = at(sec)
	s.e.Apply(ev)
	return s
}

// pauseSteps are the pause frames priority 3 of the lossless fixture
// receives and sends in second i (1-60) of its minute: a burst at 20-29 s,
// a smaller one at 45-52 s, and a trickle received in the last 4 s, 120
// received and 40 sent in all.
func pauseSteps(i int) (rx, tx uint64) {
	switch {
	case i >= 20 && i <= 29:
		return 8, 3
	case i >= 45 && i <= 49:
		return 4, 2
	case i >= 50 && i <= 52:
		return 4, 0
	case i >= 57:
		return 2, 0
	}
	return 0, 0
}

// losslessSample is sample i (0-60, one a second) of eth0's counters in
// the lossless fixture: RDMA device mlx5_0 port 1 with the CM-derived
// connection counters and the port's traffic counters (no source for
// connection_error, active_connection, cq_error: masks 0x3FFFFF8 and 0x7),
// mlx5 congestion counters, per-priority pauses from ethtool and ECN on
// priority 3 in both roles. The last sample has connect 12, accept 3,
// connect_failure 0, RDMA octets 4000/8000 in/out, frames 10/20, and
// priority 3 pauses 120 received, 40 sent.
func losslessSample(i int) engine.CountersSampled {
	grow := func(final uint64) uint64 { return final * uint64(i) / 60 }
	read := func(v uint64, src string) lossless.Reading { return lossless.Reading{Value: v, Source: src} }
	derived := func(v uint64, src string) lossless.Reading {
		return lossless.Reading{Value: v, Source: src, Derived: true}
	}
	const cm, ports = "class/infiniband_cm/mlx5_0/1/", "class/infiniband/mlx5_0/ports/1/"
	port := lossless.RDMAPortSample{Device: "mlx5_0", Port: 1}
	port.NDK[lossless.NDKConnect] = derived(grow(12), cm+"cm_tx_msgs/rtu")
	port.NDK[lossless.NDKAccept] = derived(grow(3), cm+"cm_rx_msgs/rtu")
	port.NDK[lossless.NDKConnectFailure] = derived(0, cm+"cm_rx_msgs/rej + cm_tx_msgs/rej")
	port.NDK[lossless.NDKRDMAInOctets] = read(grow(4000), ports+"counters/port_rcv_data x4")
	port.NDK[lossless.NDKRDMAOutOctets] = read(grow(8000), ports+"counters/port_xmit_data x4")
	port.NDK[lossless.NDKRDMAInFrames] = read(grow(10), ports+"counters/port_rcv_packets")
	port.NDK[lossless.NDKRDMAOutFrames] = read(grow(20), ports+"counters/port_xmit_packets")
	for c, final := range [lossless.NumCongestion]uint64{5, 2, 0, 9, 0, 0} {
		port.Congestion[c] = read(grow(final), ports+"hw_counters/"+lossless.CongestionCounter(c).Key())
	}
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool,
		StormWarning: read(0, "tx_pause_storm_warning_events"), StormError: read(0, "tx_pause_storm_error_events"),
		StormTimeout: read(100, "ETHTOOL_GTUNABLE pfc-prevention-tout")}
	var rx3, tx3 uint64
	for s := 1; s <= i; s++ {
		rx, tx := pauseSteps(s)
		rx3, tx3 = rx3+rx, tx3+tx
	}
	for p := range pfc.Priorities {
		var rx, tx uint64
		if p == 3 {
			rx, tx = rx3, tx3
		}
		name := func(dir, suffix string) string { return fmt.Sprintf("%s_prio%d_pause%s", dir, p, suffix) }
		pfc.Priorities[p] = lossless.PrioPauseSample{
			RxPause: read(rx, name("rx", "")), TxPause: read(tx, name("tx", "")),
			// 125/6 µs per frame received, 20 per frame sent: 2500 and 800 µs in all.
			RxPauseDuration: read(rx*125/6, name("rx", "_duration")), TxPauseDuration: read(tx*20, name("tx", "_duration")),
		}
	}
	return engine.CountersSampled{Interface: "eth0", Interval: time.Second, RDMA: []lossless.RDMAPortSample{port}, PFC: pfc,
		ECN: &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}}
}

// losslessSnap: firstReceipt's interface and peer, then a minute and a second
// of lossless counters sampled each second (61 samples: a full minute of
// pause history).
func losslessSnap(t testing.TB) engine.Snapshot {
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3))
	for i := range 61 {
		s.counters(float64(2+i), losslessSample(i))
	}
	return s.snap()
}

// losslessRoCE is lossless with the port's RoCE identity sampled too: a
// routable RoCE v2 GID at index 3 (192.168.10.11), rdma_cm's default ToS
// 106 (DSCP 26), and link-wide PAUSE left on (rx) beside PFC.
func losslessRoCE(t testing.TB) engine.Snapshot {
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3))
	for i := range 61 {
		s.counters(float64(2+i), roceSample("eth0", i))
	}
	return s.snap()
}

// roceSample is sample i of losslessRoCE's counters, taken on iface.
func roceSample(iface string, i int) engine.CountersSampled {
	eth, three, on, off, n := "Ethernet", 3, true, false, uint64(1234)
	gid, v4, v2 := "::ffff:192.168.10.11", "192.168.10.11", "RoCE v2"
	ev := losslessSample(i)
	ev.Interface = iface
	cnp, cmd := uint64(12*i), "rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts"
	optional := &lossless.OptionalCounters{Source: "rdma netlink", StatusKnown: true,
		Enabled: []lossless.OptionalCounter{{Name: "cc_rx_cnp_pkts", Value: &cnp}}, Disabled: []string{"cc_rx_ce_pkts", "cc_tx_cnp_pkts"}, EnableCommand: &cmd}
	ev.RoCE = []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1, LinkLayer: &eth, RoutableV2: &three, Problems: []string{}, Optional: optional,
		GIDs:       []lossless.RoCEGID{{Index: 3, GID: &gid, IPv4: &v4, Type: &v2}},
		DefaultToS: &lossless.RoCEToS{ToS: 106, DSCP: 26, ECN: 2, Source: "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"}}}
	ev.LinkPause = &lossless.LinkPauseSample{RX: &on, TX: &off, RxFrames: &n, TxFrames: nil, Source: "ethtool netlink PAUSE_GET"}
	delay := uint16(7)
	ev.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, TrustDerived: true, PFCDelay: &delay, Source: "dcbnl IEEE_GET",
		Buffer:      &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288},
		MaxRateKbps: &[8]uint64{3: 25_000_000}, Rewrite: []lossless.RewriteEntry{{Selector: "dscp", Priority: 3, Protocol: 26}}}
	for p := range ev.PFC.Priorities {
		rx, tx := roceBytes(p, i)
		ev.PFC.Priorities[p].RxBytes = lossless.Reading{Value: rx, Source: fmt.Sprintf("rx_prio%d_bytes", p)}
		ev.PFC.Priorities[p].TxBytes = lossless.Reading{Value: tx, Source: fmt.Sprintf("tx_prio%d_bytes", p)}
	}
	return ev
}

// roceBytes are priority p's bytes received and sent by second i of the
// losslessRoCE fixture (mlx5 rx_prio{p}_bytes, tx_prio{p}_bytes): RoCE on
// priority 3 at 2 MB/s received and 1.5 MB/s sent, slowing to a quarter
// while it is paused (20-29 s), 100 kB/s of other traffic on priority 0.
func roceBytes(p, i int) (rx, tx uint64) {
	for s := 1; s <= i; s++ {
		switch {
		case p == 0:
			rx, tx = rx+100_000, tx+100_000
		case p == 3 && s >= 20 && s <= 29:
			rx, tx = rx+500_000, tx+375_000
		case p == 3:
			rx, tx = rx+2_000_000, tx+1_500_000
		}
	}
	return rx, tx
}

// twoPorts: a host's two RDMA ports with names that differ only near the
// end (enp129s0f0np0, enp129s0f1np1), one with a peer and PFC on 3 and 4,
// the other with the peer's information expired.
func twoPorts(t testing.TB) engine.Snapshot {
	const a, b = "enp129s0f0np0", "enp129s0f1np1"
	return newScenario(t).
		link(0, a, macLocal0).local(0, a, "agent", true, localParams(true), "").
		link(0, b, macLocal1).local(0, b, "dcbnl", false, localParams(false), "host agent, IEEE").
		rx(1, a, leaf1(40, 60, 1<<3|1<<4)).
		rx(5, b, leaf2()).
		rx(100, a, leaf1(40, 60, 1<<3|1<<4)).
		tick(130).
		snap()
}

// fourPorts: twoPorts (a valid peer; one expired) and two more: a port
// without a local source whose peer is heard (no operational PFC, the
// peer's known), and a port with no peer at all.
func fourPorts(t testing.TB) engine.Snapshot {
	const a, b, c, d = "enp129s0f0np0", "enp129s0f1np1", "enp130s0f0np0", "enp130s0f1np1"
	return newScenario(t).
		link(0, a, macLocal0).local(0, a, "agent", true, localParams(true), "").
		link(0, b, macLocal1).local(0, b, "dcbnl", false, localParams(false), "host agent, IEEE").
		link(0, c, macLocal0).
		link(0, d, macLocal1).local(0, d, "dcbnl", false, localParams(false), "host agent, IEEE").
		rx(1, a, leaf1(40, 60, 1<<3|1<<4)).
		rx(5, b, leaf2()).
		rx(100, a, leaf1(40, 60, 1<<3|1<<4)).
		rx(100, c, leaf2()).
		tick(130).
		snap()
}

// overviewState shows the overview.
func overviewState(vs *viewState, _ engine.Snapshot) { vs.overview, vs.ovDecided = true, true }

// nexus: a Cisco NX-OS peer whose System Description has line breaks,
// with a management address and system capabilities, and a PFC TLV one
// byte short (discarded).
func nexus(t testing.TB) engine.Snapshot {
	p := leaf1(40, 60, 1<<3)
	p.name, p.port = "n9k-leaf3", "Ethernet1/7"
	p.desc = "Cisco Nexus Operating System (NX-OS) Software 9.3(8)\nTAC support: http://www.cisco.com/tac\nCopyright (c) 2002-2021, Cisco Systems, Inc. All rights reserved."
	p.tlvs = append([]lldp.TLV{
		&lldp.SystemCapabilities{Capabilities: 1<<2 | 1<<4, Enabled: 1 << 2},
		&lldp.ManagementAddress{Family: 1, Address: []byte{192, 0, 2, 13}, IfSubtype: 2, IfNumber: 83886080},
	}, p.tlvs...)
	// A vendor TLV (Cisco OUI) the engine does not decode, shown in hex.
	p.tlvs = append(p.tlvs, &lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x01, 0x42, 1, 0x03, 0x6c, 0x00, 0x00, 0x10}})
	f := p.frame(t)
	// Cut the PFC TLV's information string by one byte (its length 6 → 5).
	for i := 14; i+6 <= len(f); i++ {
		if f[i] == 0xfe && f[i+1] == 6 && f[i+2] == 0x00 && f[i+3] == 0x80 && f[i+4] == 0xc2 && f[i+5] == 0x0b {
			f = append(append(append([]byte(nil), f[:i]...), 0xfe, 5), append(f[i+2:i+7], f[i+8:]...)...)
			break
		}
	}
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "")
	s.e.Apply(engine.FrameReceived{Interface: "eth0", At: at(1), Data: f})
	return s.snap()
}

// ports64 is a host with 64 ports, h0..h63 (as 64 veth pairs with an
// lldpd on each far end), behind four switches leaf1..leaf4 (16 ports
// each): most have a valid peer with PFC on 3; every tenth port (h9, h19,
// ... h59) has no peer; h5, h25 and h45 heard their peer once and it
// expired; h33 hears two switches (multi-peer); h12 and h40 disagree with
// their peer on PFC, neither side willing (an error each); h0..h3 have
// RDMA counters (pauses and a RoCE path).
func ports64(t testing.TB) engine.Snapshot {
	s := newScenario(t)
	sw := func(i int, pfc uint8) peer {
		p := leaf2()
		p.name, p.port = fmt.Sprintf("leaf%d", i/16+1), fmt.Sprintf("swp%d", i%16+1)
		p.mac[4] = byte(i/16 + 1)
		p.tlvs[1] = &lldp.PFC{Cap: 8, Enabled: pfc}
		return p
	}
	for i := range 64 {
		name := fmt.Sprintf("h%d", i)
		mac := macLocal0
		mac[5] = byte(i)
		s.link(0, name, mac).local(0, name, "dcbnl", false, localParams(false), "host agent, IEEE")
	}
	// In time order: the engine's clock only goes forward.
	for _, i := range []int{5, 25, 45} {
		s.rx(1, fmt.Sprintf("h%d", i), sw(i, 1<<3)) // heard once, then silent
	}
	s.rx(90, "h33", sw(33, 1<<3)).rx(95, "h33", leaf1(40, 60, 1<<3))
	for i := range 64 {
		name := fmt.Sprintf("h%d", i)
		switch {
		case i%10 == 9, i == 5, i == 25, i == 45, i == 33: // no peer, or above
		case i == 12 || i == 40:
			s.rx(100, name, sw(i, 1<<3|1<<4))
		default:
			s.rx(100, name, sw(i, 1<<3))
		}
	}
	for i := range 4 {
		for n := 58; n <= 60; n++ {
			s.counters(float64(70+n), roceSample(fmt.Sprintf("h%d", i), n))
		}
	}
	return s.tick(130).snap()
}
