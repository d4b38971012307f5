// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/testbed/schematest"

	"github.com/dcbtop/dcbtop/assets"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// schemaScenarios are event tables whose snapshots together produce every
// shape the schema describes: each local source, IEEE and CEE peers, a
// multi-peer hold-down, expiry, shutdown, local agents, diagnostics with
// and without an action, reserved TSA and APP selector values.
func schemaScenarios(t testing.TB) map[string][]Event {
	link := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true}
	agent := func(willing bool) LocalChanged {
		return LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: willing,
			Params: &dcb.Params{ETS: localETS, PFC: localPFC, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}}
	}
	cee := &lldp.CEE{Control: &lldp.CEEControl{OperVersion: 0, MaxVersion: 0, SeqNo: 7, AckNo: 6},
		PG:  &lldp.CEEPG{CEEFeature: lldp.CEEFeature{Enable: true}, PGID: [8]uint8{0, 0, 0, 1, 0, 0, 0, 15}, Bandwidth: [8]uint8{40, 60}, NumTCs: 8},
		PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true, Willing: true, Error: true}, Enabled: 1 << 3, NumTCs: 8},
		App: &lldp.CEEApp{CEEFeature: lldp.CEEFeature{Enable: true}, Entries: []lldp.CEEAppEntry{{Protocol: 0x8906, Selector: 0, PriorityMap: 1 << 3}}}}
	odd := &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 7, 0, 0, 0, 0, 0, 255}}
	oddApp := &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: 6, Protocol: 1}, {Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26}}}
	return map[string][]Event{
		"ieee peer, local via LocalChanged, willing": {link, agent(true), rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3, app2)), Tick{At: at(100)}},
		"ieee peer, local not willing":               {link, agent(false), rx(1, frame(t, highMAC, 120, etsA, pfc34, app1))},
		"cee peer, local willing":                    {link, agent(true), rx(1, frame(t, highMAC, 120, cee))},
		"cee peer, local unknown":                    {rx(1, frame(t, highMAC, 120, cee))},
		"multi-peer":                                 {rx(0, frame(t, macA, 10, etsA)), rx(2, frame(t, macB, 10, etsA, pfc3)), Tick{At: at(3)}},
		"multi-peer ended":                           {rx(0, frame(t, macA, 10, etsA)), rx(2, frame(t, macB, 10, etsA)), Tick{At: at(30)}},
		"expired":                                    {link, agent(false), rx(0, frame(t, macA, 4, etsA, pfc3)), Tick{At: at(10)}},
		"shutdown":                                   {rx(0, frame(t, macA, 120, etsA, pfc3)), rx(1, frame(t, macA, 0))},
		"observed local and two local agents": {
			FrameReceived{Interface: "eth0", At: at(0), Outgoing: true, Data: frame(t, lowMAC, 120, &lldp.ETS{Willing: true, MaxTCs: 8, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}}, &lldp.PFC{Willing: true, Cap: 8})},
			FrameReceived{Interface: "eth0", At: at(1), Outgoing: true, Data: frame(t, macA, 120)},
			rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3)),
		},
		"firmware, capture error, malformed, plain neighbour": {
			link,
			LocalChanged{Interface: "eth0", At: at(0), Source: "dcbnl", Willing: true, Params: &dcb.Params{ETS: localETS},
				Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true},
			rx(1, frame(t, macA, 120)[:20]),
			rx(2, frameTo(t, lldp.NearestCustomerBridge, macB, 120, etsA)),
			rx(3, frame(t, macA, 120)),
			CaptureStatus{Interface: "eth0", At: at(4), Err: "recvmsg: network is down", KernelDrops: 3, Sent: 9},
			LinkChanged{Interface: "eth1", At: at(5), Ifindex: 3, MAC: highMAC, Up: false},
		},
		"reserved TSA and APP selector, empty APP table": {
			rx(0, frame(t, macA, 120, odd, &lldp.PFC{Cap: 2, Enabled: 0xff}, oddApp)),
			rx(1, frame(t, macB, 120, &lldp.AppPriority{})),
		},
	}
}

// TestSnapshotSchema validates the snapshots of the engine scenarios, of
// the lldpd captures replayed through the engine, and the CLI's golden
// --json outputs against assets/snapshot.schema.json.
func TestSnapshotSchema(t *testing.T) {
	var all []byte
	for name, evs := range schemaScenarios(t) {
		t.Run(name, func(t *testing.T) {
			e := New(Config{})
			for _, ev := range evs {
				e.Apply(ev)
			}
			b, err := json.MarshalIndent(e.Snapshot(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := assets.ValidateSnapshot(b); err != nil {
				t.Errorf("%v\n%s", err, b)
			}
			c, err := json.Marshal(e.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, c...)
		})
	}
	// The scenarios must keep producing the shapes they exist for.
	for _, shape := range []string{
		`"tsa":["ets","unknown-7",`, `"vendor"]`, `"selector":"reserved-6"`, `"app":[]`, `"app":null`,
		`"cee":{`, `"pgid":[0,0,0,1,0,0,0,15]`, `"multi_peer":{"since"`, `"remote_invalid_reason":"ttl-expired"`,
		`"remote_invalid_reason":"shutdown"`, `"remote_invalid_reason":"multi-peer"`, `"local_source":"observed"`,
		`"local_source":"dcbnl"`, `"local_source":"agent"`, `"local_source":"none"`, `"dcbx_mode":"firmware`,
		`"willing":null`, `"oper_state":"down"`, `"local_agents":[{`, `"scope":"nearest-customer-bridge"`,
		`"dcbx":"none"`, `"dcbx":"cee"`, `"action":`, `"feature":"cee"`, `"peer":"mac `, `"WILLING"`,
		`"source":"remote-reco"`, `"source":"local+remote"`, `"source":"none"`,
	} {
		if !bytes.Contains(all, []byte(shape)) {
			t.Errorf("no scenario produces %s", shape)
		}
	}
	pcaps, _ := filepath.Glob("lldp/testdata/*.pcap")
	more, _ := filepath.Glob("testdata/*.pcap")
	pcaps = append(pcaps, more...)
	if len(pcaps) == 0 {
		t.Fatal("no captures found under lldp/testdata and testdata")
	}
	for _, p := range pcaps {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := json.Marshal(replay(t, p, nil).Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := assets.ValidateSnapshot(b); err != nil {
				t.Error(err)
			}
		})
	}
	goldens, _ := filepath.Glob("../cmd/dcbtop/testdata/*.json.golden")
	if len(goldens) == 0 {
		t.Fatal("no ../cmd/dcbtop/testdata/*.json.golden: the CLI's snapshot goldens moved; update this test")
	}
	for _, p := range goldens {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := assets.ValidateSnapshot(b); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSnapshotSchemaRejects checks that the schema catches drift: each
// mutation of a valid snapshot must fail validation.
func TestSnapshotSchemaRejects(t *testing.T) {
	e := New(Config{})
	for _, ev := range schemaScenarios(t)["ieee peer, local via LocalChanged, willing"] {
		e.Apply(ev)
	}
	b, err := json.Marshal(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := assets.ValidateSnapshot(b); err != nil {
		t.Fatalf("the unmutated snapshot must be valid: %v", err)
	}
	iface := func(m map[string]any) map[string]any { return m["interfaces"].([]any)[0].(map[string]any) }
	remoteETS := func(m map[string]any) map[string]any {
		return iface(m)["remote"].(map[string]any)["ets"].(map[string]any)
	}
	tests := []struct {
		name   string
		at     string // where the error must point (JSON pointer)
		mutate func(m map[string]any)
	}{
		{"unknown field in an interface", "/interfaces/0", func(m map[string]any) { iface(m)["bogus"] = 1 }},
		{"unknown field at the top", "", func(m map[string]any) { m["extra"] = "x" }},
		{"unknown field in a peer", "/interfaces/0/peers/0", func(m map[string]any) { iface(m)["peers"].([]any)[0].(map[string]any)["hops"] = 7 }},
		{"vlan tag not an object", "/interfaces/0/peers/0/vlan", func(m map[string]any) { iface(m)["peers"].([]any)[0].(map[string]any)["vlan"] = 7 }},
		{"bad tsa string", "/interfaces/0/remote/ets/tsa/1", func(m map[string]any) { remoteETS(m)["tsa"].([]any)[1] = "fast" }},
		{"tsa unknown without number", "/interfaces/0/remote/ets/tsa/1", func(m map[string]any) { remoteETS(m)["tsa"].([]any)[1] = "unknown-" }},
		{"prio_tc of 7 entries", "/interfaces/0/remote/ets/prio_tc", func(m map[string]any) { remoteETS(m)["prio_tc"] = []any{0, 0, 0, 1, 0, 0, 0} }},
		{"tc_bandwidth of 9 entries", "/interfaces/0/remote/ets/tc_bandwidth", func(m map[string]any) { remoteETS(m)["tc_bandwidth"] = []any{0, 0, 0, 0, 0, 0, 0, 0, 100} }},
		{"missing field", "/interfaces/0", func(m map[string]any) { delete(iface(m), "willing") }},
		{"null capture", "/interfaces/0/capture", func(m map[string]any) { iface(m)["capture"] = nil }},
		{"frame counts under counters (v1)", "/interfaces/0/counters", func(m map[string]any) { iface(m)["counters"] = iface(m)["capture"] }},
		{"counters without pfc", "/interfaces/0/counters", func(m map[string]any) {
			iface(m)["counters"] = map[string]any{"sampled_at": "2026-11-24T10:00:00Z", "interval_ms": 1000, "rdma": []any{}, "ecn": nil, "error": nil}
		}},
		{"missing NDK counter as 0 is fine, as a string is not", "/interfaces/0/counters/rdma/0/ndk/connect", func(m map[string]any) {
			ndk := map[string]any{"connect": "n/a", "accept": nil, "connect_failure": nil, "connection_error": nil, "active_connection": nil,
				"cq_error": nil, "rdma_in_octets": 0, "rdma_out_octets": 0, "rdma_in_frames": 0, "rdma_out_frames": 0}
			cong := map[string]any{"np_cnp_sent": nil, "rp_cnp_handled": nil, "rp_cnp_ignored": nil, "np_ecn_marked_roce_packets": nil, "out_of_sequence": nil, "out_of_buffer": nil}
			prios := []any{}
			for p := range 8 {
				prios = append(prios, map[string]any{"priority": p, "rx_pause": nil, "tx_pause": nil, "rx_pause_rate": nil, "tx_pause_rate": nil, "rx_pause_duration_us": nil, "tx_pause_duration_us": nil})
			}
			iface(m)["counters"] = map[string]any{"sampled_at": "2026-11-24T10:00:00Z", "interval_ms": 1000, "ecn": nil, "error": nil,
				"rdma": []any{map[string]any{"device": "mlx5_0", "port": 1, "ndk": ndk, "missing_counter_mask": 0, "derived_counter_mask": 0,
					"sources": map[string]any{}, "rates": map[string]any{}, "congestion": cong}},
				"pfc": map[string]any{"source": nil, "priorities": prios, "storm_warning_events": nil, "storm_error_events": nil, "sources": map[string]any{}}}
		}},
		{"unknown flag", "/indications/0/flags/0", func(m map[string]any) { m["indications"].([]any)[0].(map[string]any)["flags"] = []any{"ETS_MAYBE"} }},
		{"lower-case status", "/indications/0/status", func(m map[string]any) {
			m["indications"].([]any)[0].(map[string]any)["status"] = "qos_remote_parameters_change"
		}},
		{"PFC priority 8", "/interfaces/0/remote/pfc/enabled/0", func(m map[string]any) {
			iface(m)["remote"].(map[string]any)["pfc"].(map[string]any)["enabled"] = []any{8}
		}},
		{"bad selector", "/interfaces/0/remote/app/0/selector", func(m map[string]any) {
			iface(m)["remote"].(map[string]any)["app"].([]any)[0].(map[string]any)["selector"] = "udp"
		}},
		{"bad time", "/taken_at", func(m map[string]any) { m["taken_at"] = "yesterday" }},
		{"other schema version", "/schema", func(m map[string]any) { m["schema"] = "dcbtop.snapshot/v1" }},
		{"unknown diagnostic code", "/interfaces/0/diagnostics/0/code", func(m map[string]any) {
			iface(m)["diagnostics"] = []any{map[string]any{"code": "brand-new", "severity": "info", "message": "x"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			mb, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			err = assets.ValidateSnapshot(mb)
			if err == nil {
				t.Fatal("mutated snapshot validates")
			}
			if want := "at '" + tt.at + "'"; !strings.Contains(err.Error(), want) {
				t.Errorf("error does not point %s:\n%v", want, err)
			}
		})
	}
}

// TestSnapshotSchemaCoversTypes compares, type by type, the JSON fields
// of the snapshot's Go types with the schema's properties, so a field
// that no scenario happens to emit is still caught: every field must be
// in the schema, required unless it is omitempty.
func TestSnapshotSchemaCoversTypes(t *testing.T) {
	schematest.CheckTypes(t, map[string]reflect.Type{
		"":                   reflect.TypeFor[Snapshot](),
		"interface":          reflect.TypeFor[Interface](),
		"local_agent":        reflect.TypeFor[LocalAgent](),
		"multi_peer":         reflect.TypeFor[MultiPeer](),
		"peer":               reflect.TypeFor[Peer](),
		"diagnostic":         reflect.TypeFor[diag.Diagnostic](),
		"capture":            reflect.TypeFor[CaptureCounters](),
		"lossless_counters":  reflect.TypeFor[lossless.Counters](),
		"rdma_port_counters": reflect.TypeFor[lossless.RDMAPortCounters](),
		"ndk_values":         reflect.TypeFor[lossless.NDKValues](),
		"congestion_values":  reflect.TypeFor[lossless.CongestionValues](),
		"pfc_counters":       reflect.TypeFor[lossless.PFCCounters](),
		"prio_pause":         reflect.TypeFor[lossless.PrioPause](),
		"roce_port":          reflect.TypeFor[lossless.RoCEPortSample](),
		"roce_gid":           reflect.TypeFor[lossless.RoCEGID](),
		"roce_tos":           reflect.TypeFor[lossless.RoCEToS](),
		"link_pause":         reflect.TypeFor[lossless.LinkPauseSample](),
		"port_qos":           reflect.TypeFor[lossless.PortQoSSample](),
		"port_buffer":        reflect.TypeFor[lossless.PortBuffer](),
		"roce_path":          reflect.TypeFor[lossless.RoCEPath](),
		"path_hop":           reflect.TypeFor[lossless.PathHop](),
		"indication":         reflect.TypeFor[Indication](),
		"capture_ends":       reflect.TypeFor[CaptureEnds](),
		"ends_reading":       reflect.TypeFor[EndsReading](),
	})
}
