// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"
)

// TestFreshness: a peer is graded by its own transmit interval, not by
// the seconds left: with TTL 4 and an LLDPDU every second it is fresh at
// 3 s left and late after two missed LLDPDUs; with TTL 121 every 30 s
// likewise; stale after three (the peer-stale diagnostic at the same
// moment). The interval is the gap between the peer's last two LLDPDUs,
// else TTL / 4.
func TestFreshness(t *testing.T) {
	type probe struct {
		after float64 // seconds after the last LLDPDU
		want  Freshness
	}
	tests := []struct {
		name     string
		ttl      uint16
		every    float64 // seconds between the LLDPDUs sent
		frames   int
		interval time.Duration // the estimate
		probes   []probe
	}{
		{"TTL 4, every 1 s", 4, 1, 3, time.Second, []probe{
			{0, FreshnessFresh}, {1, FreshnessFresh}, {1.9, FreshnessFresh}, // one missed: a lost frame happens
			{2.3, FreshnessLate}, {3.3, FreshnessStale}}},
		{"TTL 121, every 30 s", 121, 30, 3, 30 * time.Second, []probe{
			{29, FreshnessFresh}, {50, FreshnessFresh}, {68, FreshnessLate}, {98, FreshnessStale}}},
		{"TTL 120, one LLDPDU: TTL / 4", 120, 0, 1, 30 * time.Second, []probe{
			{37, FreshnessFresh}, {68, FreshnessLate}, {98, FreshnessStale}}},
		{"TTL 4, every 3 s: the gap, not TTL / 4", 4, 3, 2, 3 * time.Second, []probe{
			{3.5, FreshnessFresh}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			var last float64
			for i := range tt.frames {
				last = float64(i) * tt.every
				e.Apply(rx(last, frame(t, macA, tt.ttl, pfc3)))
			}
			in, _ := e.Interface("eth0")
			p := in.Peers[0]
			if got := time.Duration(p.TxIntervalMs) * time.Millisecond; got != tt.interval {
				t.Errorf("interval %v, want %v", got, tt.interval)
			}
			var got, want []Freshness
			for _, pr := range tt.probes {
				at := at(last + pr.after)
				want = append(want, pr.want)
				got = append(got, p.FreshnessAt(at))
				// The engine's own snapshot and diagnostic agree.
				if pr.after < float64(tt.ttl) {
					e.Apply(Tick{At: at})
					in, _ := e.Interface("eth0")
					if in.Peers[0].Freshness != pr.want {
						t.Errorf("%.1f s after: snapshot says %v, want %v", pr.after, in.Peers[0].Freshness, pr.want)
					}
					if stale := hasCode(in.Diagnostics, diag.CodePeerStale); stale != (pr.want == FreshnessStale) {
						t.Errorf("%.1f s after (%v): peer-stale %v", pr.after, pr.want, stale)
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FreshnessAt (-want +got):\n%s", diff)
			}
		})
	}
}

// A copy of an LLDPDU at the same instant (heard twice) says nothing of
// the interval.
func TestFreshnessSameInstant(t *testing.T) {
	e := New(Config{})
	f := frame(t, macA, 4, pfc3)
	e.Apply(rx(0, f))
	e.Apply(rx(1, f))
	e.Apply(rx(1, f))
	in, _ := e.Interface("eth0")
	if got := in.Peers[0].TxIntervalMs; got != 1000 {
		t.Errorf("interval %d ms, want 1000", got)
	}
}

// A peer that does 802.1AB fast start (txFast: msgFastTx 1 s) and then
// sends every 30 s with TTL 121 has missed nothing 9 s after its fourth
// LLDPDU: the interval it is judged by is what its TTL implies, not the
// spacing of fast start. At 7737732: "peer-stale … silent for 9s (about 8
// transmit intervals)".
func TestFreshnessAfterFastStart(t *testing.T) {
	e := New(Config{})
	for i := range 4 {
		e.Apply(rx(float64(i), frame(t, macA, 121, etsA, pfc3)))
	}
	for _, tt := range []struct {
		at    float64
		grade Freshness
	}{{12, FreshnessFresh}, {40, FreshnessFresh}, {80, FreshnessLate}, {110, FreshnessStale}} {
		e.Apply(Tick{At: at(tt.at)})
		in, _ := e.Interface("eth0")
		if got := in.Peers[0].Freshness; got != tt.grade {
			t.Errorf("at %gs: %v, want %v (interval %d ms)", tt.at, got, tt.grade, in.Peers[0].TxIntervalMs)
		}
		_, stale := in.Diagnostic(diag.CodePeerStale)
		if stale != (tt.grade == FreshnessStale) {
			t.Errorf("at %gs: peer-stale %v, want %v", tt.at, stale, tt.grade == FreshnessStale)
		}
	}
}
