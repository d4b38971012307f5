// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"time"
)

// Freshness grades how recently a peer was heard, relative to its own
// transmit interval: a peer sending every second with a TTL of 4 s is not
// in trouble at 3 s left (it missed nothing), one that missed several
// LLDPDUs is, whatever its TTL.
type Freshness uint8

// The grades of Freshness.
const (
	// FreshnessFresh: at most one LLDPDU missed (a lost frame happens).
	FreshnessFresh Freshness = iota
	// FreshnessLate: two LLDPDUs missed.
	FreshnessLate
	// FreshnessStale: three or more missed; the peer-stale diagnostic
	// says so too.
	FreshnessStale
)

var freshnessNames = [...]string{"fresh", "late", "stale"}

// String returns "fresh", "late" or "stale".
func (f Freshness) String() string {
	if int(f) < len(freshnessNames) {
		return freshnessNames[f]
	}
	return "unknown"
}

// MarshalText encodes the grade as its name.
func (f Freshness) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText decodes a name MarshalText writes.
func (f *Freshness) UnmarshalText(b []byte) error {
	for i, n := range freshnessNames {
		if n == string(b) {
			*f = Freshness(i)
			return nil
		}
	}
	return fmt.Errorf("unknown freshness %q", b)
}

// txInterval is the interval a peer is expected to send at: what its TTL
// implies (IEEE Std 802.1AB-2016 9.2.5.22 and 10.5.4.1: TTL =
// msgTxInterval × msgTxHold + 1, msgTxHold 4 by default, so TTL 121 is
// every 30 s), or the gap between its last two LLDPDUs where that is
// longer (at most its TTL: a longer gap would have expired it); at least
// a second, the smallest interval LLDP agents use. Not the gap alone: fast
// transmission (9.2.5.5, txFast: msgFastTx 1 s for txFastInit LLDPDUs
// after a new neighbour) sends faster for a while, and a peer that did
// fast start and then sends every 30 s has missed nothing 9 s later.
func txInterval(ttl time.Duration, gap time.Duration) time.Duration {
	implied := max(time.Second, ((ttl - time.Second) / 4).Round(time.Second))
	if gap > 0 {
		return max(implied, min(gap, ttl))
	}
	return implied
}

// missed returns how many LLDPDUs a peer sending every interval has missed
// after silent: a quarter interval of jitter, then one per interval (one
// at 1.25 intervals, three at 3.25).
func missed(silent, interval time.Duration) int {
	if interval <= 0 || silent < interval+interval/4 {
		return 0
	}
	return int((silent - interval/4) / interval)
}

// freshnessOf grades a peer silent for silent that sends every interval.
func freshnessOf(silent, interval time.Duration) Freshness {
	switch m := missed(silent, interval); {
	case m >= 3:
		return FreshnessStale
	case m == 2:
		return FreshnessLate
	}
	return FreshnessFresh
}

// FreshnessAt grades the peer at now (a screen's clock between
// snapshots), from its last LLDPDU and its transmit interval: late after
// two missed LLDPDUs, stale after three.
func (p *Peer) FreshnessAt(now time.Time) Freshness {
	return freshnessOf(now.Sub(p.LastSeen), time.Duration(p.TxIntervalMs)*time.Millisecond)
}

// interval is the neighbour's estimated transmit interval (txInterval).
func (n *neighbor) interval() time.Duration {
	var gap time.Duration
	if !n.prevSeen.IsZero() {
		gap = n.lastSeen.Sub(n.prevSeen)
	}
	return txInterval(time.Duration(n.du.TTL)*time.Second, gap)
}

// noteGap records, before an LLDPDU at now refreshes the neighbour, when
// its last one came, if time passed since (a copy of a frame at the same
// instant, such as one heard twice, says nothing of the interval). The
// gap itself is computed only when a snapshot asks (interval): a
// subtraction per frame cost an identical LLDPDU 3 % of its time.
func (n *neighbor) noteGap(now time.Time) {
	if now.After(n.lastSeen) {
		n.prevSeen = n.lastSeen
	}
}
