// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Tests of issue 13: what real switches, captures and hostile input
// showed. Each failed before the fix it names.

// peersByScope returns the interface's peers keyed by scope.
func peersByScope(t *testing.T, e *Engine) map[Scope]Peer {
	t.Helper()
	in, ok := e.Interface("eth0")
	if !ok {
		t.Fatal("no eth0")
	}
	out := map[Scope]Peer{}
	for _, p := range in.Peers {
		if _, dup := out[p.Scope]; dup {
			t.Fatalf("two peers with scope %s: %+v", p.Scope, in.Peers)
		}
		out[p.Scope] = p
	}
	return out
}

// The same LLDPDU, first to the nearest customer bridge and then to the
// nearest bridge, is two agents' information: the second is DCBX (it was
// taken as identical to the first and never decoded).
func TestScopeSameLLDPDUTwoAddresses(t *testing.T) {
	e := New(Config{})
	e.Apply(rx(0, frameTo(t, lldp.NearestCustomerBridge, macA, 120, etsA, pfc3)))
	if in, _ := e.Interface("eth0"); in.RemoteValid {
		t.Fatal("an LLDPDU to the nearest customer bridge made the remote parameters valid")
	}
	e.Apply(rx(1, frameTo(t, lldp.NearestBridge, macA, 120, etsA, pfc3)))
	in, _ := e.Interface("eth0")
	if !in.RemoteValid || in.Remote == nil || in.Remote.PFC == nil || in.Remote.PFC.Enabled != 1<<3 {
		t.Fatalf("the nearest-bridge LLDPDU is not the remote set: valid %v remote %+v", in.RemoteValid, in.Remote)
	}
	ps := peersByScope(t, e)
	if len(ps) != 2 || ps[ScopeNearestBridge].Params == nil || ps[ScopeNearestCustomerBridge].Params != nil {
		t.Errorf("peers %+v, want one per scope, DCBX only on nearest-bridge", ps)
	}
}

// A switch alternating DCBX on the nearest bridge with plain LLDP on the
// customer-bridge address: one first-receipt, then nothing (it issued a
// change on every frame and ended valid with no parameters).
func TestScopeAlternatingAgents(t *testing.T) {
	e := New(Config{})
	dcbx := frameTo(t, lldp.NearestBridge, macA, 120, etsA, pfc3, app1)
	plain := frameTo(t, lldp.NearestCustomerBridge, macA, 120)
	var evs []Event
	for i := range 10 {
		f := dcbx
		if i%2 == 1 {
			f = plain
		}
		evs = append(evs, rx(float64(i), f))
	}
	got := run(e, evs)
	want := []ind{
		{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
	}
	// The operational indication of the first receipt comes too.
	var remote []ind
	for _, g := range got {
		if g.Status == StatusRemote {
			remote = append(remote, g)
		}
	}
	if diff := cmp.Diff(want, remote); diff != "" {
		t.Errorf("remote indications (-want +got):\n%s", diff)
	}
	in, _ := e.Interface("eth0")
	if !in.RemoteValid || in.Remote == nil || in.Remote.ETS == nil || in.Remote.PFC == nil {
		t.Errorf("remote valid %v with %+v, want the nearest-bridge parameters", in.RemoteValid, in.Remote)
	}
	if in.Capture.Unchanged != 8 {
		t.Errorf("unchanged LLDPDUs %d, want 8 (each agent's repeats)", in.Capture.Unchanged)
	}
}

// An LLDPDU whose destination the capture did not record (a Linux cooked
// capture) has its scope marked assumed.
func TestScopeAssumed(t *testing.T) {
	e := New(Config{})
	ev := FrameReceived{Interface: "eth0", At: at(0), Data: frame(t, macA, 120, pfc3), DstAssumed: true}
	e.Apply(ev)
	p := peersByScope(t, e)[ScopeNearestBridge]
	if !p.ScopeAssumed || p.Params == nil {
		t.Errorf("peer %+v, want nearest-bridge, assumed, with DCBX", p)
	}
	e.Apply(rx(1, frame(t, macA, 120, pfc3)))
	if p := peersByScope(t, e)[ScopeNearestBridge]; p.ScopeAssumed {
		t.Error("scope still assumed after an LLDPDU with its destination")
	}
}

// tagged inserts an 802.1Q tag (VLAN vid, priority pcp) after the MACs.
func tagged(f []byte, vid uint16, pcp uint8) []byte {
	out := append([]byte(nil), f[:12]...)
	out = binary.BigEndian.AppendUint16(out, 0x8100)
	out = binary.BigEndian.AppendUint16(out, uint16(pcp)<<13|vid)
	return append(out, f[12:]...)
}

// The 802.1Q tag a peer's LLDPDU arrived with is in the peer (it was
// decoded and dropped); a change of tag alone is not "identical".
func TestPeerVLAN(t *testing.T) {
	e := New(Config{})
	f := frame(t, macA, 120, pfc3)
	e.Apply(rx(0, tagged(f, 100, 7)))
	p := peersByScope(t, e)[ScopeNearestBridge]
	if p.VLAN == nil || *p.VLAN != (VLANTag{ID: 100, PCP: 7}) {
		t.Errorf("vlan %+v, want 100 pcp 7", p.VLAN)
	}
	e.Apply(rx(1, f))
	if p := peersByScope(t, e)[ScopeNearestBridge]; p.VLAN != nil {
		t.Errorf("vlan %+v after an untagged LLDPDU, want null", p.VLAN)
	}
	b, _ := json.Marshal(peersByScope(t, e)[ScopeNearestBridge])
	if !strings.Contains(string(b), `"vlan":null`) {
		t.Errorf("untagged peer JSON %s, want \"vlan\":null", b)
	}
}

// Absent text TLVs are null, present empty ones "".
func TestPeerAbsentTextNull(t *testing.T) {
	e := New(Config{})
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: macA[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       120,
		TLVs:      []lldp.TLV{&lldp.Text{Kind: lldp.TLVTypePortDescription, Value: ""}},
	}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, macA, du)
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(rx(0, f))
	b, _ := json.Marshal(peersByScope(t, e)[ScopeNearestBridge])
	for _, want := range []string{`"system_name":null`, `"system_description":null`, `"port_description":""`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("peer JSON lacks %s: %s", want, b)
		}
	}
}

// A CEE peer's ETS and PFC have no CBS and MBC (null), and PGID 15 is
// listed as strict priority; IEEE keeps booleans and strict_prio null.
func TestCEEAbsentIsNull(t *testing.T) {
	cee := &lldp.CEE{
		Control: &lldp.CEEControl{OperVersion: 0, MaxVersion: 0, SeqNo: 1, AckNo: 0},
		PG: &lldp.CEEPG{CEEFeature: lldp.CEEFeature{Enable: true}, PGID: [8]uint8{0, 0, 0, 1, 15, 0, 0, 0},
			Bandwidth: [8]uint8{50, 50}, NumTCs: 8},
		PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8},
	}
	p := dcb.ParamsFromDU(&lldp.DU{TLVs: []lldp.TLV{cee}})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cbs":null`, `"mbc":null`, `"strict_prio":[4]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("CEE params JSON lacks %s: %s", want, b)
		}
	}
	var back dcb.Params
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, &back); diff != "" {
		t.Errorf("CEE params round trip (-want +got):\n%s", diff)
	}
	ieee := dcb.ParamsFromDU(&lldp.DU{TLVs: []lldp.TLV{etsA, pfc3}})
	b, _ = json.Marshal(ieee)
	for _, want := range []string{`"cbs":false`, `"mbc":false`, `"strict_prio":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("IEEE params JSON lacks %s: %s", want, b)
		}
	}
}

// A willing host running the peer's ETS recommendation, which differs
// from the peer's own configuration, is no mismatch (ETS is asymmetric).
// A host whose kernel ETS is not the recommendation it should run is.
func TestETSMismatchOnlyWhenNotAdopted(t *testing.T) {
	local := &dcb.Params{ETS: &dcb.ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 1 << 3}}
	peer := frame(t, macB, 120, etsA2, recoA, pfc3) // config 40/60, recommendation 30/70
	for _, tt := range []struct {
		source LocalSource
		ets    [8]uint8 // the local ETS bandwidths
		want   bool
	}{
		{SourceAgent, [8]uint8{50, 50}, false}, // dcbtop's agent transmits what the resolver chose
		{SourceDCBNL, [8]uint8{30, 70}, false}, // the kernel runs the recommendation
		{SourceDCBNL, [8]uint8{50, 50}, true},  // it does not
		{SourceDCBNL, [8]uint8{40, 60}, true},  // the peer's configuration is not what a willing host runs
		{SourceObserved, [8]uint8{30, 70}, false},
	} {
		l := local.Clone()
		l.ETS.TCBandwidth = tt.ets
		e := New(Config{})
		e.Apply(LocalChanged{Interface: "eth0", At: at(0), Source: tt.source, Willing: true, Params: l})
		e.Apply(rx(1, peer))
		in, _ := e.Interface("eth0")
		if got := hasCode(in.Diagnostics, diag.CodeETSMismatch); got != tt.want {
			t.Errorf("source %s, local bandwidth %v: ets-mismatch %v, want %v (%+v)", tt.source, tt.ets[:2], got, tt.want, in.Diagnostics)
		}
	}
}

// too-many-neighbors clears as tooManyNeighbors does: once no eviction
// happened for the TTL of the LLDPDU that found the table full.
func TestTooManyNeighborsClears(t *testing.T) {
	e := New(Config{MaxNeighbors: 2})
	for i := range 3 {
		src := lldp.MAC{0x02, 1, 0, 0, 0, byte(i)}
		e.Apply(rx(float64(i), frame(t, src, 30)))
	}
	in, _ := e.Interface("eth0")
	if !hasCode(in.Diagnostics, diag.CodeTooManyNeighbors) {
		t.Fatalf("no too-many-neighbors after an eviction: %+v", in.Diagnostics)
	}
	e.Apply(Tick{At: at(2 + 29)})
	if in, _ := e.Interface("eth0"); !hasCode(in.Diagnostics, diag.CodeTooManyNeighbors) {
		t.Error("too-many-neighbors cleared before the TTL of the LLDPDU that found the table full")
	}
	e.Apply(Tick{At: at(2 + 31)})
	in, _ = e.Interface("eth0")
	if hasCode(in.Diagnostics, diag.CodeTooManyNeighbors) {
		t.Errorf("too-many-neighbors still raised 31 s after the last eviction: %+v", in.Diagnostics)
	}
	if in.Capture.NeighborsEvicted != 1 {
		t.Errorf("neighbors_evicted %d, want 1 (the count stays)", in.Capture.NeighborsEvicted)
	}
}

// A capture record read despite an inconsistency is counted and shown.
func TestCaptureRecordNote(t *testing.T) {
	e := New(Config{})
	e.Apply(FrameReceived{Interface: "eth0", At: at(0), Data: frame(t, macA, 120), Note: "record 7 at offset 412: capture length 70 exceeds packet length 60; read as captured"})
	in, _ := e.Interface("eth0")
	if in.Capture.RecordsOdd != 1 || !hasCode(in.Diagnostics, diag.CodeCaptureRecordOdd) || len(in.Peers) != 1 {
		t.Errorf("records_odd %d, peers %d, diagnostics %+v", in.Capture.RecordsOdd, len(in.Peers), in.Diagnostics)
	}
}

// FuzzScopeKey drives one engine with frames from two chassis to the four
// kinds of destination, tagged or not, with or without an assumed
// destination, and checks the per-agent key: at most one neighbour per
// (destination, MSAP); DCBX parameters only on nearest-bridge neighbours;
// the remote set, when valid, from a nearest-bridge neighbour; scopes and
// tags as last received; and a second engine that is given every frame
// twice (the repeat takes the identical-LLDPDU path) ends with the same
// peers and remote parameters.
func FuzzScopeKey(f *testing.F) {
	f.Add([]byte{0x00, 0x10, 0x21, 0x33, 0x00, 0x10})
	f.Add([]byte{0x03, 0x00, 0x03, 0x00, 0x03})
	f.Add([]byte{0x40, 0x44, 0x80, 0xc4, 0x13})
	dsts := []lldp.MAC{lldp.NearestBridge, lldp.NearestCustomerBridge, lldp.NearestNonTPMRBridge, {0x01, 0x00, 0x5e, 0, 0, 1}}
	srcs := []lldp.MAC{macA, macB}
	tlvs := [][]lldp.TLV{nil, {etsA, pfc3}, {etsA2, recoA, pfc34, app2}, {pfc3}}
	f.Fuzz(func(t *testing.T, prog []byte) {
		once, twice := New(Config{}), New(Config{})
		type key struct {
			dst Scope
			src lldp.MAC
		}
		last := map[key]byte{}
		for i, op := range prog {
			dst, src := dsts[op&3], srcs[op>>2&1]
			data := frameTo(t, dst, src, 120, tlvs[op>>3&3]...)
			if op&0x20 != 0 {
				data = tagged(data, uint16(op>>6), 3)
			}
			assumed := op&0x80 != 0
			ev := FrameReceived{Interface: "eth0", At: at(float64(i)), Data: data, DstAssumed: assumed}
			once.Apply(ev)
			twice.Apply(ev)
			twice.Apply(ev)
			last[key{ScopeOf(dst), src}] = op
		}
		in, _ := once.Interface("eth0")
		seen := map[string]bool{}
		for _, p := range in.Peers {
			k := string(p.Scope) + "|" + p.ChassisID + "|" + p.PortID
			if p.Scope != ScopeOther && seen[k] {
				t.Fatalf("two peers for %s: %+v", k, in.Peers)
			}
			seen[k] = true
			if p.Scope != ScopeNearestBridge && p.Params != nil {
				t.Fatalf("DCBX parameters on a %s peer: %+v", p.Scope, p)
			}
			if p.Scope == ScopeOther {
				continue // two "other" addresses may share the scope name
			}
			var src lldp.MAC
			copy(src[:], p.SourceMAC[:])
			op, ok := last[key{p.Scope, src}]
			if !ok {
				t.Fatalf("peer %+v never sent to %s", p, p.Scope)
			}
			if p.ScopeAssumed != (op&0x80 != 0) || (p.VLAN != nil) != (op&0x20 != 0) {
				t.Fatalf("peer %+v does not show its last LLDPDU (op %#x)", p, op)
			}
		}
		if in.RemoteValid && in.RemotePeer != nil {
			found := false
			for _, p := range in.Peers {
				// (Params may be nil: a peer that stopped sending DCBX TLVs
				// leaves an empty remote set, every group withdrawn.)
				if p.MSAP() == *in.RemotePeer && p.Scope == ScopeNearestBridge {
					found = true
				}
			}
			if !found {
				t.Fatalf("remote parameters from %s, which is no nearest-bridge peer: %+v", *in.RemotePeer, in.Peers)
			}
		}
		in2, _ := twice.Interface("eth0")
		strip := func(ps []Peer) []Peer {
			out := make([]Peer, len(ps))
			for i, p := range ps {
				p.Frames = 0
				out[i] = p
			}
			return out
		}
		if diff := cmp.Diff(strip(in.Peers), strip(in2.Peers)); diff != "" {
			t.Fatalf("peers differ when every frame comes twice (-once +twice):\n%s", diff)
		}
		if diff := cmp.Diff(in.Remote, in2.Remote); diff != "" || in.RemoteValid != in2.RemoteValid {
			t.Fatalf("remote differs when every frame comes twice (valid %v/%v):\n%s", in.RemoteValid, in2.RemoteValid, diff)
		}
	})
}

// Received, a priority mapped past Max TCs is a warning (the sender's
// advertisement); in parameters dcbtop would send or write it is an error
// that stops the write.
func TestPrioTCRangeLocalIsError(t *testing.T) {
	p := &dcb.Params{ETS: &dcb.ETS{MaxTCs: 3, PrioTC: [8]uint8{7, 7, 7, 7, 7, 7, 7, 7}, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{lldp.TSAETS}}}
	var found bool
	for _, d := range p.Validate() {
		if d.Code == diag.CodeETSPrioTCRange {
			found = d.Severity == diag.SeverityError
		}
	}
	if !found || p.Errors() == nil {
		t.Errorf("local ETS mapping every priority to TC7 with Max TCs 3: diagnostics %+v, errors %v; want an error", p.Validate(), p.Errors())
	}
}

// A PARAMS file saying one thing twice is refused, naming where: a key
// repeated in an object (encoding/json would keep the last), or an APP
// entry repeated (received, app-duplicate-entry).
func TestParseParamsDuplicates(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when it parses
	}{
		{`{"pfc": {"willing": true, "cap": 8, "enabled": [3]}, "pfc": {"willing": false, "cap": 8, "enabled": []}}`, `pfc: key given twice`},
		{`{"ets": {"willing": true, "willing": false, "prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [100,0,0,0,0,0,0,0], "tsa": ["ets","strict","strict","strict","strict","strict","strict","strict"]}}`, `ets.willing: key given twice`},
		{`{"app": [{"selector": "udp-port", "protocol": 4791, "priority": 3, "priority": 4}]}`, `app[0].priority: key given twice`},
		{`{"app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}, {"selector": "udp-port", "protocol": 4791, "priority": 4}]}`, ""},
		{`{"pfc": {"willing": true, "cap": 8, "enabled": [3]}, "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}]}`, ""},
	}
	for _, tt := range tests {
		_, err := dcb.ParseParams(strings.NewReader(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ParseParams(%s): %v", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ParseParams(%s) = %v, want an error with %s", tt.in, err, tt.want)
		}
	}
	p, err := dcb.ParseParams(strings.NewReader(`{"app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}, {"selector": "udp-port", "protocol": 4791, "priority": 3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Errors(); err == nil || !strings.Contains(err.Error(), "repeats") {
		t.Errorf("a repeated APP entry: Errors() = %v, want it refused", err)
	}
}

// ParseParams reads at most MaxParamsJSON bytes (--local and the control
// socket's parameters go through it too).
func TestParseParamsTooLarge(t *testing.T) {
	r := strings.NewReader(`{"app": [` + strings.Repeat(" ", dcb.MaxParamsJSON) + `]}`)
	if _, err := dcb.ParseParams(r); !errors.Is(err, dcb.ErrParamsTooLarge) {
		t.Errorf("ParseParams of %d bytes: %v, want ErrParamsTooLarge", r.Size(), err)
	}
	if left := r.Len(); left == 0 {
		t.Error("ParseParams read the whole input")
	}
}

// Errors in a PARAMS file say where: line and column.
func TestParseParamsPosition(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\n  \"pfc\": {\"willing\": true,\n           \"cap\": \"eight\"}\n}", "line 3, column"},
		{"{\n  \"pfc\": {\"willing\": true,, \"cap\": 8}\n}", "line 2, column 27"},
		{"{\n  \"bogus\": 1\n}", "line 2, column"},
		{"{\n  \"pfc\": {},\n  \"pfc\": {}\n}", "line 3, column"},
	} {
		_, err := dcb.ParseParams(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseParams(%q) = %v, want %q in it", tt.in, err, tt.want)
		}
	}
}

// In a replay, local-unknown's advice says what a capture can carry.
func TestLocalUnknownReplayAdvice(t *testing.T) {
	for _, replay := range []bool{false, true} {
		e := New(Config{Replay: replay})
		e.Apply(rx(0, frame(t, macA, 120, etsA, pfc3)))
		in, _ := e.Interface("eth0")
		var action string
		for _, d := range in.Diagnostics {
			if d.Code == diag.CodeLocalUnknown {
				action = d.Action
			}
		}
		if got := strings.Contains(action, "record with dcbtop -w"); got != replay {
			t.Errorf("replay %v: action %q", replay, action)
		}
	}
}

// A LOCAL indication says CLASSIFICATION_CONFIGURED only when the local
// APP table has entries (an empty one configures nothing).
func TestLocalAppConfiguredOnlyWithEntries(t *testing.T) {
	for _, tt := range []struct {
		app  []dcb.App
		want bool
	}{{[]dcb.App{}, false}, {nil, false}, {[]dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}, true}} {
		e := New(Config{})
		ins := e.Apply(LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Willing: true,
			Params: &dcb.Params{PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 1 << 3}, App: tt.app}})
		if len(ins) == 0 || ins[0].Status != StatusLocal {
			t.Fatalf("no LOCAL indication: %+v", ins)
		}
		if got := ins[0].Flags&FlagClassificationConfigured != 0; got != tt.want {
			t.Errorf("APP %v: CLASSIFICATION_CONFIGURED %v, want %v", tt.app, got, tt.want)
		}
	}
}
