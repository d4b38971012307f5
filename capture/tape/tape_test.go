// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"bytes"
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// records is one of each kind, written and read back.
var records = []Record{
	Begin{Round: RoundCounters, Ifname: "eth0", Interval: time.Second},
	File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "class/net/eth0/ecn/roce_np/enable/3", Data: []byte("1\n")}},
	File{Op: hostfs.Op{Kind: hostfs.OpReadDir, Name: "class/infiniband", Names: []string{"mlx5_0", "mlx5_1"}}},
	File{Op: hostfs.Op{Kind: hostfs.OpStat, Name: "kernel/debug", Info: hostfs.Info{Dir: true}}},
	File{Op: hostfs.Op{Kind: hostfs.OpReadlink, Name: "class/net/eth0/device", Err: &fs.PathError{Op: "readlink", Path: "class/net/eth0/device", Err: syscall.ENOENT}}},
	File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "kernel/debug/x", Err: hostfs.ErrIsDir}},
	Ethtool{Ifname: "eth0", Op: EthtoolStats, Stats: []Stat{{"rx_prio3_pause", 7}, {"tx_prio3_pause", 9}}},
	Ethtool{Ifname: "eth0", Op: EthtoolDriver, Err: syscall.EOPNOTSUPP},
	Tunable{Ifname: "eth0", ID: TunablePFCPreventionTout, Value: 100},
	Tunable{Ifname: "eth1", ID: TunablePFCPreventionTout, Err: syscall.EOPNOTSUPP},
	End{},
	Observed{NetAdmin: true, Agents: []Agent{{Name: "lldpd", PID: 42, Transmits: true}}},
	Link{Name: "eth0", Index: 2, MAC: [6]byte{2, 0, 0, 0, 0, 1}, Up: true},
	Link{Name: "eth1", Index: 3, MAC: [6]byte{2, 0, 0, 0, 0, 2}, Up: true, MTU: 9000, Was: "ens1", VLANs: []uint16{100, 200}},
	Link{Name: "eth2", Index: 4, MAC: [6]byte{2, 0, 0, 0, 0, 3}, VLANs: []uint16{}},
	Sources{Names: []string{"sysfs", "dcbnl"}, RDMAStatsErr: "rdmastat: dial: permission denied"},
	Local{Ifname: "eth0", Source: "agent", Willing: true, Params: []byte(`{"pfc":{"willing":true,"mbc":false,"cap":8,"enabled":[3,5]}}`)},
	Local{Ifname: "eth0", Source: "agent", Withdrawn: true},
}

// errEqual compares errors by their text and the errno they wrap.
var errEqual = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	var ea, eb syscall.Errno
	return a.Error() == b.Error() && errors.As(a, &ea) == errors.As(b, &eb) && ea == eb
})

func TestHostRoundTrip(t *testing.T) {
	for _, r := range records {
		got, err := DecodeHost(AppendHost(nil, r))
		if err != nil {
			t.Errorf("%T: %v", r, err)
			continue
		}
		if diff := cmp.Diff(r, got, errEqual, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%T (-want +got):\n%s", r, diff)
		}
	}
}

// A kind or a tag this version does not know is skipped; what is wrong is
// an error that says what.
func TestHostForwardAndBad(t *testing.T) {
	b := AppendHost(nil, Link{Name: "eth0"})
	b = field(b, 99, []byte("a later field"))
	if got, err := DecodeHost(b); err != nil || got.(Link).Name != "eth0" {
		t.Errorf("unknown tag: %v, %v", got, err)
	}
	future := append([]byte{}, b...)
	future[5] = 200
	if _, err := DecodeHost(future); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	for name, bad := range map[string][]byte{
		"short":                         []byte("DCB"),
		"magic":                         append([]byte("XXXX"), b[4:]...),
		"cut field":                     b[:len(b)-3],
		"empty link":                    AppendHost(nil, Link{}),
		"local without its interface":   AppendHost(nil, Local{Source: "agent"}),
		"local without its source":      AppendHost(nil, Local{Ifname: "eth0"}),
		"tunable without its interface": AppendHost(nil, Tunable{ID: TunablePFCPreventionTout}),
	} {
		if _, err := DecodeHost(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// A netlink exchange written as its two packets reads back as the same
// request and replies; an error reply reads back as the kernel's
// NLMSG_ERROR, which a Deck's connection turns into the same OpError.
func TestNetlinkPackets(t *testing.T) {
	req := netlink.Message{Header: netlink.Header{Type: 78, Flags: netlink.Request}, Data: []byte{1, 2, 3, 4, 5}}
	ok := Netlink{Proto: ProtoRoute, Request: req, Replies: []netlink.Message{{Header: netlink.Header{Type: 78, Length: 20}, Data: []byte{9, 9, 9, 9}}}}
	fail := Netlink{Proto: ProtoRoute, Request: netlink.Message{Header: netlink.Header{Type: 79, Flags: netlink.Request}, Data: []byte{7, 0, 0, 0}},
		Err: &netlink.OpError{Op: "receive", Err: syscall.EOPNOTSUPP, Message: "no DCB here"}}
	var w sink
	if err := WriteRound(&w, time.Unix(100, 0), Begin{Round: RoundDCB, Ifname: "eth0"}, []Record{ok, fail}); err != nil {
		t.Fatal(err)
	}
	var rd Reader
	var items []Item
	for _, p := range w.packets {
		it, done, err := rd.Add(p)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			items = append(items, it)
		}
	}
	if err := rd.End(); err != nil || len(items) != 1 || len(items[0].Recs) != 2 {
		t.Fatalf("items %+v, end %v", items, err)
	}
	d := NewDeck()
	d.Load(items[0].Recs, false)
	c := d.Conn(ProtoRoute)
	msgs, err := c.Execute(req)
	if err != nil || len(msgs) != 1 || !bytes.Equal(msgs[0].Data, []byte{9, 9, 9, 9}) {
		t.Errorf("replayed reply %+v, %v", msgs, err)
	}
	_, err = c.Execute(fail.Request)
	var oe *netlink.OpError
	if !errors.As(err, &oe) || !errors.Is(err, syscall.EOPNOTSUPP) || oe.Message != "no DCB here" {
		t.Errorf("replayed error %#v, want EOPNOTSUPP with the kernel's message", err)
	}
	if _, err := c.Execute(netlink.Message{Header: netlink.Header{Type: 80, Flags: netlink.Request}}); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("a request never recorded: %v", err)
	}
}

// A reply without its request, a round never ended: errors naming the
// record.
func TestReaderErrors(t *testing.T) {
	var w sink
	_ = Write(&w, time.Unix(1, 0), []Record{Begin{Round: RoundCounters, Ifname: "eth0"}})
	var rd Reader
	if _, _, err := rd.Add(w.packets[0]); err != nil {
		t.Fatal(err)
	}
	if err := rd.End(); !errors.Is(err, pcap.ErrTruncated) {
		t.Errorf("round not ended: %v", err)
	}
	n := Netlink{Proto: ProtoRDMA, Request: netlink.Message{Header: netlink.Header{Type: 1}}}
	_, reply, _ := n.Packets()
	rd = Reader{}
	_, _, err := rd.Add(pcap.HostPacket{Netlink: true, Data: reply, Record: 7, Offset: 1234})
	if !errors.Is(err, ErrMalformed) || err.Error() != "record 7 at offset 1234: malformed dcbtop record: netlink reply without its request" {
		t.Errorf("reply alone: %v", err)
	}
}

// sink collects what Write writes as the host packets a Replay gives.
type sink struct{ packets []pcap.HostPacket }

func (s *sink) WritePacket(f capture.Frame, lt uint16, _ string) error {
	s.packets = append(s.packets, pcap.HostPacket{Netlink: lt == pcap.LinkTypeNetlink, At: f.At, Data: bytes.Clone(f.Data), Record: len(s.packets) + 1})
	return nil
}

// FuzzReader feeds hostile host packets to a Reader and a Deck: errors,
// never a panic.
func FuzzReader(f *testing.F) {
	var w sink
	_ = Write(&w, time.Unix(1, 0), append([]Record{Begin{Round: RoundOpen}}, append(records[1:8], End{})...))
	for _, p := range w.packets {
		f.Add(p.Netlink, p.Data)
	}
	n := Netlink{Proto: ProtoGeneric, Request: netlink.Message{Header: netlink.Header{Type: 16, Flags: netlink.Request}, Data: []byte{3, 1, 0, 0}}}
	req, reply, _ := n.Packets()
	f.Add(true, req)
	f.Add(true, reply)
	f.Fuzz(func(t *testing.T, nl bool, b []byte) {
		var rd Reader
		for i := 0; i < 2; i++ {
			it, ok, err := rd.Add(pcap.HostPacket{Netlink: nl, Data: b})
			if err != nil {
				return
			}
			if ok && it.Round != nil {
				d := NewDeck()
				d.Load(it.Recs, true)
			}
		}
		_ = rd.End()
		if r, err := DecodeHost(b); err == nil {
			if _, err := DecodeHost(AppendHost(nil, r)); err != nil {
				t.Errorf("%T written again does not read: %v", r, err)
			}
		}
	})
}

// An error of the client's side (no kernel's answer) is written after the
// request as a NetlinkError, and the replayed connection gives the same
// error text as the live one.
func TestNetlinkClientError(t *testing.T) {
	req := netlink.Message{Header: netlink.Header{Type: 0x1401, Flags: netlink.Request}}
	live := &netlink.OpError{Op: "receive", Err: errors.New("not enough data for netlink error code")}
	var w sink
	if err := WriteRound(&w, time.Unix(5, 0), Begin{Round: RoundCounters, Ifname: "eth0"}, []Record{Netlink{Proto: ProtoRDMA, Request: req, Err: live}}); err != nil {
		t.Fatal(err)
	}
	if len(w.packets) != 4 || !w.packets[1].Netlink || w.packets[2].Netlink {
		t.Fatalf("packets %+v: want begin, the request, the error record, end", w.packets)
	}
	var rd Reader
	var it Item
	for _, p := range w.packets {
		i, ok, err := rd.Add(p)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			it = i
		}
	}
	d := NewDeck()
	d.Load(it.Recs, false)
	_, err := d.Conn(ProtoRDMA).Execute(req)
	if err == nil || err.Error() != live.Error() {
		t.Errorf("replayed error %v, want %q as live", err, live.Error())
	}
	var rd2 Reader
	b := AppendHost(nil, NetlinkError{Text: "x"})
	if _, _, err := rd2.Add(pcap.HostPacket{Data: b}); !errors.Is(err, ErrMalformed) {
		t.Errorf("a netlink error without its request: %v", err)
	}
}
