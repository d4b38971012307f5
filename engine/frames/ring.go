// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"bytes"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The default bounds of a Ring (NewRing with a zero Limits).
const (
	// DefaultRecords is how many records a Ring keeps: at the 30 s
	// transmit interval of IEEE Std 802.1AB-2016 (msgTxInterval, 9.2.5.7)
	// an hour of four ports' LLDPDUs in both directions, or the first
	// minute of a fast transmission storm.
	DefaultRecords = 4096
	// DefaultBytes bounds the LLDPDU bytes the records hold: 4 MiB, a
	// full ring of 1 KiB LLDPDUs (an LLDPDU of a DCBX switch is 150 to
	// 400 bytes; one fills at most an Ethernet payload, 1500 bytes).
	DefaultBytes = 4 << 20
	// DefaultSenders is how many senders' previous LLDPDUs are kept to
	// tell what changed.
	DefaultSenders = 256
)

// Limits bound a Ring. A zero field takes its default.
type Limits struct {
	Records int // records kept (DefaultRecords)
	Bytes   int // LLDPDU bytes the records hold (DefaultBytes)
	Senders int // senders whose previous LLDPDU is kept (DefaultSenders)
}

// orDefaults fills the zero fields of l with the defaults.
func (l Limits) orDefaults() Limits {
	if l.Records <= 0 {
		l.Records = DefaultRecords
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	if l.Senders <= 0 {
		l.Senders = DefaultSenders
	}
	return l
}

// A Frame is one captured Ethernet frame handed to a Tracker or a Ring.
// Data is borrowed: what is kept of it is copied.
type Frame struct {
	// At is the frame's time on the run's clock (capture time in a
	// replay).
	At time.Time
	// Interface names the interface it was captured on.
	Interface string
	// Outgoing marks a frame this host sent (its agent's LLDPDU); the
	// others were received.
	Outgoing bool
	// Data is the whole Ethernet frame, from the destination address.
	Data []byte
}

// A Record is one LLDPDU of a run. Its slices are shared and must not
// be modified.
type Record struct {
	// Number is the LLDPDU's place in the run: 1 for the first LLDP
	// frame the Tracker was given. Frames of other EtherTypes are not
	// counted.
	Number uint64
	// At, Interface and Outgoing are the Frame's.
	At        time.Time
	Interface string
	Outgoing  bool
	// Header is the frame's Ethernet header: source and destination
	// addresses and the outermost 802.1Q tag.
	Header lldp.EthernetHeader
	// LLDPDU is the frame's payload after EtherType 0x88cc (IEEE Std
	// 802.1AB-2016, 7.2), Ethernet padding included, as the engine keeps
	// a peer's last one.
	LLDPDU []byte
	// Changes says what differs from the sender's previous LLDPDU, in
	// words, one change an entry (Changes). Strings from the wire are as
	// sent.
	Changes []string
	// Err is why the codec rejected the LLDPDU (IEEE Std 802.1AB-2016,
	// 9.2.7.7.2: the LLDPDU is discarded), "" for one it accepted.
	Err string
}

// Shared change lists of the LLDPDUs whose record does not allocate.
var (
	identical          = []string{ChangeIdentical}
	identicalMalformed = []string{ChangeIdentical + " (malformed)"}
)

// A senderKey names an LLDP agent as its receiver tells it apart.
type senderKey struct {
	iface    string
	src, dst lldp.MAC
}

// A sender is what the Tracker keeps of a sender: its previous LLDPDU
// (never modified: records share it), the codec's error on it, and when
// it was last heard (the Tracker's count).
type sender struct {
	raw  []byte
	err  string
	seen uint64
}

// A Tracker turns frames into Records: it numbers the LLDP frames and
// keeps each sender's previous LLDPDU to say what changed. The zero value
// is not ready: use NewTracker.
type Tracker struct {
	max     int
	n       uint64
	senders map[senderKey]*sender
}

// NewTracker returns a Tracker that keeps the previous LLDPDU of up to
// senders senders (DefaultSenders when 0 or less).
func NewTracker(senders int) *Tracker {
	if senders <= 0 {
		senders = DefaultSenders
	}
	return &Tracker{max: senders, senders: map[senderKey]*sender{}}
}

// Next returns the record of f, and false for a frame that is not an
// LLDP frame (another EtherType, or too short for its Ethernet header
// and tags: lldp.SplitFrame's error), which is not numbered. A frame
// whose LLDPDU the codec rejects is recorded, its error in Err. For an
// LLDPDU identical to its sender's previous one Next does not allocate.
func (t *Tracker) Next(f Frame) (Record, bool) {
	hdr, pdu, err := lldp.SplitFrame(f.Data)
	if err != nil {
		return Record{}, false
	}
	t.n++
	rec := Record{Number: t.n, At: f.At, Interface: f.Interface, Outgoing: f.Outgoing, Header: hdr}
	k := senderKey{iface: f.Interface, src: hdr.Src, dst: hdr.Dst}
	s := t.senders[k]
	if s != nil && bytes.Equal(s.raw, pdu) {
		s.seen = t.n
		rec.LLDPDU, rec.Err, rec.Changes = s.raw, s.err, identical
		if s.err != "" {
			rec.Changes = identicalMalformed
		}
		return rec, true
	}
	cur := slices.Clone(pdu)
	du, perr := lldp.Parse(cur)
	if perr != nil {
		rec.Err = perr.Error()
	}
	if s == nil {
		rec.Changes = firstChanges(du, perr)
		s = t.add(k)
	} else {
		rec.Changes = changes(s.raw, s.err != "", cur, du, perr)
	}
	s.raw, s.err, s.seen = cur, rec.Err, t.n
	rec.LLDPDU = cur
	return rec, true
}

// add adds the sender k, forgetting the one heard least recently when
// the table is full.
func (t *Tracker) add(k senderKey) *sender {
	if len(t.senders) >= t.max {
		var oldest senderKey
		var at uint64
		first := true
		for key, s := range t.senders {
			if first || s.seen < at {
				oldest, at, first = key, s.seen, false
			}
		}
		delete(t.senders, oldest)
	}
	s := &sender{}
	t.senders[k] = s
	return s
}

// Senders returns how many senders the Tracker keeps a previous LLDPDU
// of.
func (t *Tracker) Senders() int { return len(t.senders) }

// A Ring keeps the last records of a run within its Limits, oldest
// first. The zero value is not ready: use NewRing.
type Ring struct {
	lim   Limits
	tr    *Tracker
	recs  []Record // preallocated: lim.Records slots
	head  int      // the oldest record's slot
	n     int      // records held
	bytes int      // the LLDPDU bytes they hold
	// dropped counts the records that went for the bounds.
	dropped uint64
}

// NewRing returns an empty ring bounded by l (a zero field: its
// default). Its slots are allocated here, once.
func NewRing(l Limits) *Ring {
	l = l.orDefaults()
	return &Ring{lim: l, tr: NewTracker(l.Senders), recs: make([]Record, l.Records)}
}

// Limits returns the ring's bounds, defaults filled in.
func (r *Ring) Limits() Limits { return r.lim }

// Add records f when it is an LLDP frame (Tracker.Next), dropping the
// oldest records for the bounds: the newest is always kept, even alone
// beyond the byte bound. It returns the record and whether f was one.
// For an LLDPDU identical to its sender's previous one Add does not
// allocate.
func (r *Ring) Add(f Frame) (Record, bool) {
	rec, ok := r.tr.Next(f)
	if !ok {
		return rec, false
	}
	for r.n > 0 && (r.n == len(r.recs) || r.bytes+len(rec.LLDPDU) > r.lim.Bytes) {
		r.drop()
	}
	r.recs[(r.head+r.n)%len(r.recs)] = rec
	r.n++
	r.bytes += len(rec.LLDPDU)
	return rec, true
}

// drop forgets the oldest record.
func (r *Ring) drop() {
	r.bytes -= len(r.recs[r.head].LLDPDU)
	r.recs[r.head] = Record{}
	r.head = (r.head + 1) % len(r.recs)
	r.n--
	r.dropped++
}

// Len returns how many records the ring holds.
func (r *Ring) Len() int { return r.n }

// Bytes returns the LLDPDU bytes the ring's records hold (a record that
// shares its sender's previous bytes counts them again).
func (r *Ring) Bytes() int { return r.bytes }

// Dropped returns how many records went for the bounds since the ring
// was made or reset.
func (r *Ring) Dropped() uint64 { return r.dropped }

// Total returns how many LLDPDUs the ring was given since it was made or
// reset: the Number of the last one.
func (r *Ring) Total() uint64 { return r.tr.n }

// At returns the i-th record held, 0 the oldest.
func (r *Ring) At(i int) Record { return r.recs[(r.head+i)%len(r.recs)] }

// Since appends to dst the records held whose Number is greater than
// after, oldest first, and returns it: Since(nil, 0) is every record.
func (r *Ring) Since(dst []Record, after uint64) []Record {
	for i := range r.n {
		if rec := r.At(i); rec.Number > after {
			dst = append(dst, rec)
		}
	}
	return dst
}

// Find returns the record numbered n, if the ring still holds it.
func (r *Ring) Find(n uint64) (Record, bool) {
	if r.n == 0 {
		return Record{}, false
	}
	first := r.At(0).Number
	if n < first || n >= first+uint64(r.n) {
		return Record{}, false
	}
	return r.At(int(n - first)), true
}

// Reset empties the ring and forgets every sender: the run starts
// afresh (a replay's seek re-runs the file from its start).
func (r *Ring) Reset() {
	clear(r.recs)
	r.head, r.n, r.bytes, r.dropped = 0, 0, 0, 0
	r.tr = NewTracker(r.lim.Senders)
}
