// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

var (
	t0  = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg = Config{Ifname: "veth0", MAC: lldp.MAC{0x02, 0, 0, 0, 0, 1}, SystemName: "host1", SystemDesc: "dcbtop test"}
)

func parse(t *testing.T, f []byte) *lldp.DU {
	t.Helper()
	hdr, pdu, err := lldp.SplitFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Dst != lldp.NearestBridge || hdr.Src != cfg.MAC {
		t.Errorf("frame %s -> %s, want %s -> nearest bridge", hdr.Src, hdr.Dst, cfg.MAC)
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		t.Fatal(err)
	}
	return du
}

func TestTTL(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want uint16
	}{{30 * time.Second, 121}, {time.Second, 5}, {20000 * time.Second, 65535}} {
		if got := TTL(tt.in); got != tt.want {
			t.Errorf("TTL(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestBuildDU(t *testing.T) {
	roce := []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}
	local := &dcb.Params{
		ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Cap: 4, Enabled: 1 << 3}, App: roce,
	}
	op := &dcb.Params{
		ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1<<4},
	}
	tests := []struct {
		name string
		ad   Advert
		want *dcb.Params
	}{
		{name: "defaults, willing", ad: Advert{Willing: true}, want: &dcb.Params{
			ETS:     &dcb.ETS{Willing: true, MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}},
			ETSReco: &dcb.ETSReco{TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}},
			PFC:     &dcb.PFC{Willing: true, Cap: 8}, App: []dcb.App{},
		}},
		{name: "local, not willing: ETS and PFC from local, recommendation = local ETS", ad: Advert{Local: local}, want: &dcb.Params{
			ETS:     local.ETS,
			ETSReco: &dcb.ETSReco{PrioTC: local.ETS.PrioTC, TCBandwidth: local.ETS.TCBandwidth, TSA: local.ETS.TSA},
			PFC:     local.PFC, App: roce,
		}},
		{name: "operational differs: ETS config and PFC enable carry operational, cap and reco stay local", ad: Advert{Willing: true, Local: local, Operational: op}, want: &dcb.Params{
			ETS:     &dcb.ETS{Willing: true, MaxTCs: 8, PrioTC: op.ETS.PrioTC, TCBandwidth: op.ETS.TCBandwidth, TSA: op.ETS.TSA},
			ETSReco: &dcb.ETSReco{PrioTC: local.ETS.PrioTC, TCBandwidth: local.ETS.TCBandwidth, TSA: local.ETS.TSA},
			PFC:     &dcb.PFC{Willing: true, Cap: 4, Enabled: 1<<3 | 1<<4}, App: roce,
		}},
		{name: "no APP table: no APP TLV", ad: Advert{Local: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}}, want: &dcb.Params{
			PFC: &dcb.PFC{Cap: 8},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du, err := BuildDU(cfg, 121, tt.ad)
			if err != nil {
				t.Fatal(err)
			}
			b, err := du.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			back, err := lldp.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, dcb.ParamsFromDU(back)); diff != "" {
				t.Errorf("advertised params (-want +got):\n%s", diff)
			}
			if got := back.ChassisID.String() + " " + back.PortID.String(); got != "mac 02:00:00:00:00:01 ifname veth0" {
				t.Errorf("MSAP %q", got)
			}
			if back.TTL != 121 || back.SystemName() != "host1" || len(back.Findings) != 0 {
				t.Errorf("TTL %d name %q findings %v", back.TTL, back.SystemName(), back.Findings)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	a, err := New(Config{Ifname: "veth0", MAC: cfg.MAC, TxInterval: 30 * time.Second}, Advert{Willing: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var sent []time.Duration
	step := func(until time.Duration) {
		for now := t0; !now.After(t0.Add(until)); now = now.Add(100 * time.Millisecond) {
			if _, ok := a.Due(now); ok {
				sent = append(sent, now.Sub(t0))
			}
		}
	}
	step(70 * time.Second)
	want := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 33 * time.Second, 63 * time.Second}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("transmissions (-want +got):\n%s", diff)
	}
	if a.TTL() != 121 || parse(t, a.Frame()).TTL != 121 {
		t.Errorf("TTL %d", a.TTL())
	}

	// The same advertisement again changes nothing; a change starts fast tx.
	now := t0.Add(70 * time.Second)
	if err := a.Set(Advert{Willing: true}, now); err != nil {
		t.Fatal(err)
	}
	if a.Next() != t0.Add(93*time.Second) {
		t.Errorf("unchanged advert rescheduled to %v", a.Next().Sub(t0))
	}
	if err := a.Set(Advert{Willing: false}, now); err != nil {
		t.Fatal(err)
	}
	if a.Next() != now {
		t.Errorf("changed advert not sent at once: next %v", a.Next().Sub(t0))
	}
	f, _ := a.Due(now)
	if e := parse(t, f).ETS(); e == nil || e.Willing {
		t.Errorf("willing bit after change: %+v", e)
	}
	a.PeerAppeared(now.Add(5 * time.Second))
	if a.Next() != now.Add(5*time.Second) {
		t.Errorf("new peer did not start fast tx")
	}
}

func TestShutdown(t *testing.T) {
	a, err := New(cfg, Advert{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	du := parse(t, a.Shutdown())
	if !du.Shutdown() || len(du.TLVs) != 0 || du.ChassisID.String() != "mac 02:00:00:00:00:01" {
		t.Errorf("shutdown LLDPDU %+v", du)
	}
}

func TestBadInterval(t *testing.T) {
	if _, err := New(Config{Ifname: "x", TxInterval: time.Millisecond}, Advert{}, t0); err == nil {
		t.Error("a 1ms interval was accepted")
	}
}

// What the wire cannot carry is refused before anything changes: an APP
// table over one TLV, an LLDPDU over one Ethernet frame.
func TestCheckLimits(t *testing.T) {
	app := func(n int) *dcb.Params {
		p := DefaultLocal()
		p.App = make([]dcb.App, n)
		for i := range p.App {
			p.App[i] = dcb.App{Selector: lldp.AppSelUDP, Protocol: uint16(1000 + i), Priority: 3}
		}
		return p
	}
	a, err := New(cfg, Advert{Willing: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := a.Due(t0)
	if err := a.Check(Advert{Local: app(168)}); err != nil {
		t.Errorf("168 APP entries: %v", err)
	}
	err = a.Check(Advert{Local: app(169)})
	if err == nil || !strings.Contains(err.Error(), "exceeds 511") {
		t.Errorf("169 APP entries: %v, want the TLV limit", err)
	}
	if err := a.Set(Advert{Local: app(169)}, t0.Add(time.Second)); err == nil {
		t.Errorf("Set accepted 169 APP entries")
	}
	big := cfg
	big.SystemName, big.SystemDesc = strings.Repeat("n", 500), strings.Repeat("d", 500)
	b, err := New(big, Advert{Willing: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(Advert{Local: app(168)}); err == nil || !strings.Contains(err.Error(), "more than the 1500") {
		t.Errorf("an LLDPDU over 1500 bytes: %v", err)
	}
	// The refused Set changed nothing: the same frame goes out.
	after, ok := a.Due(t0.Add(time.Hour))
	if !ok || string(after) != string(before) {
		t.Errorf("after a refused Set the agent sends another frame")
	}
}

// TestTxCredit: twenty changes in 250 ms put TxCreditMax LLDPDUs on the
// wire at once and the rest wait for the credit that comes back once a
// second (IEEE Std 802.1AB-2016, 9.2.5 txCredit, txCreditMax); the last
// change is sent, none is lost.
func TestTxCredit(t *testing.T) {
	a, err := New(Config{Ifname: "veth0", MAC: cfg.MAC, TxInterval: 30 * time.Second}, Advert{Willing: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var sent []time.Duration
	var last []byte
	tick := func(now time.Time) {
		if f, ok := a.Due(now); ok {
			sent = append(sent, now.Sub(t0))
			last = f
		}
	}
	for i := range 20 {
		now := t0.Add(time.Duration(i) * 12 * time.Millisecond)
		p := DefaultLocal()
		p.ETS.TCBandwidth = [8]uint8{uint8(100 - i), uint8(i)}
		if err := a.Set(Advert{Willing: true, Local: p}, now); err != nil {
			t.Fatal(err)
		}
		tick(now)
	}
	if len(sent) != TxCreditMax {
		t.Fatalf("%d LLDPDUs in 250 ms, want %d: %v", len(sent), TxCreditMax, sent)
	}
	if next := a.Next(); next != t0.Add(time.Second) {
		t.Errorf("with no credit left, the next LLDPDU at %v, want 1s (the next credit)", next.Sub(t0))
	}
	for now := t0.Add(250 * time.Millisecond); !now.After(t0.Add(10 * time.Second)); now = now.Add(10 * time.Millisecond) {
		if !now.Before(a.Next()) {
			tick(now)
		}
	}
	want := []time.Duration{0, 12 * time.Millisecond, 24 * time.Millisecond, 36 * time.Millisecond, 48 * time.Millisecond,
		time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("transmissions (-want +got):\n%s", diff)
	}
	if e := parse(t, last).ETS(); e == nil || e.Bandwidth[1] != 19 {
		t.Errorf("the last LLDPDU sent advertises %+v, want the last change (TC1 19%%)", e)
	}
}
