// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

// Integration tests of live mode: dcbtop runs as a real process (built by
// TestMain) in network namespaces, facing Debian's lldpd, tcpdump, tshark
// and itself (issue 4). Every test creates its own namespaces
// (testbed.NewNS) and runs in parallel with the others; lldpd sends every
// second with TTL 4 s and dcbtop's agent runs with --tx-interval 1s.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// What the lldpd "switch" sends: ETS Configuration (not willing, 8 TCs,
// priority 3 on TC3, TC0 and TC3 50% ETS, the rest strict) and PFC (not
// willing, cap 8, priority 3; after the change priorities 3 and 4).
var (
	swETS  = []byte{0x00, 0x00, 0x03, 0x00, 0x00, 50, 0, 0, 50, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 0}
	swPFC3 = []byte{0x08, 0x08}
	swPFC4 = []byte{0x08, 0x10}
	swPFC2 = []byte{0x08, 0x18}

	swParamsETS = &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 3}, TCBandwidth: [8]uint8{50, 0, 0, 50},
		TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict}}
)

func swTLVs(pfc []byte) []testbed.UnknownTLV {
	return []testbed.UnknownTLV{{OUI: testbed.OUI8021, Subtype: 9, Value: swETS}, {OUI: testbed.OUI8021, Subtype: 11, Value: pfc}}
}

func swParams(pfc dcb.PrioSet) *dcb.Params {
	e := *swParamsETS
	return &dcb.Params{ETS: &e, PFC: &dcb.PFC{Cap: 8, Enabled: pfc}}
}

const (
	fETS      = engine.FlagETSConfigured | engine.FlagETSChanged
	fPFC      = engine.FlagPFCConfigured | engine.FlagPFCChanged
	fInvalid  = engine.FlagETSChanged | engine.FlagPFCChanged
	fPFCOnly  = engine.FlagETSConfigured | engine.FlagPFCConfigured | engine.FlagPFCChanged
	fReceived = fETS | fPFC
)

func checkParams(t testing.TB, what string, got, want *dcb.Params) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: params (-want +got):\n%s", what, diff)
	}
}

// TestLiveEventsLLDPD follows one lldpd "switch" through its life with
// dcbtop -i h0 --events -w FILE: first receipt, a change made with
// lldpcli, shutdown, restart, and link-down at once when the link is cut
// on the switch side. The recording then replays to the same NDJSON lines,
// but for the link-down, which a capture file cannot hold: its replay sees
// the peer's TTL run out instead.
func TestLiveEventsLLDPD(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	swMAC, _ := testbed.Veth(t, sw, "p0", host, "h0")
	rec := filepath.Join(t.TempDir(), "live.pcapng")

	d := startDcbtop(t, host, "-i", "h0", "--events", "-w", rec)
	d.waitSocket(t, host, "h0")
	opts := testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)}
	l := testbed.StartLLDPD(t, sw, "p0", opts)

	in := d.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	checkParams(t, "first receipt", in.Params, swParams(1<<3))
	peer := in.Peer
	if want := "mac " + swMAC.String(); !strings.HasPrefix(peer, want) {
		t.Errorf("peer %q, want the switch's chassis %q", peer, want)
	}

	if err := l.ReplaceTLV(testbed.OUI8021, 11, swPFC2); err != nil {
		t.Fatal(err)
	}
	in = d.expect(t, 5*time.Second, engine.ReasonChanged, fPFCOnly)
	checkParams(t, "change", in.Params, swParams(1<<3|1<<4))

	l.Stop()
	in = d.expect(t, 5*time.Second, engine.ReasonShutdown, fInvalid)
	if in.Params != nil {
		t.Errorf("shutdown: params %+v, want null", in.Params)
	}

	l = testbed.StartLLDPD(t, sw, "p0", opts)
	in = d.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	checkParams(t, "first receipt after restart", in.Params, swParams(1<<3))
	if in.Peer != peer {
		t.Errorf("restarted lldpd is peer %q, want %q again", in.Peer, peer)
	}

	// The switch's end goes down: h0 loses its carrier, and its peer's
	// information is discarded at once (802.1AB-2016 9.2.9), not when the
	// TTL runs out.
	// (The reason says so: an expiry would be ttl-expired.)
	testbed.SetLink(t, sw, "p0", false)
	down := d.expect(t, 10*time.Second, engine.ReasonLinkDown, fInvalid)
	if down.Params != nil {
		t.Errorf("link-down: params %+v, want null", down.Params)
	}
	// The link back after the peer's TTL: lldpd's next LLDPDU is a first
	// receipt again. (It also puts a frame after the TTL into the
	// recording, so the replay, whose clock only frames advance, reaches
	// the peer's expiry.)
	time.Sleep(testbed.LLDPDTTL * time.Second)
	testbed.SetLink(t, sw, "p0", true)
	in = d.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	checkParams(t, "first receipt after the link came back", in.Params, swParams(1<<3))
	d.stop(t)
	l.Stop()
	live := d.stdoutLines()

	// The recording: every frame incoming, from the switch.
	src, err := pcap.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := 0
	for {
		f, err := src.ReadFrame(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("recording: %v", err)
		}
		n++
		if f.Interface != "h0" || f.Dir != capture.DirectionIncoming || !bytes.Equal(f.Data[6:12], swMAC) {
			t.Errorf("recorded frame %d: interface %q, direction %v, source %x; want h0, incoming, %s", n, f.Interface, f.Dir, f.Data[6:12], swMAC)
		}
	}

	code, out, errOut := runOut(t, dcbtopBin, "-r", rec, "--events")
	if code != 0 || errOut != "" {
		t.Fatalf("replay of the recording: exit %d, stderr %q", code, errOut)
	}
	replayed := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// The NDIS indications; the LLDP neighbour events beside them (the
	// peer appeared, left) are the TUI log's and are checked elsewhere.
	ndis := func(lines []string) []string {
		return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.Contains(l, `"status":"LLDP_NEIGHBOR_CHANGE"`) })
	}
	live, replayed = ndis(live), ndis(replayed)
	if len(live) != 6 || len(replayed) != 6 {
		t.Fatalf("live run printed %d lines, its replay %d, want 6 each:\n%s\n--\n%s", len(live), len(replayed),
			strings.Join(live, "\n"), strings.Join(replayed, "\n"))
	}
	// The recording holds the link change too (a host record): where the
	// live run said link-down, so does its replay, at the same time.
	var liveDown, replayDown engine.Indication
	if err := json.Unmarshal([]byte(live[4]), &liveDown); err != nil || liveDown.Reason != engine.ReasonLinkDown {
		t.Errorf("live line 5 %s (%v), want link-down", live[4], err)
	}
	if err := json.Unmarshal([]byte(replayed[4]), &replayDown); err != nil || replayDown.Reason != engine.ReasonLinkDown {
		t.Errorf("replayed line 5 %s (%v), want link-down as live", replayed[4], err)
	}
	if !replayDown.Time.Equal(liveDown.Time) {
		t.Errorf("the replay's link-down at %v, live at %v", replayDown.Time, liveDown.Time)
	}
	live[4], replayed[4] = "", ""
	// The live lines name this host, a replay's none; the event IDs are
	// the same (the same events).
	hostname, _ := os.Hostname()
	for i := range live {
		live[i] = strings.Replace(live[i], `,"host":`+strconv.Quote(hostname), "", 1)
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Errorf("replay of -w recording differs from the live run (-live +replay):\n%s", diff)
	}
}

// multiPeerLink makes a host port h0 bridged (br0 in namespace sw) with
// two peers' ports: a0 in namespace pa and b0 in pb.
func multiPeerLink(t *testing.T) (sw, host, pa, pb *testbed.NS) {
	t.Helper()
	sw, host = testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	pa, pb = testbed.NewNS(t, "peera"), testbed.NewNS(t, "peerb")
	testbed.Veth(t, sw, "p0", host, "h0")
	testbed.Veth(t, pa, "a0", sw, "pa")
	testbed.Veth(t, pb, "b0", sw, "pb")
	testbed.Bridge(t, sw, "br0", "p0", "pa", "pb")
	return sw, host, pa, pb
}

// TestLiveMultiPeer puts two lldpd behind a bridge: the second one makes a
// multi-peer condition; once it is cut off and every tainted TTL has run
// out, the first one's next LLDPDU is a first receipt again.
func TestLiveMultiPeer(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host, pa, pb := multiPeerLink(t)

	d := startDcbtop(t, host, "-i", "h0", "--events")
	d.waitSocket(t, host, "h0")
	testbed.StartLLDPD(t, pa, "a0", testbed.LLDPDOpts{Hostname: "swA", TLVs: swTLVs(swPFC3)})
	first := d.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	checkParams(t, "first receipt", first.Params, swParams(1<<3))

	testbed.StartLLDPD(t, pb, "b0", testbed.LLDPDOpts{Hostname: "swB", TLVs: swTLVs(swPFC4)})
	multi := d.expect(t, 10*time.Second, engine.ReasonMultiPeer, fInvalid)
	if multi.Params != nil {
		t.Errorf("multi-peer: params %+v, want null", multi.Params)
	}

	cut := time.Now()
	testbed.SetLink(t, sw, "pb", false)
	// B's information expires 3-4 s after the cut; A's LLDPDUs received
	// until then stay tainted for another 4 s; A's next LLDPDU after that
	// is a first receipt.
	again := d.expect(t, 15*time.Second, engine.ReasonFirstReceipt, fReceived)
	checkParams(t, "first receipt after the hold-down", again.Params, swParams(1<<3))
	if again.Peer != first.Peer {
		t.Errorf("first receipt from %q, want the first peer %q", again.Peer, first.Peer)
	}
	if dt := again.Time.Sub(cut); dt < 5*time.Second || dt > 11*time.Second {
		t.Errorf("first receipt %v after the cut, want about 7-9 s (B's TTL, then A's tainted TTL)", dt)
	}
	d.stop(t)
	// Three NDIS indications; beside them the LLDP neighbour events say
	// how the multi-peer condition came and went: B appeared, the
	// hold-down started, B's information expired, the hold-down ended.
	var ndisN int
	var neigh []string
	for _, l := range d.stdoutLines() {
		var in engine.Indication
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatalf("not an indication: %q", l)
		}
		if in.Status != engine.StatusNeighbor {
			ndisN++
			continue
		}
		neigh = append(neigh, string(in.Reason)+" "+in.PeerName)
	}
	if want := []string{"peer-new swA", "peer-new swB", "multi-peer swB", "ttl-expired swB", "hold-down-end "}; ndisN != 3 || !cmp.Equal(want, neigh) {
		t.Errorf("%d NDIS indications (want 3), neighbour events %q (want %q):\n%s", ndisN, neigh, want, d.stdout())
	}
}

// The agent's PARAMS in TestLiveAgentLLDPD and what they look like on the
// wire (IEEE Std 802.1Q-2018 D.2.9-D.2.12).
const agentParams = `{
  "ets": {"prio_tc": [0,0,0,1,0,0,0,0], "tc_bandwidth": [50,50,0,0,0,0,0,0],
          "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "pfc": {"cap": 8, "enabled": [3]},
  "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3},
          {"selector": "dscp", "protocol": 26, "priority": 3}]
}`

var agentTLVs = []testbed.UnknownTLV{
	{OUI: testbed.OUI8021, Subtype: 9, Value: []byte{0x00, 0x00, 0x01, 0x00, 0x00, 50, 50, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0}},
	{OUI: testbed.OUI8021, Subtype: 10, Value: []byte{0x00, 0x00, 0x01, 0x00, 0x00, 50, 50, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0}},
	{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}},
	{OUI: testbed.OUI8021, Subtype: 12, Value: []byte{0x00, 3<<5 | 3, 0x12, 0xb7, 3<<5 | 5, 0x00, 26}},
}

// TestLiveAgentLLDPD runs dcbtop as the host DCBX agent with lldpd on the
// far end: lldpd learns dcbtop's chassis, port and 802.1Qaz TLVs byte for
// byte, tshark decodes them from a capture, and SIGINT sends a shutdown
// LLDPDU that makes lldpd drop the neighbour.
func TestLiveAgentLLDPD(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, hostMAC, l, pcap, stopDump := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1"})
	local := testbed.WriteFile(t, "local.json", agentParams)

	d := startDcbtop(t, host, "--agent", "--local", local, "--willing", "off", "--tx-interval", "1s", "-i", "h0", "--events")
	isDcbtop := chassisIs(hostMAC)
	nbrs := l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool { return slices.ContainsFunc(ns, isDcbtop) })
	n := nbrs[slices.IndexFunc(nbrs, isDcbtop)]
	if n.ChassisIDType != "mac" || n.PortIDType != "ifname" || n.PortID != "h0" || n.TTL != 5 {
		t.Errorf("lldpd sees chassis %s %s, port %s %s, TTL %d; want mac %s, ifname h0, TTL 5 (4 x 1 s + 1)",
			n.ChassisIDType, n.ChassisID, n.PortIDType, n.PortID, n.TTL, hostMAC)
	}
	if want := "dcbtop " + version + " host DCBX agent"; n.SysDescr != want {
		t.Errorf("system description %q, want %q", n.SysDescr, want)
	}
	if diff := cmp.Diff(agentTLVs, n.UnknownTLVs); diff != "" {
		t.Errorf("802.1Qaz TLVs lldpd received (-want +got):\n%s", diff)
	}

	testbed.WaitPcap(t, pcap, 10*time.Second, func(f []testbed.PcapFrame) bool { return len(testbed.FramesFrom(f, hostMAC)) >= 2 })
	d.stop(t)
	testbed.WaitPcap(t, pcap, 5*time.Second, func(fs []testbed.PcapFrame) bool {
		f := testbed.FramesFrom(fs, hostMAC)
		ttl, ok := f[len(f)-1].TTL()
		return ok && ttl == 0
	})
	// Dropped at once, not aged out (TTL 5 s after the last LLDPDU).
	l.WaitNeighbors(3*time.Second, func(ns []testbed.Neighbor) bool { return !slices.ContainsFunc(ns, isDcbtop) })
	stopDump()

	wantETS := testbed.TsharkETS{PrioTC: [8]int{0, 0, 0, 1}, BW: [8]int{50, 50}, TSA: [8]int{2, 2}}
	var frames []testbed.TsharkFrame
	for _, f := range testbed.TsharkLLDP(t, pcap) {
		if f.Src.String() == hostMAC.String() {
			frames = append(frames, f)
		}
	}
	if len(frames) < 3 {
		t.Fatalf("tshark decoded %d frames from dcbtop, want at least 3", len(frames))
	}
	for i, f := range frames[:len(frames)-1] {
		if ttl, _ := f.TTL(); ttl != 5 {
			t.Errorf("frame %d: TTL %d, want 5", i, ttl)
		}
		if got, err := f.ETSConfig(); err != nil || got != wantETS {
			t.Errorf("frame %d: ETS Configuration %+v (%v), want %+v (willing 0)", i, got, err, wantETS)
		}
		if got, err := f.ETSReco(); err != nil || got != wantETS {
			t.Errorf("frame %d: ETS Recommendation %+v (%v), want %+v", i, got, err, wantETS)
		}
		if got, err := f.PFC(); err != nil || got != (testbed.TsharkPFC{Cap: 8, Enabled: [8]bool{3: true}}) {
			t.Errorf("frame %d: PFC %+v (%v), want cap 8, priority 3, willing 0", i, got, err)
		}
		wantApp := []testbed.TsharkApp{{Prio: 3, Sel: 3, Proto: 4791}, {Prio: 3, Sel: 5, Proto: 26}}
		if got, err := f.App(); err != nil || !slices.Equal(got, wantApp) {
			t.Errorf("frame %d: APP %+v (%v), want %+v", i, got, err, wantApp)
		}
	}
	shut := frames[len(frames)-1]
	if ttl, ok := shut.TTL(); !ok || ttl != 0 || len(shut.TLVs) != 4 {
		t.Errorf("last frame: TTL %d, %d TLVs; want a shutdown LLDPDU (chassis, port, TTL 0, end)", ttl, len(shut.TLVs))
	}
	// What dcbtop printed: its local parameters, and nothing about lldpd
	// (which sends no DCBX TLVs).
	if out := d.stdout(); !strings.Contains(out, `"QOS_LOCAL_PARAMETERS_CHANGE"`) || strings.Contains(out, "QOS_REMOTE") {
		t.Errorf("--events output:\n%s", out)
	}
}

// TestLiveAgentsWilling faces two dcbtop agents, both willing with
// different PFC: the lower MAC adopts the peer's PFC, the higher keeps
// its own (IEEE 802.1Qaz tie-break), and both report it.
func TestLiveAgentsWilling(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	// The agents meet through a bridge in a third namespace so that, before
	// they stop, the bridge can be taken down without touching their
	// links: neither then receives the other's shutdown LLDPDU before it
	// prints its snapshot.
	a, b, m := testbed.NewNS(t, "a"), testbed.NewNS(t, "b"), testbed.NewNS(t, "mid")
	testbed.Veth(t, a, "a0", m, "ma")
	testbed.Veth(t, b, "b0", m, "mb")
	macA, macB := net.HardwareAddr{2, 0, 0, 0, 0, 0x0a}, net.HardwareAddr{2, 0, 0, 0, 0, 0x0b}
	testbed.SetMAC(t, a, "a0", macA)
	testbed.SetMAC(t, b, "b0", macB)
	testbed.Bridge(t, m, "br0", "ma", "mb")
	localA := testbed.WriteFile(t, "a.json", `{"pfc": {"cap": 8, "enabled": [3]}}`)
	localB := testbed.WriteFile(t, "b.json", `{"pfc": {"cap": 8, "enabled": [4]}}`)

	start := time.Now()
	da := startDcbtop(t, a, "--agent", "-i", "a0", "--local", localA, "--willing", "on", "--tx-interval", "1s", "--json", "--duration", "8s")
	db := startDcbtop(t, b, "--agent", "-i", "b0", "--local", localB, "--willing", "on", "--tx-interval", "1s", "--json", "--duration", "8s")
	time.Sleep(time.Until(start.Add(6 * time.Second)))
	testbed.SetLink(t, m, "br0", false)
	for _, d := range []*proc{da, db} {
		if code := d.wait(15 * time.Second); code != 0 {
			t.Fatalf("%s: exit %d: %s", d.name, code, d.stderrText())
		}
	}

	for _, c := range []struct {
		d         *proc
		name      string
		mac       net.HardwareAddr
		local     dcb.PrioSet
		source    dcb.Source
		remotePFC dcb.PrioSet
	}{
		{da, "a0", macA, 1 << 3, dcb.FromRemote, 1 << 4},
		{db, "b0", macB, 1 << 4, dcb.FromLocal, 1 << 4},
	} {
		in := snaptest.Iface(t, c.d.snapshot(t), c.name)
		if in.MAC == nil || in.MAC.String() != c.mac.String() || in.LocalSource != "agent" || in.Willing == nil || !*in.Willing {
			t.Errorf("%s: mac %v, local source %q, willing %v", c.name, in.MAC, in.LocalSource, in.Willing)
		}
		if !in.RemoteValid || in.Remote == nil || in.Remote.PFC == nil || !in.Remote.PFC.Willing || in.Remote.PFC.Enabled != c.remotePFC {
			t.Fatalf("%s: remote valid %v, remote %+v; want the peer's willing PFC %v", c.name, in.RemoteValid, in.Remote, c.remotePFC.List())
		}
		if in.Local == nil || in.Local.PFC == nil || in.Local.PFC.Enabled != c.local {
			t.Errorf("%s: local %+v", c.name, in.Local)
		}
		if in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != 1<<4 {
			t.Errorf("%s: operational %+v, want PFC on priority 4", c.name, in.Operational)
		}
		if in.Resolution.PFC.Source != c.source {
			t.Errorf("%s: resolution.pfc %+v, want source %q", c.name, in.Resolution.PFC, c.source)
		}
		if !hasDiag(in, diag.CodeBothWilling) {
			t.Errorf("%s: no %s diagnostic: %+v", c.name, diag.CodeBothWilling, in.Diagnostics)
		}
	}
}

// TestLiveInterfaceRecreated deletes and re-creates the captured
// interface, then takes it down and up, under a running dcbtop: each time
// the peer comes back as a first receipt, and the capture recovers.
func TestLiveInterfaceRecreated(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	opts := testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)}

	ev := startDcbtop(t, host, "-i", "h0", "--events")
	during := startDcbtop(t, host, "-i", "h0", "--json") // stopped while h0 is gone
	after := startDcbtop(t, host, "-i", "h0", "--json")  // stopped at the end
	for _, d := range []*proc{ev, during, after} {
		d.waitSocket(t, host, "h0")
	}
	l := testbed.StartLLDPD(t, sw, "p0", opts)
	ev.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)

	testbed.DelLink(t, host, "h0")
	l.Stop()
	ev.expect(t, 10*time.Second, engine.ReasonLinkDown, fInvalid)
	time.Sleep(1500 * time.Millisecond) // a tick for the others
	during.stop(t)
	in := snaptest.Iface(t, during.snapshot(t), "h0")
	if in.OperState != "removed" || !hasDiag(in, diag.CodeCaptureError) || in.RemoteValid {
		t.Errorf("while h0 is deleted: oper_state %q, remote valid %v, diagnostics %+v; want removed, a capture-error, invalid",
			in.OperState, in.RemoteValid, in.Diagnostics)
	}

	_, hostMAC := testbed.Veth(t, sw, "p0", host, "h0")
	idx := ifindex(t, host, "h0")
	testbed.StartLLDPD(t, sw, "p0", opts)
	ev.expect(t, 15*time.Second, engine.ReasonFirstReceipt, fReceived)

	testbed.SetLink(t, host, "h0", false)
	ev.expect(t, 10*time.Second, engine.ReasonLinkDown, fInvalid)
	testbed.SetLink(t, host, "h0", true)
	ev.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	ev.stop(t)

	time.Sleep(1500 * time.Millisecond)
	after.stop(t)
	in = snaptest.Iface(t, after.snapshot(t), "h0")
	if in.OperState != "up" || hasDiag(in, diag.CodeCaptureError) || !in.RemoteValid {
		t.Errorf("after: oper_state %q, remote valid %v, diagnostics %+v; want up, no capture-error, valid", in.OperState, in.RemoteValid, in.Diagnostics)
	}
	if in.Ifindex == nil || fmt.Sprint(*in.Ifindex) != idx || in.MAC == nil || in.MAC.String() != hostMAC.String() {
		t.Errorf("after: ifindex %v, mac %v; want the new h0's %s, %s", in.Ifindex, in.MAC, idx, hostMAC)
	}
}

// TestLiveNonLLDPFlood blasts 500 frames that are not LLDP at h0 among 5
// LLDPDUs: dcbtop counts only the LLDPDUs.
func TestLiveNonLLDPFlood(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	swMAC, hostMAC := testbed.Veth(t, sw, "p0", host, "h0")
	d := startDcbtop(t, host, "-i", "h0", "--json")
	d.waitSocket(t, host, "h0")

	var w *capture.Live
	sw.Go(t, func() {
		var err error
		if w, err = capture.OpenLive("p0"); err != nil {
			t.Errorf("open p0: %v", err)
		}
	})
	if w == nil {
		t.FailNow()
	}
	defer w.Close()
	du, err := agent.BuildDU(agent.Config{Ifname: "p0", MAC: lldp.MAC(swMAC), SystemName: "flood"}, 120, agent.Advert{})
	if err != nil {
		t.Fatal(err)
	}
	lldpFrame, err := lldp.AppendFrame(nil, lldp.NearestBridge, lldp.MAC(swMAC), du)
	if err != nil {
		t.Fatal(err)
	}
	nonLLDP := func(i int) []byte {
		f := make([]byte, 60)
		copy(f[6:12], swMAC)
		switch i % 5 {
		case 0: // IPv4 to h0
			copy(f[0:6], hostMAC)
			f[12], f[13], f[14] = 0x08, 0x00, 0x45
		case 1: // another EtherType to the LLDP group address
			copy(f[0:6], lldp.NearestBridge[:])
			f[12], f[13] = 0x88, 0xb5
		case 2: // ARP, broadcast
			copy(f[0:6], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			f[12], f[13] = 0x08, 0x06
		case 3: // one off 0x88cc, to the LLDP group address
			copy(f[0:6], lldp.NearestBridge[:])
			f[12], f[13] = 0x88, 0xcd
		case 4: // 802.3 length field with an LLC header (STP-like)
			copy(f[0:6], []byte{0x01, 0x80, 0xc2, 0, 0, 0})
			f[12], f[13], f[14], f[15], f[16] = 0x00, 0x26, 0x42, 0x42, 0x03
		}
		f[20] = byte(i)
		return f
	}
	sent := 0
	for i := range 500 {
		if i%100 == 50 {
			if err := w.WriteFrame(lldpFrame); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		if err := w.WriteFrame(nonLLDP(i)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	time.Sleep(time.Second) // let dcbtop take them all in before it stops
	d.stop(t)
	in := snaptest.Iface(t, d.snapshot(t), "h0")
	want := engine.CaptureCounters{FramesIn: uint64(sent), Unchanged: uint64(sent - 1)}
	if in.Capture != want {
		t.Errorf("counters %+v, want %+v", in.Capture, want)
	}
	if len(in.Peers) != 1 || in.Peers[0].Frames != uint64(sent) {
		t.Errorf("peers %+v, want one with %d frames", in.Peers, sent)
	}
}

// TestLiveErrors checks the one-line errors of live mode: no privilege,
// an unknown interface, and --agent next to a running lldpd.
func TestLiveErrors(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	ip := ipPath(t)

	t.Run("unprivileged", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "dcbtop-unpriv-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		bin := filepath.Join(dir, "dcbtop")
		b, err := os.ReadFile(dcbtopBin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runOut(t, ip, "netns", "exec", host.Name, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-i", "h0", "--events")
		if want := "dcbtop: h0: open packet socket: permission denied (run as root or grant CAP_NET_RAW)\n"; code != 1 || out != "" || errOut != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, want)
		}
	})

	t.Run("unknown interface", func(t *testing.T) {
		code, out, errOut := runOut(t, ip, "netns", "exec", host.Name, dcbtopBin, "-i", "nosuch0", "--events")
		if want := "dcbtop: nosuch0: no such interface (available: h0, lo)\n"; code != 1 || out != "" || errOut != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, want)
		}
	})

	t.Run("agent beside lldpd", func(t *testing.T) {
		l := testbed.StartLLDPD(t, host, "h0", testbed.LLDPDOpts{})
		code, out, errOut := runOut(t, ip, "netns", "exec", host.Name, dcbtopBin, "--agent", "-i", "h0", "--tx-interval", "1s", "--events")
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 ||
			!strings.HasPrefix(errOut, "dcbtop: h0: another LLDP agent runs in this network namespace: ") ||
			!strings.Contains(errOut, fmt.Sprintf("lldpd (pid %d)", l.Pid)) || !strings.HasSuffix(errOut, "; stop it, or use --force\n") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1 and one line naming lldpd (pid %d)", code, out, errOut, l.Pid)
		}
		// Only this namespace's lldpd are named (other tests run theirs).
		pids, err := host.Run("ip", "netns", "pids", host.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Split(errOut, "(pid ")[1:] {
			pid, _, _ := strings.Cut(f, ")")
			if !slices.Contains(strings.Fields(pids), pid) {
				t.Errorf("pid %s named, but it is not in %s", pid, host.Name)
			}
		}

		code, out, errOut = runOut(t, ip, "netns", "exec", host.Name, dcbtopBin, "--agent", "--force", "-i", "h0", "--tx-interval", "1s", "--json", "--duration", "2s")
		if code != 0 || errOut != "" {
			t.Fatalf("--force: exit %d, stderr %q", code, errOut)
		}
		if in := snaptest.Iface(t, snaptest.Decode(t, "dcbtop --force", out), "h0"); in.LocalSource != "agent" || in.Capture.FramesSent == 0 {
			t.Errorf("--force: local source %q, %d frames sent; want the agent transmitting", in.LocalSource, in.Capture.FramesSent)
		}
	})
}

// TestLiveSIGINT ends dcbtop with SIGINT in every headless output mode
// (and once with SIGTERM): exit status 0, nothing on stderr (but the
// notice when stdout is not a terminal), and --json prints a valid
// snapshot.
func TestLiveSIGINT(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	events := startDcbtop(t, host, "-i", "h0", "--events")
	js := startDcbtop(t, host, "-i", "h0", "--json")
	// No -i: every up Ethernet interface of the namespace, h0; no --json
	// or --events and stdout is a pipe: NDJSON, with a notice on stderr.
	text := startDcbtop(t, host)
	term := startDcbtop(t, host, "-i", "h0", "--events")
	for _, d := range []*proc{events, js, text, term} {
		d.waitSocket(t, host, "h0")
	}
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{TLVs: swTLVs(swPFC3)})
	events.expect(t, 10*time.Second, engine.ReasonFirstReceipt, fReceived)
	term.expect(t, 5*time.Second, engine.ReasonFirstReceipt, fReceived)
	text.expect(t, 5*time.Second, engine.ReasonFirstReceipt, fReceived)
	time.Sleep(500 * time.Millisecond)

	for _, d := range []*proc{events, js, text} {
		d.signal(syscall.SIGINT)
	}
	term.signal(syscall.SIGTERM)
	for _, d := range []*proc{events, js, text, term} {
		want := ""
		if d == text {
			want = notTTYNotice
		}
		if code := d.wait(10 * time.Second); code != 0 || d.stderrText() != want {
			t.Errorf("%s: exit %d, stderr %q; want 0, %q", d.name, code, d.stderrText(), want)
		}
	}
	in := snaptest.Iface(t, js.snapshot(t), "h0")
	if !in.RemoteValid || in.OperState != "up" || len(in.Peers) != 1 {
		t.Errorf("--json snapshot: remote valid %v, oper_state %q, %d peers", in.RemoteValid, in.OperState, len(in.Peers))
	}
	checkParams(t, "--json remote", in.Remote, swParams(1<<3))
}

// TestLiveAgentFollowsLink checks the agent across link changes: a
// transmit error while the link is down is no longer reported once frames
// go out again, and a new MAC address becomes the agent's chassis ID at
// once (the old MSAP withdrawn with a shutdown LLDPDU, not left to age
// out at the peer).
func TestLiveAgentFollowsLink(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	_, oldMAC := testbed.Veth(t, sw, "p0", host, "h0")
	l := testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)})
	d := startDcbtop(t, host, "--agent", "-i", "h0", "--tx-interval", "1s", "--json")
	chassis := func(mac net.HardwareAddr) func(n testbed.Neighbor) bool {
		return func(n testbed.Neighbor) bool { return n.ChassisID == mac.String() }
	}
	l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool { return slices.ContainsFunc(ns, chassis(oldMAC)) })

	testbed.SetLink(t, host, "h0", false)
	time.Sleep(2500 * time.Millisecond) // transmissions fail meanwhile
	testbed.SetLink(t, host, "h0", true)

	newMAC := net.HardwareAddr{2, 0, 0, 0, 0, 0x42}
	testbed.SetMAC(t, host, "h0", newMAC)
	l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool {
		return slices.ContainsFunc(ns, chassis(newMAC)) && !slices.ContainsFunc(ns, chassis(oldMAC))
	})
	// lldpd counts how a neighbour left: deleted by a shutdown LLDPDU, or
	// aged out when its TTL ran out.
	if st, err := l.Stats("p0"); err != nil || st.Deleted < 1 || st.AgedOut != 0 {
		t.Errorf("lldpd's statistics of p0: %+v (%v), want the old MSAP deleted by a shutdown LLDPDU, never aged out", st, err)
	}
	time.Sleep(1500 * time.Millisecond)
	d.stop(t)

	in := snaptest.Iface(t, d.snapshot(t), "h0")
	if in.OperState != "up" || hasDiag(in, diag.CodeCaptureError) || in.MAC == nil || in.MAC.String() != newMAC.String() {
		t.Errorf("oper_state %q, mac %v, diagnostics %+v; want up, %s, no capture-error", in.OperState, in.MAC, in.Diagnostics, newMAC)
	}
	if !in.RemoteValid || in.Capture.FramesSent < 5 {
		t.Errorf("remote valid %v, %d frames sent", in.RemoteValid, in.Capture.FramesSent)
	}
	// --willing defaults to on, and the local parameters say so.
	if in.Willing == nil || !*in.Willing || in.Local == nil || in.Local.ETS == nil || !in.Local.ETS.Willing || in.Local.PFC == nil || !in.Local.PFC.Willing {
		t.Errorf("willing %v, local %+v: want willing everywhere", in.Willing, in.Local)
	}
}
