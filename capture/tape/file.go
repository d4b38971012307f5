// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"errors"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// Description is the if_description of a recording's netlink and host
// interfaces.
const Description = "dcbtop recording, host records format 1 (docs/recording.md)"

// A Sink is where a run's recording goes: a *pcap.Writer.
type Sink interface {
	WritePacket(f capture.Frame, linkType uint16, descr string) error
}

var _ Sink = (*pcap.Writer)(nil)

// Write writes recs, read at at, to w: each Netlink as its two packets on
// the netlink interface, every other record on the host interface.
func Write(w Sink, at time.Time, recs []Record) error {
	for _, r := range recs {
		if n, ok := r.(Netlink); ok {
			req, reply, err := n.Packets()
			if err != nil {
				return err
			}
			if err := w.WritePacket(capture.Frame{Interface: pcap.RecordingNetlink, At: at, Dir: capture.DirectionOutgoing, Data: req}, pcap.LinkTypeNetlink, Description); err != nil {
				return err
			}
			if reply == nil { // an error of the client's side, not the kernel's
				if err := Write(w, at, []Record{n.ClientError()}); err != nil {
					return err
				}
				continue
			}
			if err := w.WritePacket(capture.Frame{Interface: pcap.RecordingNetlink, At: at, Dir: capture.DirectionIncoming, Data: reply}, pcap.LinkTypeNetlink, Description); err != nil {
				return err
			}
			continue
		}
		b := AppendHost(nil, r)
		if len(b) > MaxRecord {
			return fmt.Errorf("host record of kind %d: %d bytes, over the %d-byte limit", r.Kind(), len(b), MaxRecord)
		}
		if err := w.WritePacket(capture.Frame{Interface: pcap.RecordingHost, At: at, Data: b}, pcap.LinkTypeUser0, Description); err != nil {
			return err
		}
	}
	return nil
}

// WriteRound writes a round: Begin b, the inputs recs, End.
func WriteRound(w Sink, at time.Time, b Begin, recs []Record) error {
	all := make([]Record, 0, len(recs)+2)
	all = append(append(append(all, b), recs...), End{})
	return Write(w, at, all)
}

// An Item is what a Reader makes of a recording's host packets: a
// complete round (Round set, its inputs in Recs) or a single record
// outside rounds (Rec).
type Item struct {
	At    time.Time
	Round *Begin
	Recs  []Record
	Rec   Record
}

// A Reader reads a replay's host packets (pcap.HostPacket, in the
// file's order) into Items.
type Reader struct {
	req     *Netlink // a request whose reply is next
	round   *Begin   // the round begun, nil outside one
	roundAt time.Time
	recs    []Record
	// Unknown counts the records of kinds this version does not know,
	// skipped.
	Unknown int
}

// maxRound bounds the inputs of one round.
const maxRound = MaxItems

// Reset forgets a round or request under way (a seek reads the file
// again from its start).
func (r *Reader) Reset() {
	*r = Reader{Unknown: r.Unknown}
}

// Add reads one host packet and returns the Item it completes, if any.
// An error names the packet's record and says what is wrong with it (a
// malformed record, a reply without its request, a round that does not
// close): the recording is corrupt there and the replay must stop.
func (r *Reader) Add(p pcap.HostPacket) (Item, bool, error) {
	it, ok, err := r.add(p)
	if err != nil {
		return Item{}, false, fmt.Errorf("record %d at offset %d: %w", p.Record, p.Offset, err)
	}
	return it, ok, nil
}

func (r *Reader) add(p pcap.HostPacket) (Item, bool, error) {
	if p.Netlink {
		proto, out, msgs, err := DecodePacket(p.Data)
		if err != nil {
			return Item{}, false, err
		}
		if out {
			if r.req != nil {
				return Item{}, false, fmt.Errorf("%w: netlink request without its reply before it", ErrMalformed)
			}
			if len(msgs) != 1 {
				return Item{}, false, fmt.Errorf("%w: netlink request of %d messages", ErrMalformed, len(msgs))
			}
			r.req = &Netlink{Proto: proto, Request: msgs[0]}
			return Item{}, false, nil
		}
		if r.req == nil || r.req.Proto != proto {
			return Item{}, false, fmt.Errorf("%w: netlink reply without its request", ErrMalformed)
		}
		n := *r.req
		r.req = nil
		n.Replies = msgs
		return r.record(n, p.At)
	}
	rec, err := DecodeHost(p.Data)
	if r.req != nil {
		ne, ok := rec.(NetlinkError)
		if err != nil || !ok {
			return Item{}, false, fmt.Errorf("%w: netlink request without its reply", ErrMalformed)
		}
		n := *r.req
		r.req = nil
		n.Err = errors.New(ne.Text)
		return r.record(n, p.At)
	}
	if errors.Is(err, ErrUnknownKind) {
		r.Unknown++
		return Item{}, false, nil
	}
	if err != nil {
		return Item{}, false, err
	}
	if _, ok := rec.(NetlinkError); ok {
		return Item{}, false, fmt.Errorf("%w: netlink error without its request", ErrMalformed)
	}
	return r.record(rec, p.At)
}

// record places one record: in the round under way, or as an Item.
func (r *Reader) record(rec Record, at time.Time) (Item, bool, error) {
	switch rec := rec.(type) {
	case Begin:
		if r.round != nil {
			return Item{}, false, fmt.Errorf("%w: %s round begins inside a %s round", ErrMalformed, rec.Round, r.round.Round)
		}
		r.round, r.roundAt, r.recs = &rec, at, nil
		return Item{}, false, nil
	case End:
		if r.round == nil {
			return Item{}, false, fmt.Errorf("%w: end of a round never begun", ErrMalformed)
		}
		it := Item{At: r.roundAt, Round: r.round, Recs: r.recs}
		r.round, r.recs = nil, nil
		return it, true, nil
	}
	if r.round == nil {
		if _, ok := rec.(Netlink); ok {
			return Item{}, false, fmt.Errorf("%w: netlink exchange outside a round", ErrMalformed)
		}
		return Item{At: at, Rec: rec}, true, nil
	}
	if len(r.recs) >= maxRound {
		return Item{}, false, fmt.Errorf("%w: %s round of over %d inputs", ErrMalformed, r.round.Round, maxRound)
	}
	r.recs = append(r.recs, rec)
	return Item{}, false, nil
}

// End checks that the file ended between rounds: a round or request under
// way at the end is a recording cut short.
func (r *Reader) End() error {
	switch {
	case r.req != nil:
		return fmt.Errorf("%w: netlink request without its reply at the end of the file", pcap.ErrTruncated)
	case r.round != nil:
		return fmt.Errorf("%w: %s round of %s not ended at the end of the file", pcap.ErrTruncated, r.round.Round, r.round.Ifname)
	}
	return nil
}
