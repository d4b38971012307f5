// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/verdict"
	"github.com/dcbtop/dcbtop/testbed"
)

// A timedFrame is a checkFrame sent at an offset into the capture.
type timedFrame struct {
	at time.Duration
	f  checkFrame
}

// sendEvery is f at start, then every interval up to end.
func sendEvery(f checkFrame, start, interval, end time.Duration) []timedFrame {
	var out []timedFrame
	for at := start; at <= end; at += interval {
		out = append(out, timedFrame{at, f})
	}
	return out
}

// classicPcap writes the frames of each speaker, merged in time order,
// to a classic pcap file, which says nothing of their direction (what
// "tcpdump -i eth0 -w" writes), and returns its path.
func classicPcap(t *testing.T, speakers ...[]timedFrame) string {
	t.Helper()
	var all []timedFrame
	for _, s := range speakers {
		all = append(all, s...)
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].at < all[j-1].at; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	frames := make([]testbed.PcapFrame, len(all))
	for i, tf := range all {
		frames[i] = testbed.PcapFrame{Time: t0.Add(tf.at), Data: lldpFrame(t, tf.f)}
	}
	return testbed.WritePcap(t, "eth0.pcap", testbed.LinkTypeEthernet, frames)
}

// replayEnds runs dcbtop -r FILE --json and returns its one interface's
// capture_ends, multi_peer and remote_valid, as JSON values.
func replayEnds(t *testing.T, args ...string) (ends map[string]any, multiPeer any, remoteValid bool) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("dcbtop %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var snap struct {
		Interfaces []struct {
			CaptureEnds map[string]any `json:"capture_ends"`
			MultiPeer   any            `json:"multi_peer"`
			RemoteValid bool           `json:"remote_valid"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal([]byte(out), &snap); err != nil || len(snap.Interfaces) != 1 {
		t.Fatalf("dcbtop %s: %v: %s", strings.Join(args, " "), err, out)
	}
	in := snap.Interfaces[0]
	return in.CaptureEnds, in.MultiPeer, in.RemoteValid
}

// peerResult is the dcbx-peer result of a check report's one interface.
func peerResult(t *testing.T, r check.Report) verdict.Result {
	t.Helper()
	if len(r.Interfaces) != 1 || len(r.Interfaces[0].Results) == 0 || r.Interfaces[0].Results[0].Check != verdict.CheckPeer {
		t.Fatalf("report %+v", r)
	}
	return r.Interfaces[0].Results[0]
}

// TestCheckReplayTwoSwitches: a classic pcap of two switches (each its
// own MAC, neither willing, both bridges, neither this host) says
// nothing of which is this host: dcbtop -r says so (capture_ends
// ambiguous, both readings) and dcbtop check -r's dcbx-peer is UNKNOWN,
// never OK, naming both readings and both --local-mac choices (7737732:
// "OK dcbx-peer a valid DCBX peer (ieee)", the first to send taken as
// this host). --local-mac chooses.
func TestCheckReplayTwoSwitches(t *testing.T) {
	bridge := &lldp.SystemCapabilities{Capabilities: lldp.CapBridge | lldp.CapRouter, Enabled: lldp.CapBridge}
	leaf1 := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{bridge, ets5050, reco5050, pfcOn3, roceApp}}
	leaf2 := checkFrame{src: switch2, name: "leaf2", tlvs: []lldp.TLV{bridge, ets5050, reco5050, pfcOn3, roceApp}}
	pcap := classicPcap(t, sendEvery(leaf1, 0, 30*time.Second, 2*time.Minute), sendEvery(leaf2, time.Second, 30*time.Second, 2*time.Minute))

	ends, _, remoteValid := replayEnds(t, "-r", pcap)
	want := map[string]any{"ambiguous": true, "local_mac": nil, "peer_mac": nil, "rule": "ambiguous: no evidence which end is this host (no --local-mac; System Capabilities, this host's addresses and Willing do not tell)",
		"readings": []any{map[string]any{"local_mac": switchMAC.String(), "peer_mac": switch2.String()}, map[string]any{"local_mac": switch2.String(), "peer_mac": switchMAC.String()}}}
	if diff := cmp.Diff(want, ends); diff != "" || remoteValid {
		t.Errorf("capture_ends (-want +got):\n%s\nremote valid %v: want false (read as two peers)", diff, remoteValid)
	}

	_, r := checkJSON(t, "-r", pcap)
	res := peerResult(t, r)
	if res.Verdict != verdict.Unknown {
		t.Errorf("dcbx-peer %s %q: want UNKNOWN", res.Verdict, res.Summary)
	}
	ev := strings.Join(res.Evidence, "\n")
	for _, s := range []string{"this host " + switchMAC.String() + ", the peer " + switch2.String(), "this host " + switch2.String() + ", the peer " + switchMAC.String()} {
		if !strings.Contains(ev, s) {
			t.Errorf("dcbx-peer's evidence lacks the reading %q:\n%s", s, ev)
		}
	}
	if !strings.Contains(res.Fix, "--local-mac "+switchMAC.String()) || !strings.Contains(res.Fix, "--local-mac "+switch2.String()) {
		t.Errorf("dcbx-peer's fix %q: want both --local-mac choices", res.Fix)
	}

	_, r = checkJSON(t, "-r", pcap, "--local-mac", switch2.String())
	if res := peerResult(t, r); res.Verdict != verdict.OK {
		t.Errorf("--local-mac %s: dcbx-peer %s %q, want OK", switch2, res.Verdict, res.Summary)
	}
}

// TestReplayLateAgent: a tcpdump of a port whose host agent starts
// sending five TTLs after the switch: the two are the ends of one link,
// decided over the whole capture (7737732 scanned the first TTL window
// only: "CRITICAL 2 DCBX peers", and --local-mac of the late agent was
// refused: "the capture has no link with two ends to choose from").
func TestReplayLateAgent(t *testing.T) {
	leaf1 := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcOn3, roceApp}}
	willing := host()
	willing.outgoing = false // a classic pcap says nothing of it
	notWilling := checkFrame{src: hostMAC, name: "host", tlvs: []lldp.TLV{ets5050, pfcOn3, roceApp}}
	sw := sendEvery(leaf1, 0, 30*time.Second, 15*time.Minute)

	for _, tt := range []struct {
		name string
		host checkFrame
		args []string
		rule string
	}{
		{"the willing end", willing, nil, "the willing end (a switch port is not willing: it is the DCBX source of truth)"},
		{"--local-mac of the late agent", notWilling, []string{"--local-mac", hostMAC.String()}, "given by --local-mac"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pcap := classicPcap(t, sw, sendEvery(tt.host, 10*time.Minute, 30*time.Second, 15*time.Minute))
			args := append([]string{"-r", pcap}, tt.args...)
			ends, multiPeer, remoteValid := replayEnds(t, args...)
			if ends == nil || ends["local_mac"] != hostMAC.String() || ends["peer_mac"] != switchMAC.String() || ends["rule"] != tt.rule || multiPeer != nil || !remoteValid {
				t.Errorf("capture_ends %v, multi_peer %v, remote valid %v: want this host %s (%s), the peer %s, no multi-peer",
					ends, multiPeer, remoteValid, hostMAC, tt.rule, switchMAC)
			}
			_, r := checkJSON(t, args...)
			if res := peerResult(t, r); res.Verdict != verdict.OK {
				t.Errorf("dcbx-peer %s %q, want OK", res.Verdict, res.Summary)
			}
		})
	}
}

// TestReplayEndsEvidence: the switch sends first, neither end is
// willing; what tells this host's end is the System Capabilities TLV
// (IEEE 802.1AB 8.5.8: a bridge facing a station), or this host's own
// address when the replay runs on the host where the capture was taken
// (7737732 took the first to send, the switch, as this host).
func TestReplayEndsEvidence(t *testing.T) {
	bridge := &lldp.SystemCapabilities{Capabilities: lldp.CapBridge | lldp.CapRouter, Enabled: lldp.CapBridge}
	station := &lldp.SystemCapabilities{Capabilities: lldp.CapStation, Enabled: lldp.CapStation}
	t.Run("System Capabilities", func(t *testing.T) {
		leaf1 := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{bridge, ets5050, reco5050, pfcOn3, roceApp}}
		me := checkFrame{src: hostMAC, name: "host", tlvs: []lldp.TLV{station, ets5050, pfcOn3, roceApp}}
		pcap := classicPcap(t, sendEvery(leaf1, 0, 30*time.Second, 2*time.Minute), sendEvery(me, time.Second, 30*time.Second, 2*time.Minute))
		ends, _, _ := replayEnds(t, "-r", pcap)
		if ends == nil || ends["local_mac"] != hostMAC.String() || !strings.HasPrefix(ends["rule"].(string), "System Capabilities") {
			t.Errorf("capture_ends %v: want this host %s by System Capabilities", ends, hostMAC)
		}
	})
	t.Run("this host's MAC", func(t *testing.T) {
		mine := thisHostMAC(t)
		leaf1 := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcOn3, roceApp}}
		me := checkFrame{src: mine, name: "host", tlvs: []lldp.TLV{ets5050, pfcOn3, roceApp}}
		pcap := classicPcap(t, sendEvery(leaf1, 0, 30*time.Second, 2*time.Minute), sendEvery(me, time.Second, 30*time.Second, 2*time.Minute))
		ends, _, _ := replayEnds(t, "-r", pcap)
		if ends == nil || ends["local_mac"] != mine.String() || !strings.HasPrefix(ends["rule"].(string), "this host's own MAC") {
			t.Errorf("capture_ends %v: want this host %s by its own MAC", ends, mine)
		}
	})
}

// thisHostMAC returns the MAC address of one of this host's interfaces,
// skipping the test on a host that has none (a network namespace with
// only loopback).
func thisHostMAC(t *testing.T) lldp.MAC {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Skip(err)
	}
	for _, i := range ifs {
		if len(i.HardwareAddr) != 6 {
			continue
		}
		if m := lldp.MAC(i.HardwareAddr); m != (lldp.MAC{}) && m != switchMAC {
			return m
		}
	}
	t.Skip("no interface here has a MAC address")
	return lldp.MAC{}
}
