// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The site's values the test recording holds.
var (
	hostMAC    = lldp.MAC{0xb8, 0xce, 0xf6, 0x12, 0x34, 0x56} // ens1f0np0's
	peerMAC    = lldp.MAC{0x1c, 0x34, 0xda, 0x0a, 0x0b, 0x08} // the switch port's
	peerChasID = lldp.MAC{0x1c, 0x34, 0xda, 0x0a, 0x0b, 0x00} // the switch's
	mgmtIPv4   = [4]byte{10, 1, 2, 3}
	gidIPv4    = [4]byte{10, 0, 0, 1}
)

const (
	ifname    = "ens1f0np0"
	peerPort  = "Ethernet8"
	peerName  = "leaf1.corp.example"
	peerDescr = "SONiC Software Version: SONiC.4.2.0 - HwSku: Mellanox-SN4600"
	peerVLAN  = "tenant-blue-rdma"
	hostName  = "gpu-node-17"
	gidLL     = "fe80:0000:0000:0000:bace:f6ff:fe12:3456" // EUI-64 of hostMAC
	gidV4     = "0000:0000:0000:0000:0000:ffff:0a00:0001" // ::ffff:10.0.0.1
	ibPort    = "class/infiniband/mlx5_0/ports/1/"

	dcbAttrIfname = 1 // DCB_ATTR_IFNAME (include/uapi/linux/dcbnl.h)
	rtmGetDCB     = 78
)

// The placeholders they get: in order of first appearance, per kind (and
// per length for names).
var (
	wantPeerMAC = "02:00:00:00:00:01" // the first frame's source
	wantChassis = "02:00:00:00:00:02" // its Chassis ID
	wantHostMAC = "02:00:00:00:00:03" // the second frame's source
	wantIfname  = "if0000001"         // the first 9-byte name
	wantGIDLL   = "fe80:0000:0000:0000:0000:00ff:fe00:0003"
	wantGIDV4   = "0000:0000:0000:0000:0000:ffff:c000:0202" // ::ffff:192.0.2.2
	wantMgmt    = "192.0.2.1"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// lldpFrame builds an LLDP frame from src with the given IDs and names.
func lldpFrame(t *testing.T, src, chassis lldp.MAC, port, sysName, descr string, mgmt []byte) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: chassis[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(port)},
		TTL:       120,
		TLVs:      []lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: sysName}},
	}
	if descr != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: descr})
	}
	if mgmt != nil {
		du.TLVs = append(du.TLVs, &lldp.ManagementAddress{Family: 1, Address: mgmt, IfSubtype: 2, IfNumber: 8},
			&lldp.VLANName{VID: 100, Name: []byte(peerVLAN)})
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dcbRequest is an RTM_GETDCB message's payload for ifname: struct dcbmsg
// (family, command DCB_CMD_IEEE_GET, padding) and DCB_ATTR_IFNAME.
func dcbRequest(t *testing.T, name string) []byte {
	t.Helper()
	ae := netlink.NewAttributeEncoder()
	ae.String(dcbAttrIfname, name)
	attrs, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{0, 21, 0, 0}, attrs...)
}

// writeRecording writes the test recording to path: the peer's LLDPDU
// (incoming), a counters round, a link change, this host's LLDPDU
// (outgoing).
func writeRecording(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcap.NewWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	in := lldpFrame(t, peerMAC, peerChasID, peerPort, peerName, peerDescr, mgmtIPv4[:])
	if err := w.WriteFrame(capture.Frame{Interface: ifname, At: t0, Dir: capture.DirectionIncoming, Data: in}); err != nil {
		t.Fatal(err)
	}
	recs := []tape.Record{
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "class/net/" + ifname + "/address", Data: []byte(hostMAC.String() + "\n")}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "class/net/" + ifname + "/statistics/rx_bytes", Data: []byte("123456789\n")}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadDir, Name: ibPort + "gids", Names: []string{"0", "1"}}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: ibPort + "gids/0", Data: []byte(gidLL + "\n")}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: ibPort + "gids/1", Data: []byte(gidV4 + "\n")}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: ibPort + "gid_attrs/ndevs/0", Data: []byte(ifname + "\n")}},
		tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: ibPort + "gids/2", Data: []byte("0000:0000:0000:0000:0000:0000:0000:0000\n")}},
		tape.Ethtool{Ifname: ifname, Op: tape.EthtoolStats, Stats: []tape.Stat{{Name: "rx_prio3_pause", Value: 7}}},
		tape.Netlink{
			Proto:   tape.ProtoRoute,
			Request: netlink.Message{Header: netlink.Header{Type: rtmGetDCB, Flags: netlink.Request, Sequence: 7, PID: 99}, Data: dcbRequest(t, ifname)},
			Replies: []netlink.Message{{Header: netlink.Header{Type: rtmGetDCB, Sequence: 7, PID: 99}, Data: dcbRequest(t, ifname)}},
		},
	}
	if err := tape.WriteRound(w, t0.Add(time.Second), tape.Begin{Round: tape.RoundCounters, Ifname: ifname, Interval: time.Second}, recs); err != nil {
		t.Fatal(err)
	}
	if err := tape.Write(w, t0.Add(2*time.Second), []tape.Record{tape.Link{Name: ifname, Index: 4, MAC: hostMAC, Up: true}, localRecord}); err != nil {
		t.Fatal(err)
	}
	out := lldpFrame(t, hostMAC, hostMAC, ifname, hostName, "", nil)
	if err := w.WriteFrame(capture.Frame{Interface: ifname, At: t0.Add(3 * time.Second), Dir: capture.DirectionOutgoing, Data: out}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// localRecord is what a run learnt of another dcbtop agent on ifname:
// its interface is a name to hide, its source, flags and parameters
// name nothing.
var localRecord = tape.Local{Ifname: ifname, Source: "agent", Willing: true, Params: []byte(`{"pfc":{"willing":true,"mbc":false,"cap":8,"enabled":[3]}}`)}

// readBack is what a redacted recording says, read the way a replay
// reads it.
type readBack struct {
	frames  []capture.Frame
	dus     []*lldp.DU
	items   []tape.Item
	netlink [][]netlink.Message // each packet's messages
	host    []tape.Record       // each host record
}

type collectAll struct {
	t  *testing.T
	rb *readBack
	tr tape.Reader
}

func (c *collectAll) frame(f capture.Frame) error {
	_, b, err := lldp.SplitFrame(f.Data)
	if err != nil {
		return err
	}
	du, err := lldp.Parse(b)
	if err != nil {
		return err
	}
	c.rb.frames = append(c.rb.frames, f)
	c.rb.dus = append(c.rb.dus, du)
	return nil
}

func (c *collectAll) host(p pcap.HostPacket) error {
	if p.Netlink {
		_, _, msgs, err := tape.DecodePacket(p.Data)
		if err != nil {
			return err
		}
		c.rb.netlink = append(c.rb.netlink, msgs)
	} else {
		rec, err := tape.DecodeHost(p.Data)
		if err != nil {
			return err
		}
		c.rb.host = append(c.rb.host, rec)
	}
	it, ok, err := c.tr.Add(p)
	if err != nil {
		return err
	}
	if ok {
		c.rb.items = append(c.rb.items, it)
	}
	return nil
}

func read(t *testing.T, path string) *readBack {
	t.Helper()
	c := &collectAll{t: t, rb: &readBack{}}
	if _, err := walk(path, c); err != nil {
		t.Fatalf("reading %s back: %v", filepath.Base(path), err)
	}
	if err := c.tr.End(); err != nil {
		t.Fatal(err)
	}
	return c.rb
}

func redacted(t *testing.T) (in, out string, sum Summary) {
	t.Helper()
	dir := t.TempDir()
	in, out = filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	writeRecording(t, in)
	sum, err := File(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return in, out, sum
}

// No value to hide is left anywhere in the file's bytes.
func TestNothingLeft(t *testing.T) {
	_, out, _ := redacted(t)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		needle []byte
	}{
		{"host MAC", hostMAC[:]},
		{"host MAC text", []byte(hostMAC.String())},
		{"host MAC upper-case text", []byte(strings.ToUpper(hostMAC.String()))},
		{"peer MAC", peerMAC[:]},
		{"peer MAC text", []byte(peerMAC.String())},
		{"peer chassis MAC", peerChasID[:]},
		{"interface name", []byte(ifname)},
		{"peer port ID", []byte(peerPort)},
		{"peer system name", []byte(peerName)},
		{"peer system name's first label", []byte("leaf1")},
		{"peer system description", []byte("SONiC")},
		{"host system name", []byte(hostName)},
		{"management IPv4", mgmtIPv4[:]},
		{"GID's IPv4", gidIPv4[:]},
		{"link-local GID", []byte(gidLL)},
		{"link-local GID's interface ID", []byte("bace:f6ff:fe12:3456")},
		{"IPv4-mapped GID", []byte(gidV4)},
		{"IPv4-mapped GID's address", []byte("0a00:0001")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if i := bytes.Index(b, tc.needle); i >= 0 {
				t.Errorf("%q at offset %d of the redacted file", tc.needle, i)
			}
		})
	}
}

// The redacted recording still reads as a recording (every LLDPDU parses,
// every host packet decodes, the rounds close), and each value has one
// placeholder wherever it occurs.
func TestConsistent(t *testing.T) {
	in, out, sum := redacted(t)
	orig, rb := read(t, in), read(t, out)
	if diff := cmp.Diff(Summary{MACs: 3, Names: 6, Addresses: 3, GIDs: 2, Records: len(orig.frames) + len(orig.host) + len(orig.netlink)}, sum); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	if len(rb.frames) != 2 || len(rb.items) != 3 || len(rb.netlink) != 2 {
		t.Fatalf("%d frames, %d items, %d netlink packets; want 2, 3, 2", len(rb.frames), len(rb.items), len(rb.netlink))
	}
	round, link, local := rb.items[0], rb.items[1].Rec.(tape.Link), rb.items[2].Rec.(tape.Local)
	file := func(i int) hostfs.Op { return round.Recs[i].(tape.File).Op }
	nl := round.Recs[8].(tape.Netlink)
	attr := func(m netlink.Message) string {
		ad, err := netlink.NewAttributeDecoder(m.Data[4:])
		if err != nil {
			t.Fatal(err)
		}
		for ad.Next() {
			if ad.Type() == dcbAttrIfname {
				return ad.String()
			}
		}
		return "(none)"
	}
	peer, host := rb.dus[0], rb.dus[1]
	mgmt, _ := peer.TLVs[2].(*lldp.ManagementAddress).Addr()
	for _, tc := range []struct {
		what      string
		got, want any
	}{
		{"peer frame's source", lldp.MAC(rb.frames[0].Data[6:12]).String(), wantPeerMAC},
		{"peer's Chassis ID", lldp.MAC(peer.ChassisID.ID).String(), wantChassis},
		{"peer's Port ID", string(peer.PortID.ID), "if0000002"},
		{"peer's System Name", peer.SystemName(), "host00000000000001"},
		{"peer's System Description", peer.SystemDescription(), "desc" + strings.Repeat("0", len(peerDescr)-5) + "1"},
		{"peer's management address", mgmt.String(), wantMgmt},
		{"peer's VLAN name", string(peer.TLVs[3].(*lldp.VLANName).Name), "desc" + strings.Repeat("0", len(peerVLAN)-5) + "1"},
		{"host frame's source", lldp.MAC(rb.frames[1].Data[6:12]).String(), wantHostMAC},
		{"host's Chassis ID", lldp.MAC(host.ChassisID.ID).String(), wantHostMAC},
		{"host's System Name", host.SystemName(), "host0000001"},
		{"Link record's MAC", lldp.MAC(link.MAC).String(), wantHostMAC},
		{"address file", string(file(0).Data), wantHostMAC + "\n"},
		{"link-local GID", string(file(3).Data), wantGIDLL + "\n"},
		{"IPv4-mapped GID", string(file(4).Data), wantGIDV4 + "\n"},
		{"zero GID", string(file(6).Data), "0000:0000:0000:0000:0000:0000:0000:0000\n"},
		{"statistic", round.Recs[7].(tape.Ethtool).Stats[0], tape.Stat{Name: "rx_prio3_pause", Value: 7}},
		{"frames' interface", rb.frames[0].Interface + " " + rb.frames[1].Interface, wantIfname + " " + wantIfname},
		{"host's Port ID", string(host.PortID.ID), wantIfname},
		{"round's interface", round.Round.Ifname, wantIfname},
		{"address file's path", file(0).Name, "class/net/" + wantIfname + "/address"},
		{"ndevs file", string(file(5).Data), wantIfname + "\n"},
		{"Ethtool's interface", round.Recs[7].(tape.Ethtool).Ifname, wantIfname},
		{"Link's name", link.Name, wantIfname},
		{"Local's interface", local.Ifname, wantIfname},
		{"Local's source, flags and parameters", local, tape.Local{Ifname: wantIfname, Source: "agent", Willing: true, Params: localRecord.Params}},
		{"netlink request's DCB_ATTR_IFNAME", attr(nl.Request), wantIfname},
		{"netlink reply's DCB_ATTR_IFNAME", attr(nl.Replies[0]), wantIfname},
		{"netlink request's header", nl.Request.Header, netlink.Header{Length: 36, Type: rtmGetDCB, Flags: netlink.Request, Sequence: 7, PID: 99}},
		{"directions", []capture.Direction{rb.frames[0].Dir, rb.frames[1].Dir}, []capture.Direction{capture.DirectionIncoming, capture.DirectionOutgoing}},
		{"times", []time.Time{rb.frames[0].At, round.At, rb.items[1].At, rb.frames[1].At}, []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(3 * time.Second)}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.what, diff)
		}
	}
}

// The same input gives the same file, and a redacted file redacted again
// is the same file: its placeholders are never taken for values.
func TestDeterministic(t *testing.T) {
	in, out, _ := redacted(t)
	dir := filepath.Dir(out)
	again, twice := filepath.Join(dir, "again.pcapng"), filepath.Join(dir, "twice.pcapng")
	if _, err := File(in, again); err != nil {
		t.Fatal(err)
	}
	sum, err := File(out, twice)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range []string{out, again, twice} {
		if files[p], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		a, b string
	}{
		{"redacted twice from the input", out, again},
		{"redacted output redacted again", out, twice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Equal(files[tc.a], files[tc.b]) {
				t.Errorf("%s and %s differ", filepath.Base(tc.a), filepath.Base(tc.b))
			}
		})
	}
	if diff := cmp.Diff(Summary{Records: sum.Records}, sum); diff != "" {
		t.Errorf("Summary of a redacted file (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

// A file that is no recording, or a corrupt one, is a one-line error and
// leaves no file behind.
func TestBadInput(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.pcapng")
	writeRecording(t, good)
	full, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// A host record that is no dcbtop record, on the host interface.
	var garbage bytes.Buffer
	w, err := pcap.NewWriter(&garbage)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WritePacket(capture.Frame{Interface: pcap.RecordingHost, At: t0, Data: []byte("not a record")}, pcap.LinkTypeUser0, tape.Description); err != nil {
		t.Fatal(err)
	}
	// A round that never ends.
	var open bytes.Buffer
	if w, err = pcap.NewWriter(&open); err != nil {
		t.Fatal(err)
	}
	if err := tape.Write(w, t0, []tape.Record{tape.Begin{Round: tape.RoundCounters, Ifname: ifname}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		is      error
	}{
		{"text", []byte("hello, this is not a capture\n"), pcap.ErrNotPcap},
		{"empty", nil, pcap.ErrNotPcap},
		{"cut short", full[:len(full)-40], pcap.ErrTruncated},
		{"corrupt block", append(bytes.Clone(full[:len(full)-40]), bytes.Repeat([]byte{0xff}, 40)...), pcap.ErrCorrupt},
		{"host record that is none", garbage.Bytes(), tape.ErrMalformed},
		{"round never ended", open.Bytes(), pcap.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out.pcapng")
			if err := os.WriteFile(in, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := File(in, out)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			if !errors.Is(err, tc.is) {
				t.Errorf("%v: not %v", err, tc.is)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), dir) {
				t.Errorf("error %q: want one line without the path", err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if diff := cmp.Diff([]string{"in"}, names); diff != "" {
				t.Errorf("files left (-want +got):\n%s", diff)
			}
		})
	}
}

// Placeholders have their values' lengths and are recognised as such.
func TestPlaceholderNames(t *testing.T) {
	for _, tc := range []struct {
		kind nameKind
		n, l int
		want string
	}{
		{kindIf, 1, 4, "if01"},
		{kindIf, 1, 9, "if0000001"},
		{kindIf, 12, 3, "i12"},
		{kindHost, 3, 18, "host00000000000003"},
		{kindHost, 5, 3, "ho5"},
		{kindChassis, 7, 5, "chas7"},
		{kindIf, 100, 3, "~01"}, // past the 99 decimal ones: base 36
		{kindIf, 99 + 1295, 3, "~zz"},
		{kindIf, 99 + 1296, 3, ""},
	} {
		got, ok := placeholderName(tc.kind, tc.n, tc.l)
		if diff := cmp.Diff(tc.want, got); diff != "" || ok != (tc.want != "") {
			t.Errorf("placeholderName(%q, %d, %d) (-want +got):\n%s", tc.kind, tc.n, tc.l, diff)
		}
		if ok && !isPlaceholderName(got) {
			t.Errorf("%q is not recognised as a placeholder", got)
		}
	}
	for _, s := range []string{"eth0", "ens1f0np0", "leaf1", "if00", "host", "if1x", "~", "~00"} {
		if isPlaceholderName(s) {
			t.Errorf("%q taken for a placeholder", s)
		}
	}
	if hw, _ := net.ParseMAC(wantHostMAC); !isPlaceholderMAC(lldp.MAC(hw)) {
		t.Errorf("%s is not a placeholder", wantHostMAC)
	}
}

// The binary numbers of host records are never replaced, even when their
// bytes are a value's; the names beside them are.
func TestNumbersKept(t *testing.T) {
	c := newCollector()
	c.addV4(mgmtIPv4)
	c.addName([]byte(ifname), kindIf)
	m, err := c.mapping()
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(mgmtIPv4[0]) | uint64(mgmtIPv4[1])<<8 | uint64(mgmtIPv4[2])<<16 | uint64(mgmtIPv4[3])<<24
	for _, tc := range []struct {
		name string
		rec  tape.Record
		want tape.Record
	}{
		{"statistic", tape.Ethtool{Ifname: ifname, Op: tape.EthtoolStats, Stats: []tape.Stat{{Name: "x", Value: n}}},
			tape.Ethtool{Ifname: wantIfname, Op: tape.EthtoolStats, Stats: []tape.Stat{{Name: "x", Value: n}}}},
		{"ifindex", tape.Link{Name: ifname, Index: int(n)}, tape.Link{Name: wantIfname, Index: int(n)}},
		{"agent's PID", tape.Observed{Agents: []tape.Agent{{Name: "lldpd", PID: int(n)}}}, tape.Observed{Agents: []tape.Agent{{Name: "lldpd", PID: int(n)}}}},
		{"file content", tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "x", Data: mgmtIPv4[:]}},
			tape.File{Op: hostfs.Op{Kind: hostfs.OpReadFile, Name: "x", Data: []byte{192, 0, 2, 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := m.hostRecord(tape.AppendHost(nil, tc.rec))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tape.DecodeHost(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The project's captures (classic pcap, frames only; lldpd-hostile's
// malformed LLDPDUs included) redact: every LLDPDU that parsed still
// parses, with the same TLV types, and no source MAC, System Name or
// Chassis ID is left.
func TestCaptures(t *testing.T) {
	files, err := filepath.Glob("../../engine/lldp/testdata/*.pcap")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../engine/testdata/*.pcap")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no captures")
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pcapng")
			sum, err := File(in, out)
			if err != nil {
				t.Fatal(err)
			}
			before, after := parsed(t, in), parsed(t, out)
			if len(before) != len(after) || sum.Records != len(before) {
				t.Fatalf("%d frames, %d after, %d records written", len(before), len(after), sum.Records)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for i := range before {
				if (before[i].du == nil) != (after[i].du == nil) {
					t.Fatalf("frame %d: parsed %v before, %v after", i, before[i].du != nil, after[i].du != nil)
				}
				if bytes.Contains(b, before[i].src[:]) {
					t.Errorf("frame %d: source %s left", i, before[i].src)
				}
				if before[i].du == nil {
					continue
				}
				if diff := cmp.Diff(tlvTypes(before[i].du), tlvTypes(after[i].du)); diff != "" {
					t.Errorf("frame %d: TLVs (-before +after):\n%s", i, diff)
				}
				for _, v := range []string{string(before[i].du.ChassisID.ID), before[i].du.SystemName()} {
					if len(v) >= minName && bytes.Contains(b, []byte(v)) {
						t.Errorf("frame %d: %q left", i, v)
					}
				}
			}
		})
	}
}

type parsedFrame struct {
	src lldp.MAC
	du  *lldp.DU
}

type frameParser []parsedFrame

func (p *frameParser) frame(f capture.Frame) error {
	var pf parsedFrame
	if len(f.Data) >= 12 {
		pf.src = lldp.MAC(f.Data[6:12])
	}
	if _, b, err := lldp.SplitFrame(f.Data); err == nil {
		pf.du, _ = lldp.Parse(b)
	}
	*p = append(*p, pf)
	return nil
}

func (p *frameParser) host(pcap.HostPacket) error { return nil }

func parsed(t *testing.T, path string) []parsedFrame {
	t.Helper()
	var p frameParser
	if _, err := walk(path, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func tlvTypes(du *lldp.DU) []lldp.TLVType {
	var ts []lldp.TLVType
	for _, t := range du.TLVs {
		ts = append(ts, t.Type())
	}
	return ts
}
