// SPDX-License-Identifier: Apache-2.0

package replay

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// switch2MAC is a second switch's.
var switch2MAC = lldp.MAC{2, 0, 0, 0, 0, 0x33}

// System Capabilities as a switch port and as a host send them (IEEE Std
// 802.1AB-2016, 8.5.8, Table 8-4).
var (
	bridgeCaps  = &lldp.SystemCapabilities{Capabilities: lldp.CapBridge | lldp.CapRouter, Enabled: lldp.CapBridge | lldp.CapRouter}
	stationCaps = &lldp.SystemCapabilities{Capabilities: lldp.CapStation, Enabled: lldp.CapStation}
)

// speakerFrame is an LLDPDU of the speaker at mac with TTL ttl, DCBX
// Willing as said, and System Capabilities caps (nil: none).
func speakerFrame(t *testing.T, mac lldp.MAC, ttl uint16, willing bool, caps *lldp.SystemCapabilities) []byte {
	t.Helper()
	local := agent.DefaultLocal().WithWilling(willing)
	du, err := agent.BuildDU(agent.Config{Ifname: "p" + mac.String()[15:], MAC: mac}, ttl, agent.Advert{Willing: willing, Local: local, Operational: local})
	if err != nil {
		t.Fatal(err)
	}
	if caps != nil {
		du.TLVs = append(du.TLVs, caps)
	}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, mac, du)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// every is frame f at start, then every interval up to end (included).
func every(f []byte, start, interval, end time.Duration) []record {
	var out []record
	for at := start; at <= end; at += interval {
		out = append(out, record{at, f})
	}
	return out
}

// sortRecords merges the records of several speakers in time order.
func sortRecords(speakers ...[]record) []record {
	var out []record
	for _, s := range speakers {
		out = append(out, s...)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].at < out[j-1].at; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// replayed runs the whole of s headless and returns, frame by frame,
// whether it was replayed as this host's (outgoing).
func replayed(t *testing.T, s *Source) []bool {
	t.Helper()
	var out []bool
	if err := s.Direct(context.Background(), func(fr engine.FrameReceived) bool {
		out = append(out, fr.Outgoing)
		return true
	}, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// from lists, per record, whether its source is mac.
func from(recs []record, mac lldp.MAC) []bool {
	var out []bool
	for _, r := range recs {
		out = append(out, lldp.MAC(r.data[6:12]) == mac)
	}
	return out
}

// TestReplayEnds replays classic pcap files (no direction) of two
// speakers: how they are read, by which evidence, and which frames are
// replayed as this host's. 7737732 read two switches as this host and
// its peer (the first to send), read a host agent starting after the
// peer's TTL window as a second peer (its scan read the first TTL window
// only), refused --local-mac of that late speaker ("the capture has no
// link with two ends to choose from"), and knew neither System
// Capabilities nor this host's addresses.
func TestReplayEnds(t *testing.T) {
	mp := func(m lldp.MAC) *lldp.MAC { return &m }
	sw := speakerFrame(t, switchMAC, 120, false, bridgeCaps)
	sw2 := speakerFrame(t, switch2MAC, 120, false, bridgeCaps)
	host := speakerFrame(t, hostMAC, 120, false, stationCaps)
	plainSw := speakerFrame(t, switchMAC, 120, false, nil)
	plainHost := speakerFrame(t, hostMAC, 120, false, nil)
	// The switch every 30 s for 10 minutes, this host's agent from then
	// on: 5 TTLs after the switch's first LLDPDU.
	late := sortRecords(every(plainSw, 0, 30*time.Second, 15*time.Minute), every(plainHost, 10*time.Minute, 30*time.Second, 15*time.Minute))
	lateWilling := sortRecords(every(plainSw, 0, 30*time.Second, 15*time.Minute),
		every(speakerFrame(t, hostMAC, 120, true, nil), 10*time.Minute, 30*time.Second, 15*time.Minute))
	hostEnds := func(rule string) []engine.EndsAssumed {
		return []engine.EndsAssumed{{Interface: "pcap0", At: t0, Ends: engine.CaptureEnds{LocalMAC: mp(hostMAC), PeerMAC: mp(switchMAC), Rule: rule}}}
	}
	for _, tt := range []struct {
		name  string
		recs  []record
		ev    engine.EndsEvidence
		want  []engine.EndsAssumed
		local lldp.MAC // whose frames are replayed as this host's; zero: none
		err   string
	}{
		{name: "two switches: ambiguous, both read as they came",
			recs: sortRecords(every(sw, 0, 30*time.Second, 2*time.Minute), every(sw2, time.Second, 30*time.Second, 2*time.Minute)),
			want: []engine.EndsAssumed{{Interface: "pcap0", At: t0, Ends: engine.CaptureEnds{Ambiguous: true, Rule: engine.EndRuleAmbiguous,
				Readings: []engine.EndsReading{{LocalMAC: switchMAC, PeerMAC: switch2MAC}, {LocalMAC: switch2MAC, PeerMAC: switchMAC}}}}}},
		{name: "System Capabilities: the station is this host, though the switch sent first",
			recs: sortRecords(every(sw, 0, 30*time.Second, 2*time.Minute), every(host, time.Second, 30*time.Second, 2*time.Minute)),
			want: hostEnds(engine.EndRuleCapabilities), local: hostMAC},
		{name: "this host's address, though the switch sent first",
			recs: sortRecords(every(plainSw, 0, 30*time.Second, 2*time.Minute), every(plainHost, time.Second, 30*time.Second, 2*time.Minute)),
			ev:   engine.EndsEvidence{HostMACs: []lldp.MAC{switch2MAC, hostMAC}}, want: hostEnds(engine.EndRuleHostMAC), local: hostMAC},
		{name: "a willing host agent that starts after the peer's TTL: an end, not a second peer",
			recs: lateWilling, want: hostEnds(engine.EndRuleWilling), local: hostMAC},
		{name: "--local-mac of the late speaker", recs: late, ev: engine.EndsEvidence{LocalMAC: mp(hostMAC)},
			want: hostEnds(engine.EndRuleGiven), local: hostMAC},
		{name: "--local-mac that never speaks", recs: late, ev: engine.EndsEvidence{LocalMAC: mp(switch2MAC)},
			err: "--local-mac 02:00:00:00:00:33 never speaks in the capture (its LLDP speakers: pcap0: 02:00:00:00:00:22, 02:00:00:00:00:11)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, writePcap(t, tt.recs...), 0, nil)
			got, err := s.LocalEnds(tt.ev)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ends (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(from(tt.recs, tt.local), replayed(t, s)); diff != "" {
				t.Errorf("outgoing, frame by frame (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplayDirections: frames that say their direction (pcapng
// epb_flags inbound and outbound; Linux cooked packet types
// PACKET_OUTGOING, PACKET_HOST and PACKET_MULTICAST, include/uapi/linux/
// if_packet.h) are replayed as they say, whatever the speakers are (no
// ends to decide, even with this host's addresses saying otherwise).
func TestReplayDirections(t *testing.T) {
	sw := speakerFrame(t, switchMAC, 120, false, bridgeCaps)
	host := speakerFrame(t, hostMAC, 120, false, stationCaps)
	want := []bool{false, true, false, true}

	path := filepath.Join(t.TempDir(), "dir.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, out := range want {
		f := capture.Frame{Interface: "eth0", At: t0.Add(time.Duration(i) * time.Second), Dir: capture.DirectionIncoming, Data: sw}
		if out {
			f.Dir, f.Data = capture.DirectionOutgoing, host
		}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	const packetHost, packetMulticast, packetOutgoing = 0, 2, 4
	cooked := writeSLL2(t, []sllRecord{{packetMulticast, sw}, {packetOutgoing, host}, {packetHost, sw}, {packetOutgoing, host}})

	for name, path := range map[string]string{"pcapng epb_flags": path, "linux cooked v2": cooked} {
		t.Run(name, func(t *testing.T) {
			s := open(t, path, 0, nil)
			ends, err := s.LocalEnds(engine.EndsEvidence{HostMACs: []lldp.MAC{switchMAC}})
			if err != nil || len(ends) != 0 {
				t.Fatalf("ends %+v, %v: want none (the frames say their direction)", ends, err)
			}
			if diff := cmp.Diff(want, replayed(t, s)); diff != "" {
				t.Errorf("outgoing, frame by frame (-want +got):\n%s", diff)
			}
			s = open(t, path, 0, nil)
			if _, err := s.LocalEnds(engine.EndsEvidence{LocalMAC: &hostMAC}); err == nil || !strings.Contains(err.Error(), "no LLDP speaker in the capture's frames without direction") {
				t.Errorf("--local-mac: %v", err)
			}
		})
	}
}

// An sllRecord is a LINKTYPE_LINUX_SLL2 record: a packet type and the
// Ethernet frame it carries.
type sllRecord struct {
	pktType byte
	frame   []byte
}

// writeSLL2 writes a classic pcap file of LINKTYPE_LINUX_SLL2 records
// ("tcpdump -i any"), one a second on interface index 3, and returns its
// path.
func writeSLL2(t *testing.T, recs []sllRecord) string {
	t.Helper()
	frames := make([]testbed.PcapFrame, len(recs))
	for i, r := range recs {
		frames[i] = testbed.PcapFrame{Time: t0.Add(time.Duration(i) * time.Second), Data: testbed.SLL2(r.frame, 3, r.pktType)}
	}
	return testbed.WritePcap(t, "any.pcap", testbed.LinkTypeLinuxSLL2, frames)
}
