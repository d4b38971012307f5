// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// A Deck answers the readers of a replay from recorded inputs: the files
// of the tree that stands for /sys (FS), netlink requests (Conn) and the
// driver's ethtool operations (Ethtool). Load gives it a round's inputs
// before the reader runs again. It may be used from several goroutines.
type Deck struct {
	fs *hostfs.Replay

	mu   sync.Mutex
	nl   map[nlKey][]answer // replies, first asked first served
	open map[nlKey][]answer // the open round's: asked again later (a family resolved lazily)
	eth  map[ethKey]Ethtool
	tun  map[tunKey]Tunable
}

type tunKey struct {
	ifname string
	id     uint32
}

type nlKey struct {
	proto int
	req   string // the request's bytes, sequence number and port ID zero
}

// An answer is a recorded reply: its messages, or the error of the
// client's side the request got instead.
type answer struct {
	msgs []netlink.Message
	err  error
}

type ethKey struct {
	ifname string
	op     EthtoolOp
}

// NewDeck returns a Deck holding nothing.
func NewDeck() *Deck {
	return &Deck{fs: hostfs.NewReplay(), nl: map[nlKey][]answer{}, open: map[nlKey][]answer{}, eth: map[ethKey]Ethtool{}, tun: map[tunKey]Tunable{}}
}

// Load replaces what the Deck answers with the inputs in recs (a round's),
// keeping the open round's netlink replies (open marks the open round's
// own inputs, kept for later rounds too).
func (d *Deck) Load(recs []Record, open bool) {
	d.fs.Reset()
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.nl)
	clear(d.eth)
	clear(d.tun)
	for _, r := range recs {
		switch r := r.(type) {
		case File:
			d.fs.Add(r.Op)
		case Ethtool:
			d.eth[ethKey{r.Ifname, r.Op}] = r
		case Tunable:
			d.tun[tunKey{r.Ifname, r.ID}] = r
		case Netlink:
			k := key(r.Proto, r.Request)
			reply := answerOf(r)
			d.nl[k] = append(d.nl[k], reply)
			if open {
				d.open[k] = append(d.open[k], reply)
			}
		}
	}
}

// key is the lookup key of a request.
func key(proto int, m netlink.Message) nlKey {
	m.Header.Sequence, m.Header.PID = 0, 0
	b, _ := appendMessage(nil, m)
	return nlKey{proto, string(b)}
}

// answerOf is the answer a Conn gets for r: its messages, the
// NLMSG_ERROR standing for the kernel's error (as Packets writes it), or
// the client's side error.
func answerOf(r Netlink) answer {
	switch {
	case r.Err == nil:
		return answer{msgs: r.Replies}
	case !r.KernelError():
		return answer{err: errors.New(r.ClientError().Text)}
	}
	_, reply, err := r.Packets()
	if err != nil {
		return answer{err: err}
	}
	_, _, msgs, err := DecodePacket(reply)
	return answer{msgs: msgs, err: err}
}

// FS is the recorded tree.
func (d *Deck) FS() hostfs.FS { return d.fs }

// ErrNotRecorded is what a replayed reader gets for an input the
// recording does not hold.
var ErrNotRecorded = hostfs.ErrNotRecorded

// Conn returns a netlink connection of protocol proto that answers each
// request with the reply recorded for the same request (the same bytes
// but for the sequence number and port ID) in the round loaded, or else in
// the open round: the netlink.Conn then checks the reply and turns an
// NLMSG_ERROR into the same *netlink.OpError the live client got. A
// request not recorded fails with ErrNotRecorded.
func (d *Deck) Conn(proto int) *netlink.Conn {
	return nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, io.EOF // a receive without a request: nothing more
		}
		req := reqs[0]
		k := key(proto, req)
		d.mu.Lock()
		reply, ok := pop(d.nl, k)
		if !ok {
			reply, ok = pop(d.open, k)
		}
		d.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("netlink request of type %d: %w", req.Header.Type, ErrNotRecorded)
		}
		if reply.err != nil {
			return nil, reply.err // netlink.Conn wraps it as the live one was ("netlink receive: ...")
		}
		out := make([]netlink.Message, 0, len(reply.msgs)+1)
		multi := false
		for _, m := range reply.msgs {
			m.Header.Sequence, m.Header.PID = req.Header.Sequence, req.Header.PID
			m.Data = slices.Clone(m.Data)
			multi = multi || m.Header.Flags&netlink.Multi != 0
			out = append(out, m)
		}
		if multi { // the NLMSG_DONE that Execute left out
			out = append(out, netlink.Message{Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: make([]byte, 4)})
		}
		if len(out) == 0 {
			return nil, io.EOF
		}
		return out, nil
	})
}

// pop takes the first reply recorded for k; the last one stays, for a
// request the replayed reader repeats.
func pop(m map[nlKey][]answer, k nlKey) (answer, bool) {
	q := m[k]
	if len(q) == 0 {
		return answer{}, false
	}
	if len(q) > 1 {
		m[k] = q[1:]
	}
	return q[0], true
}

// Ethtool returns the driver's operations as recorded.
func (d *Deck) Ethtool() EthtoolReader { return deckEthtool{d} }

type deckEthtool struct{ d *Deck }

func (e deckEthtool) get(ifname string, op EthtoolOp) (Ethtool, error) {
	e.d.mu.Lock()
	r, ok := e.d.eth[ethKey{ifname, op}]
	e.d.mu.Unlock()
	if !ok {
		return Ethtool{}, fmt.Errorf("ethtool %s: %w", ifname, ErrNotRecorded)
	}
	return r, r.Err
}

// PFCStormTimeout answers as the recorded ETHTOOL_GTUNABLE of the PFC
// storm prevention timeout did (ErrNotRecorded in a recording of before
// it was read).
func (e deckEthtool) PFCStormTimeout(ifname string) (uint16, error) {
	e.d.mu.Lock()
	r, ok := e.d.tun[tunKey{ifname, TunablePFCPreventionTout}]
	e.d.mu.Unlock()
	if !ok {
		return 0, fmt.Errorf("ethtool tunable %s: %w", ifname, ErrNotRecorded)
	}
	return uint16(r.Value), r.Err
}

func (e deckEthtool) DriverName(ifname string) (string, error) {
	r, err := e.get(ifname, EthtoolDriver)
	return r.Driver, err
}

func (e deckEthtool) Stats(ifname string) (map[string]uint64, error) {
	r, err := e.get(ifname, EthtoolStats)
	if r.Stats == nil {
		return nil, err
	}
	m := make(map[string]uint64, len(r.Stats))
	for _, s := range r.Stats {
		m[s.Name] = s.Value
	}
	return m, err
}
