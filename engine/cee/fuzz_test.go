// SPDX-License-Identifier: Apache-2.0

package cee

import (
	"encoding/binary"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A fuzzReader hands out the input's bytes; past the end it reads zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) u32() uint32 {
	var w [4]byte
	n := copy(w[:], r.b)
	r.b = r.b[n:]
	return binary.BigEndian.Uint32(w[:])
}

// peerFrom builds a peer Control sub-TLV. Bits 2..3 of op pick its SeqNo
// (read from the input, the last peer SeqNo, that plus one, 0xffffffff),
// bits 4..5 its AckNo (read from the input, our SeqNo, 0, our SeqNo-1) and
// bits 6..7 its versions (3: Oper_Version 1, else 0; Max_Version bit 6), so
// that acknowledgements of what we sent and version mismatches are common.
func peerFrom(op byte, r *fuzzReader, c *Control, lastPeerSeq uint32) lldp.CEEControl {
	var p lldp.CEEControl
	switch (op >> 2) & 3 {
	case 0:
		p.SeqNo = r.u32()
	case 1:
		p.SeqNo = lastPeerSeq
	case 2:
		p.SeqNo = lastPeerSeq + 1
	case 3:
		p.SeqNo = 0xffffffff
	}
	ours := c.Sent().SeqNo
	switch (op >> 4) & 3 {
	case 0:
		p.AckNo = r.u32()
	case 1:
		p.AckNo = ours
	case 2:
		p.AckNo = 0
	case 3:
		p.AckNo = ours - 1
	}
	v := op >> 6
	if v == 3 {
		p.OperVersion = 1
	}
	p.MaxVersion = v & 1
	return p
}

// maxSteps bounds the calls one fuzz input makes. Longer runs find nothing
// new (the state is a handful of numbers) and make minimising an
// interesting input, quadratic in its length, take the whole -fuzztime.
const maxSteps = 64

// FuzzControl drives a Control, started at SeqNo = MyAckNo = start with
// nothing advertised (New when start is 0), through random LocalChange,
// Received and Expired calls and checks the handshake's invariants after
// each. The low two bits of each op byte pick the call:
//
//	0: LocalChange of the features in bits 2..5 (bit 5 is Feature(3),
//	   not a constant)
//	1: Received of a Control sub-TLV built from bits 2..7 (see peerFrom)
//	2: Received(nil)
//	3: Expired
//
// The seed corpus is in testdata/fuzz/FuzzControl: the lldpad handshake
// (handshake), quick changes with a peer restart and an expiry
// (changes-restart-expiry), and our and the peer's SeqNo wrapping with a
// version mismatch (wrap-versions).
func FuzzControl(f *testing.F) {
	f.Fuzz(func(t *testing.T, start uint32, ops []byte) {
		c := New()
		c.seq, c.myAck = start, start
		r := &fuzzReader{ops}
		var wantAck, lastPeerSeq uint32
		for step := 0; step < maxSteps && len(r.b) > 0; step++ {
			op := r.b[0]
			r.b = r.b[1:]
			before := *c
			var (
				peer    *lldp.CEEControl
				changed []Feature
			)
			kind := op & 3
			switch kind {
			case 0:
				for i := range Feature(4) {
					if op&(4<<i) != 0 {
						changed = append(changed, i)
					}
				}
				c.LocalChange(changed...)
			case 1:
				p := peerFrom(op, r, c, lastPeerSeq)
				peer = &p
				lastPeerSeq = p.SeqNo
				c.Received(peer)
				// With Max_Version 0 our Oper_Version is always 0; a
				// peer that agrees is acknowledged.
				if p.OperVersion == 0 {
					wantAck = p.SeqNo
				}
			case 2:
				c.Received(nil)
			case 3:
				c.Expired()
				wantAck, lastPeerSeq = 0, 0
			}
			sent := c.Sent()

			// AckNo is the last peer SeqNo taken since the last reset.
			if sent.AckNo != wantAck {
				t.Fatalf("step %d op %#x: AckNo %d, want %d", step, op, sent.AckNo, wantAck)
			}
			if sent.OperVersion != 0 || sent.MaxVersion != 0 {
				t.Fatalf("step %d op %#x: versions %d/%d, want 0/0", step, op, sent.OperVersion, sent.MaxVersion)
			}

			// SeqNo moves by at most one per call, never onto 0, and
			// Expired restarts it at 0 or 1.
			old, seq := before.seq, sent.SeqNo
			if kind == 3 {
				if seq > 1 {
					t.Fatalf("step %d: SeqNo %d after Expired, want 0 or 1", step, seq)
				}
			} else if seq != old && seq != nextSeq(old) {
				t.Fatalf("step %d op %#x: SeqNo %d -> %d", step, op, old, seq)
			}

			for i := range c.feat {
				was, now := before.feat[i], c.feat[i]
				fe := Feature(i)
				// A feature becomes synced only on a peer AckNo at
				// or past the SeqNo its change went out with.
				if was.state != featSynced && now.state == featSynced {
					if kind != 1 || peer.AckNo == 0 || was.state != featSent || now.seq != was.seq ||
						int32(peer.AckNo-was.seq) < 0 || peer.AckNo-was.seq > before.seq-was.seq {
						t.Fatalf("step %d op %#x: %v synced at SeqNo %d by %+v (was %+v)", step, op, fe, now.seq, peer, was)
					}
				}
				// Waiting features went out with our current SeqNo,
				// which the peer has not acknowledged; pending ones
				// wait for the peer to acknowledge it.
				switch now.state {
				case featSent:
					if now.seq != c.seq || c.seq == c.myAck || c.seq == 0 {
						t.Fatalf("step %d op %#x: %v sent at %d, SeqNo %d, MyAckNo %d", step, op, fe, now.seq, c.seq, c.myAck)
					}
				case featPending:
					if c.seq == c.myAck {
						t.Fatalf("step %d op %#x: %v pending with SeqNo == MyAckNo %d", step, op, fe, c.seq)
					}
				}
			}
			for _, fe := range changed {
				if c.Synced(fe) {
					t.Fatalf("step %d: %v synced right after LocalChange", step, fe)
				}
			}
			for fe := range Feature(numFeatures + 1) {
				if w := c.Waiting(fe); (w == "") != c.Synced(fe) {
					t.Fatalf("step %d: Synced(%v) = %v, Waiting %q", step, fe, c.Synced(fe), w)
				}
			}
		}
	})
}
