// SPDX-License-Identifier: Apache-2.0

package cee

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

var allFeatures = []Feature{FeaturePG, FeaturePFC, FeatureApp}

// An op is one call on a Control; do returns what the call reported (false
// for Expired).
type op struct {
	name string
	do   func(*Control) bool
}

func local(fs ...Feature) op {
	return op{fmt.Sprintf("LocalChange%v", fs), func(c *Control) bool { return c.LocalChange(fs...) }}
}

// recv receives a version 0/0 Control sub-TLV with the peer's SeqNo and AckNo.
func recv(seq, ack uint32) op { return recvCtl(ctl(seq, ack)) }

func recvCtl(p lldp.CEEControl) op {
	return op{fmt.Sprintf("Received(%+v)", p), func(c *Control) bool { return c.Received(&p) }}
}

var (
	recvNil = op{"Received(nil)", func(c *Control) bool { return c.Received(nil) }}
	expire  = op{"Expired", func(c *Control) bool { c.Expired(); return false }}
)

func ctl(seq, ack uint32) lldp.CEEControl { return lldp.CEEControl{SeqNo: seq, AckNo: ack} }

// Synced flags in the order PG, PFC, App.
var (
	all  = [3]bool{true, true, true}
	none = [3]bool{}
)

// An obs is what a step observes after its op.
type obs struct {
	Send   bool
	Sent   lldp.CEEControl
	Synced [3]bool
}

type step struct {
	op
	want obs
}

func s(o op, send bool, sent lldp.CEEControl, synced [3]bool) step {
	return step{o, obs{send, sent, synced}}
}

func observe(c *Control, send bool) obs {
	o := obs{Send: send, Sent: c.Sent()}
	for i, f := range allFeatures {
		o.Synced[i] = c.Synced(f)
	}
	return o
}

// checkWaiting fails unless Waiting is "" exactly for the Synced features.
func checkWaiting(t *testing.T, c *Control, where string) {
	t.Helper()
	for _, f := range append(allFeatures, numFeatures) {
		if w := c.Waiting(f); (w == "") != c.Synced(f) {
			t.Errorf("%s: Synced(%v) = %v but Waiting = %q", where, f, c.Synced(f), w)
		}
	}
}

func run(t *testing.T, c *Control, steps []step) {
	t.Helper()
	for i, st := range steps {
		where := fmt.Sprintf("step %d %s", i, st.name)
		if diff := cmp.Diff(st.want, observe(c, st.do(c))); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", where, diff)
		}
		checkWaiting(t, c, where)
	}
}

// synced1 returns the steps that take a New Control to every feature sent
// with SeqNo 1 and acknowledged by a peer sending SeqNo 1.
func synced1() []step {
	return []step{
		s(local(allFeatures...), true, ctl(1, 0), none),
		s(recv(1, 1), true, ctl(1, 1), all),
	}
}

func TestControl(t *testing.T) {
	tests := []struct {
		name  string
		start func() *Control // nil: New
		steps []step
		// waiting, when set, is Waiting for PG, PFC, App after the last step.
		waiting []string
	}{
		{
			// lldpad: the switch sends SeqNo 1 AckNo 0, lldpad answers
			// "SeqNo = 1 AckNo = 1", the switch acknowledges.
			name: "handshake from nothing, advertisement first",
			steps: []step{
				s(op{"Sent after New", func(*Control) bool { return false }}, false, ctl(0, 0), all),
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recv(1, 1), false, ctl(1, 1), all),
				s(recv(1, 1), false, ctl(1, 1), all),
			},
		},
		{
			name: "handshake from nothing, peer first",
			steps: []step{
				s(recv(1, 0), true, ctl(0, 1), all),
				s(local(allFeatures...), true, ctl(1, 1), none),
				s(recv(1, 1), false, ctl(1, 1), all),
			},
		},
		{
			// As a real CEE switch's capture shows one: a switch at SeqNo 3
			// that acknowledged 2 of ours.
			name: "handshake with a switch already at SeqNo 3",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(3, 0), true, ctl(1, 3), none),
				s(recv(3, 1), false, ctl(1, 3), all),
				s(recv(4, 1), true, ctl(1, 4), all),
			},
		},
		{
			name: "two quick changes: the second waits, then goes out as one new SeqNo",
			steps: append(synced1(),
				s(local(FeaturePFC), true, ctl(2, 1), [3]bool{true, false, true}),
				s(local(FeaturePFC), false, ctl(2, 1), [3]bool{true, false, true}),
				s(local(FeatureApp), false, ctl(2, 1), [3]bool{true, false, false}),
				s(recv(1, 2), true, ctl(3, 1), [3]bool{true, false, false}),
				s(recv(1, 3), false, ctl(3, 1), all),
			),
		},
		{
			name: "a change to another feature folds into the next SeqNo",
			steps: append(synced1(),
				s(local(FeaturePG), true, ctl(2, 1), [3]bool{false, true, true}),
				s(local(FeaturePFC), false, ctl(2, 1), [3]bool{false, false, true}),
				s(recv(1, 2), true, ctl(3, 1), [3]bool{true, false, true}),
				s(recv(1, 3), false, ctl(3, 1), all),
			),
		},
		{
			name: "waiting reasons of a folded change",
			steps: append(synced1(),
				s(local(FeaturePG), true, ctl(2, 1), [3]bool{false, true, true}),
				s(local(FeaturePFC), false, ctl(2, 1), [3]bool{false, false, true}),
			),
			waiting: []string{
				"waiting for the peer to acknowledge sequence 2 (peer acknowledged 1)",
				"change waits for the peer to acknowledge sequence 2 first (peer acknowledged 1)",
				"",
			},
		},
		{
			name: "peer restart: its AckNo drops to 0",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(4, 1), true, ctl(1, 4), all),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recv(1, 1), false, ctl(1, 1), all),
			},
		},
		{
			name: "peer restart with the same SeqNo is acknowledged again",
			steps: append(synced1(),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recv(1, 0), false, ctl(1, 1), none),
				s(recv(1, 1), false, ctl(1, 1), all),
			),
			waiting: []string{"", "", ""},
		},
		{
			name: "peer restart after our SeqNo wrapped",
			start: func() *Control {
				c := New()
				c.seq, c.myAck = 0xffffffff, 0xffffffff
				return c
			},
			steps: []step{
				s(local(FeaturePG), true, ctl(1, 0), [3]bool{false, true, true}),
				s(recv(1, 1), true, ctl(1, 1), all),
				s(recv(2, 0), true, ctl(1, 2), [3]bool{false, true, true}),
				s(recv(2, 1), false, ctl(1, 2), all),
			},
		},
		{
			name: "peer restart that has already acknowledged us",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(9, 1), true, ctl(1, 9), all),
				s(recv(1, 1), true, ctl(1, 1), all),
			},
		},
		{
			name: "peer restart while a change is outstanding",
			steps: append(synced1(),
				s(local(FeaturePG), true, ctl(2, 1), [3]bool{false, true, true}),
				s(recv(1, 0), true, ctl(2, 1), none),
				s(local(FeaturePFC), false, ctl(2, 1), none),
				s(recv(1, 2), true, ctl(3, 1), [3]bool{true, false, true}),
				s(recv(1, 3), false, ctl(3, 1), all),
			),
		},
		{
			name: "expiry resets, and a new peer acknowledges SeqNo 1",
			steps: append(synced1(),
				s(local(FeaturePG), true, ctl(2, 1), [3]bool{false, true, true}),
				s(recv(1, 2), false, ctl(2, 1), all),
				s(expire, false, ctl(1, 0), none),
				s(recv(5, 0), true, ctl(1, 5), none),
				s(recv(5, 1), false, ctl(1, 5), all),
			),
		},
		{
			name: "expiry with nothing advertised",
			steps: []step{
				s(recv(3, 0), true, ctl(0, 3), all),
				s(expire, false, ctl(0, 0), all),
				s(recv(3, 0), true, ctl(0, 3), all),
			},
		},
		{
			name: "expiry, then a stale AckNo past our SeqNo acknowledges nothing",
			steps: append(synced1(),
				s(local(FeaturePG), true, ctl(2, 1), [3]bool{false, true, true}),
				s(recv(1, 2), false, ctl(2, 1), all),
				s(expire, false, ctl(1, 0), none),
				s(recv(1, 2), true, ctl(1, 1), none),
				s(local(FeaturePFC), false, ctl(1, 1), none),
				s(recv(1, 1), true, ctl(2, 1), [3]bool{true, false, true}),
				s(recv(1, 2), false, ctl(2, 1), all),
			),
		},
		{
			name: "waiting reasons after expiry",
			steps: append(synced1(),
				s(expire, false, ctl(1, 0), none),
			),
			waiting: []string{
				"waiting for the peer to acknowledge sequence 1 (no CEE peer yet)",
				"waiting for the peer to acknowledge sequence 1 (no CEE peer yet)",
				"waiting for the peer to acknowledge sequence 1 (no CEE peer yet)",
			},
		},
		{
			name: "a peer that never acknowledges",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recv(1, 0), false, ctl(1, 1), none),
				s(recv(2, 0), true, ctl(1, 2), none),
				s(local(FeaturePFC), false, ctl(1, 2), none),
				s(recv(2, 0), false, ctl(1, 2), none),
			},
			waiting: []string{
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)",
				"change waits for the peer to acknowledge sequence 1 first (peer acknowledged 0)",
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)",
			},
		},
		{
			name: "a peer stuck on an AckNo we never sent",
			steps: []step{
				s(recv(7, 5), true, ctl(0, 7), all),
				s(local(allFeatures...), false, ctl(0, 7), none),
				s(recv(7, 5), false, ctl(0, 7), none),
			},
			waiting: []string{
				"change waits for the peer to acknowledge sequence 0 first (peer acknowledged 5)",
				"change waits for the peer to acknowledge sequence 0 first (peer acknowledged 5)",
				"change waits for the peer to acknowledge sequence 0 first (peer acknowledged 5)",
			},
		},
		{
			name: "our SeqNo wraps from 0xffffffff to 1, skipping 0",
			start: func() *Control {
				c := New()
				c.seq, c.myAck = 0xfffffffe, 0xfffffffe
				return c
			},
			steps: []step{
				s(local(FeaturePG), true, ctl(0xffffffff, 0), [3]bool{false, true, true}),
				s(recv(7, 0xffffffff), true, ctl(0xffffffff, 7), all),
				s(local(FeaturePFC), true, ctl(1, 7), [3]bool{true, false, true}),
				s(recv(7, 1), false, ctl(1, 7), all),
			},
		},
		{
			name: "the peer's SeqNo wraps and is acknowledged",
			steps: append(synced1(),
				s(recv(0xffffffff, 1), true, ctl(1, 0xffffffff), all),
				s(recv(0, 1), true, ctl(1, 0), all),
				s(recv(0, 1), false, ctl(1, 0), all),
			),
		},
		{
			name: "Received(nil) acknowledges nothing",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recvNil, false, ctl(1, 1), none),
			},
			waiting: []string{
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0; its last CEE TLV had no Control sub-TLV)",
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0; its last CEE TLV had no Control sub-TLV)",
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0; its last CEE TLV had no Control sub-TLV)",
			},
		},
		{
			name: "Received(nil) from the start, then a Control",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recvNil, false, ctl(1, 0), none),
				s(recvNil, false, ctl(1, 0), none),
				s(recv(2, 1), true, ctl(1, 2), all),
				s(recvNil, false, ctl(1, 2), all),
				s(recv(2, 1), false, ctl(1, 2), all),
			},
		},
		{
			name: "Received(nil) then the same Control again clears the reason",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recv(1, 0), true, ctl(1, 1), none),
				s(recvNil, false, ctl(1, 1), none),
				s(recv(1, 0), false, ctl(1, 1), none),
			},
			waiting: []string{
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)",
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)",
				"waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)",
			},
		},
		{
			name: "peer Oper_Version differs: wait for the peer to synch",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recvCtl(lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1, AckNo: 1}), false, ctl(1, 0), none),
			},
			waiting: []string{
				"waiting for the peer to use Oper_Version 0 (peer sends Oper_Version 1)",
				"waiting for the peer to use Oper_Version 0 (peer sends Oper_Version 1)",
				"waiting for the peer to use Oper_Version 0 (peer sends Oper_Version 1)",
			},
		},
		{
			name: "peer Oper_Version comes into line",
			steps: []step{
				s(local(allFeatures...), true, ctl(1, 0), none),
				s(recvCtl(lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1, AckNo: 0}), false, ctl(1, 0), none),
				s(recvCtl(lldp.CEEControl{OperVersion: 0, MaxVersion: 1, SeqNo: 1, AckNo: 1}), true, ctl(1, 1), all),
				s(recvCtl(lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1, AckNo: 1}), false, ctl(1, 1), none),
				s(recvCtl(lldp.CEEControl{OperVersion: 0, MaxVersion: 1, SeqNo: 1, AckNo: 1}), false, ctl(1, 1), all),
			},
		},
		{
			name:  "our Oper_Version follows a lower peer Max_Version",
			start: func() *Control { return newControl(1) },
			steps: []step{
				s(local(allFeatures...), true, lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1}, none),
				s(recv(1, 0), true, lldp.CEEControl{OperVersion: 0, MaxVersion: 1, SeqNo: 1, AckNo: 1}, none),
				s(recv(1, 1), false, lldp.CEEControl{OperVersion: 0, MaxVersion: 1, SeqNo: 1, AckNo: 1}, all),
				s(expire, false, lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1}, none),
			},
		},
		{
			name:  "Oper_Version change is sent even while the peer's differs",
			start: func() *Control { return newControl(2) },
			steps: []step{
				s(recvCtl(lldp.CEEControl{OperVersion: 0, MaxVersion: 1, SeqNo: 1}), true,
					lldp.CEEControl{OperVersion: 1, MaxVersion: 2}, none),
			},
			waiting: []string{
				"waiting for the peer to use Oper_Version 1 (peer sends Oper_Version 0)",
				"waiting for the peer to use Oper_Version 1 (peer sends Oper_Version 0)",
				"waiting for the peer to use Oper_Version 1 (peer sends Oper_Version 0)",
			},
		},
		{
			name: "features that are not constants are ignored",
			steps: []step{
				s(local(), false, ctl(0, 0), all),
				s(local(numFeatures, 200), false, ctl(0, 0), all),
				s(local(FeatureApp, 9), true, ctl(1, 0), [3]bool{true, true, false}),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			if tt.start != nil {
				c = tt.start()
			}
			run(t, c, tt.steps)
			if tt.waiting == nil {
				return
			}
			var got []string
			for _, f := range allFeatures {
				got = append(got, c.Waiting(f))
			}
			if diff := cmp.Diff(tt.waiting, got); diff != "" {
				t.Errorf("Waiting (-want +got)\n%s", diff)
			}
		})
	}
}

func TestAcked(t *testing.T) {
	tests := []struct {
		seq, featSeq, ack uint32
		want              bool
	}{
		{seq: 3, featSeq: 3, ack: 3, want: true},
		{seq: 3, featSeq: 3, ack: 2, want: false},
		{seq: 3, featSeq: 3, ack: 4, want: false}, // never sent
		{seq: 5, featSeq: 3, ack: 4, want: true},  // passed
		{seq: 5, featSeq: 3, ack: 5, want: true},
		{seq: 5, featSeq: 3, ack: 6, want: false},
		{seq: 1, featSeq: 0xffffffff, ack: 0xffffffff, want: true},
		{seq: 1, featSeq: 0xffffffff, ack: 1, want: true}, // passed, across the wrap
		{seq: 1, featSeq: 0xffffffff, ack: 0, want: false},
		{seq: 1, featSeq: 0xffffffff, ack: 2, want: false},
		{seq: 1, featSeq: 0xffffffff, ack: 0xfffffffe, want: false},
		{seq: 0, featSeq: 0, ack: 0, want: false},
	}
	for _, tt := range tests {
		c := &Control{seq: tt.seq}
		if got := c.acked(tt.ack, tt.featSeq); got != tt.want {
			t.Errorf("SeqNo %#x: acked(AckNo %#x, FeatureSeqNo %#x) = %v, want %v", tt.seq, tt.ack, tt.featSeq, got, tt.want)
		}
	}
}

func TestNextSeq(t *testing.T) {
	for _, tt := range []struct{ in, want uint32 }{
		{0, 1}, {1, 2}, {0xfffffffe, 0xffffffff}, {0xffffffff, 1},
	} {
		if got := nextSeq(tt.in); got != tt.want {
			t.Errorf("nextSeq(%#x) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestFeature(t *testing.T) {
	var got []string
	for _, f := range []Feature{FeaturePG, FeaturePFC, FeatureApp, 3, 255} {
		got = append(got, f.String())
	}
	want := []string{"PG", "PFC", "App", "feature 3", "feature 255"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("String (-want +got)\n%s", diff)
	}
	c := New()
	if c.Synced(3) {
		t.Error("Synced(feature 3) = true, want false")
	}
	if got, want := c.Waiting(3), "unknown CEE feature 3"; got != want {
		t.Errorf("Waiting(feature 3) = %q, want %q", got, want)
	}
}

// The engine must not allocate for an LLDPDU identical to the peer's last.
func TestReceivedSameDoesNotAllocate(t *testing.T) {
	for _, tt := range []struct {
		name string
		peer lldp.CEEControl
	}{
		{"synced", ctl(1, 1)},
		{"unacknowledged", ctl(1, 0)},
		{"version mismatch", lldp.CEEControl{OperVersion: 1, MaxVersion: 1, SeqNo: 1, AckNo: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			c.LocalChange(allFeatures...)
			first := tt.peer
			c.Received(&first)
			before := *c
			same := tt.peer // a different pointer to an equal value
			var send bool
			allocs := testing.AllocsPerRun(100, func() {
				send = send || c.Received(&same)
				_ = c.Sent()
				_ = c.Synced(FeaturePFC)
			})
			if allocs != 0 {
				t.Errorf("Received of the same Control: %v allocations, want 0", allocs)
			}
			if send {
				t.Error("Received of the same Control returned true")
			}
			if diff := cmp.Diff(before, *c, cmp.AllowUnexported(Control{}, feature{})); diff != "" {
				t.Errorf("Received of the same Control changed the state (-before +after)\n%s", diff)
			}
		})
	}
}
