// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/safchain/ethtool"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// A vlanPeer is a peer of TestLiveVLANEqualsReplay: its system name, the
// tags its LLDPDUs carry (TPID and TCI pairs, outermost first) and the
// vlan a snapshot gives it.
type vlanPeer struct {
	name string
	tags []uint16
	want *engine.VLANTag
}

// vlanPeers are four peers on one link: untagged, on the native VLAN
// (802.1Q VLAN 1, PCP 0), on a voice VLAN (100, PCP 5, DEI set) and
// behind an 802.1ad tag with an 802.1Q one inside (the outer kept).
var vlanPeers = []vlanPeer{
	{"untagged", nil, nil},
	{"native", []uint16{0x8100, 1}, &engine.VLANTag{ID: 1, PCP: 0}},
	{"voice", []uint16{0x8100, 5<<13 | 1<<12 | 100}, &engine.VLANTag{ID: 100, PCP: 5}},
	{"qinq", []uint16{0x88a8, 2<<13 | 10, 0x8100, 20}, &engine.VLANTag{ID: 10, PCP: 2}},
}

// vlanFrame is peer i's LLDPDU, from a MAC of its own, with its tags.
func vlanFrame(t *testing.T, i int, p vlanPeer) []byte {
	t.Helper()
	mac := lldp.MAC{0x02, 0, 0, 0, 0x0a, byte(i + 1)}
	du, err := agent.BuildDU(agent.Config{Ifname: "p0", MAC: mac, SystemName: p.name}, 120, agent.Advert{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, mac, du)
	if err != nil {
		t.Fatal(err)
	}
	b := slices.Clone(f[:12])
	for _, v := range p.tags {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	return append(b, f[12:]...)
}

// TestLiveVLANEqualsReplay: peers send LLDPDUs tagged with VLANs (the
// native VLAN, id 1 pcp 0, among them) to h0, captured live by dcbtop
// (-w) and by tcpdump: the live snapshot's peers carry their vlan, as
// the replays of tcpdump's capture and of dcbtop's recording do; the
// replay of the recording equals the live run, field for field; tshark
// reads each tag in the recording where it was on the wire. Twice: with
// h0 parsing tags itself (rx-vlan-hw-parse, the veth default) and
// without; either way the kernel takes the outer tag out of the frame
// and hands it to dcbtop's socket as PACKET_AUXDATA (TestLiveVLAN
// covers each way the kernel delivers a tag).
func TestLiveVLANEqualsReplay(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tshark")
	for _, parse := range []bool{true, false} {
		t.Run(fmt.Sprintf("rx-vlan-hw-parse %v", parse), func(t *testing.T) {
			t.Parallel()
			testVLANEqualsReplay(t, parse)
		})
	}
}

func testVLANEqualsReplay(t *testing.T, parse bool) {
	sw, host := testbed.NewNS(t, "vsw"), testbed.NewNS(t, "vhost")
	testbed.Veth(t, sw, "p0", host, "h0")
	host.Go(t, func() {
		e, err := ethtool.NewEthtool()
		if err != nil {
			t.Errorf("ethtool: %v", err)
			return
		}
		defer e.Close()
		if err := e.Change("h0", map[string]bool{"rx-vlan-hw-parse": parse, "rx-vlan-stag-hw-parse": parse}); err != nil {
			t.Errorf("ethtool -K h0 rx-vlan-hw-parse %v: %v", parse, err)
		}
	})
	dir := t.TempDir()
	rec, dump := filepath.Join(dir, "dcbtop.pcapng"), filepath.Join(dir, "tcpdump.pcap")
	stopDump := testbed.Tcpdump(t, host, "h0", dump)
	live := startDcbtop(t, host, "-i", "h0", "--json", "-w", rec)
	live.waitSocket(t, host, "h0")

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
	for range 3 {
		for i, p := range vlanPeers {
			if err := w.WriteFrame(vlanFrame(t, i, p)); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the last frames reach dcbtop and tcpdump
	live.stop(t)
	stopDump()

	liveIn := snaptest.Iface(t, live.snapshot(t), "h0")
	vlans := func(in engine.Interface) map[string]*engine.VLANTag {
		m := map[string]*engine.VLANTag{}
		for _, p := range in.Peers {
			if p.SystemName != nil {
				m[*p.SystemName] = p.VLAN
			}
		}
		return m
	}
	want := map[string]*engine.VLANTag{}
	for _, p := range vlanPeers {
		want[p.name] = p.want
	}
	if diff := cmp.Diff(want, vlans(liveIn)); diff != "" {
		t.Errorf("live: the peers' vlan (-want +got):\n%s", diff)
	}

	replay := func(path, ifname string) engine.Interface {
		t.Helper()
		code, out, errOut := runOut(t, dcbtopBin, "-r", path, "--json")
		if code != 0 {
			t.Fatalf("dcbtop -r %s: exit %d: %s", filepath.Base(path), code, errOut)
		}
		return snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r "+filepath.Base(path), out), ifname)
	}
	dumped, recorded := replay(dump, "pcap0"), replay(rec, "h0")
	// tcpdump's filter (ether proto 0x88cc) reads the EtherType of the
	// data the kernel gives, after the outer tag it took out: the
	// 802.1ad peer's, which then begin with the inner 802.1Q tag, are not
	// in its capture.
	dumpedPeers := slices.DeleteFunc(slices.Clone(liveIn.Peers), func(p engine.Peer) bool { return *p.SystemName == "qinq" })
	delete(want, "qinq")
	if diff := cmp.Diff(want, vlans(dumped)); diff != "" {
		t.Errorf("replay of tcpdump's capture: the peers' vlan (-want +got):\n%s", diff)
	}
	// The replay of dcbtop's recording is the live run, field for
	// field, but for the times and what counts down from them (the live
	// snapshot is taken when dcbtop stops, the replay's at the last
	// frame) and the capture socket's own statistics, which a recording
	// does not hold.
	opts := cmp.Options{
		cmpopts.IgnoreTypes(time.Time{}),
		cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(engine.Interface{}, "Capture"),
		cmpopts.IgnoreFields(engine.Peer{}, "ExpiresInMs"),
		cmpopts.IgnoreFields(engine.MultiPeer{}, "HoldDownMs"),
	}
	if diff := cmp.Diff(liveIn, recorded, opts); diff != "" {
		t.Errorf("the replay of dcbtop -w differs from the live run (-live +replay):\n%s", diff)
	}
	// tcpdump's pcap is of another interface ("pcap0", no link state):
	// its peers are the live run's.
	if diff := cmp.Diff(dumpedPeers, dumped.Peers, opts); diff != "" {
		t.Errorf("the peers of tcpdump's capture differ from the live run's (-live +replay):\n%s", diff)
	}

	// tshark, an independent decoder, reads each peer's tags in dcbtop's
	// recording.
	code, out, errOut := runOut(t, "tshark", "-r", rec, "-Y", "lldp", "-T", "fields",
		"-e", "frame.interface_name", "-e", "lldp.tlv.system.name", "-e", "ieee8021ad.id", "-e", "ieee8021ad.priority",
		"-e", "vlan.id", "-e", "vlan.priority", "-e", "vlan.dei")
	if code != 0 {
		t.Fatalf("tshark: exit %d: %s", code, errOut)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 7 || f[0] != "h0" {
			t.Errorf("tshark: line %q, want 7 fields of interface h0", l)
			continue
		}
		got[f[1]] = strings.Join(f[2:], " ")
	}
	// 802.1ad ID and priority, then 802.1Q ID, priority and DEI.
	wantTshark := map[string]string{"untagged": "    ", "native": "  1 0 0", "voice": "  100 5 1", "qinq": "10 2 20 0 0"}
	if diff := cmp.Diff(wantTshark, got); diff != "" {
		t.Errorf("tshark on dcbtop's recording: 802.1ad ID and priority, 802.1Q ID, priority and DEI, by peer (-want +got):\n%s", diff)
	}
}
