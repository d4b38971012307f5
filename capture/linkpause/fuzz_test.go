// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeReply lays r out as pause_fill_reply would (test only: the
// fixtures are written by hand, this serves the round trip of
// FuzzDecodeReply).
func encodeReply(r *reply) []byte {
	var hdr []byte
	if r.Ifindex != 0 {
		hdr = appendAttr(hdr, ethtoolAHeaderDevIndex, binary.NativeEndian.AppendUint32(nil, uint32(r.Ifindex)))
	}
	if r.Ifname != "" {
		hdr = appendAttr(hdr, ethtoolAHeaderDevName, cString(r.Ifname))
	}
	b := appendAttr(nil, nlaFNested|ethtoolAPauseHeader, hdr)
	for _, s := range []struct {
		typ uint16
		st  State
	}{{ethtoolAPauseAutoneg, r.Settings.Autoneg}, {ethtoolAPauseRX, r.Settings.RX}, {ethtoolAPauseTX, r.Settings.TX}} {
		if s.st.Known() {
			v := byte(0)
			if s.st == On {
				v = 1
			}
			b = appendAttr(b, s.typ, []byte{v})
		}
	}
	if r.HasStats {
		var st []byte
		for _, c := range []struct {
			typ uint16
			v   *uint64
		}{{ethtoolAPauseStatTxFrames, r.Stats.TxFrames}, {ethtoolAPauseStatRxFrames, r.Stats.RxFrames}} {
			if c.v != nil {
				st = appendAttr(st, c.typ, binary.NativeEndian.AppendUint64(nil, *c.v))
			}
		}
		b = appendAttr(b, nlaFNested|ethtoolAPauseStats, st)
	}
	return b
}

// FuzzDecodeReply feeds arbitrary attributes (what follows struct
// genlmsghdr in a PAUSE_GET reply) to the decoder. It must never panic; an
// error must wrap ErrMalformed and come with no reply; a decoded reply must
// survive an encode/decode round trip, and its Pause must never claim a
// setting or counter the bytes did not hold. Seeds: the fixtures and
// testdata/fuzz/FuzzDecodeReply.
func FuzzDecodeReply(f *testing.F) {
	for _, r := range [][]byte{replyStats, replyNoStatsOp, replyPlain, replyPadded} {
		f.Add(r[genlHdrLen:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeReply(b)
		if err != nil {
			if r != nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("decodeReply = %+v, %v; want nil and ErrMalformed", r, err)
			}
			return
		}
		again, err := decodeReply(encodeReply(r))
		if err != nil {
			t.Fatalf("decoding the re-encoded reply: %v", err)
		}
		if diff := cmp.Diff(r, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if !r.HasStats && (r.Stats.TxFrames != nil || r.Stats.RxFrames != nil) {
			t.Fatalf("counters without a stats nest: %+v", r.Stats)
		}
		p, err := r.pause(r.Ifname, true)
		if err != nil || p == nil {
			t.Fatalf("pause(%q): %+v, %v", r.Ifname, p, err)
		}
		if (p.Reason == "") != (p.Settings.Autoneg.Known() && p.Settings.RX.Known() && p.Settings.TX.Known() &&
			p.Stats.TxFrames != nil && p.Stats.RxFrames != nil) {
			t.Fatalf("Reason %q does not match what is known: %+v", p.Reason, p)
		}
	})
}
