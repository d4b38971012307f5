// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// rawTLV is an LLDP TLV of type typ holding v as it is.
func rawTLV(typ lldp.TLVType, v []byte) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(typ)<<9|uint16(len(v))), v...)
}

// orgTLV is an organizationally specific TLV: OUI, subtype, rest.
func orgTLV(oui lldp.OUI, sub uint8, rest []byte) []byte {
	return rawTLV(lldp.TLVTypeOrg, append(append(oui[:len(oui):len(oui)], sub), rest...))
}

// writeFrames writes each LLDPDU, in a frame from src number i, to a
// recording at path.
func writeFrames(t testing.TB, path string, dus [][]byte, src func(i int) lldp.MAC) {
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
	for i, du := range dus {
		s := src(i)
		fr := append(append(append(lldp.NearestBridge[:6:6], s[:]...), 0x88, 0xcc), du...)
		if err := w.WriteFrame(capture.Frame{Interface: ifname, At: t0.Add(time.Duration(i) * time.Millisecond), Dir: capture.DirectionIncoming, Data: fr}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// mandatory is the Chassis ID (a MAC), Port ID (an interface name) and
// TTL TLVs.
func mandatory(chassis lldp.MAC, port string) []byte {
	b := rawTLV(lldp.TLVTypeChassisID, append([]byte{byte(lldp.ChassisIDSubtypeMACAddress)}, chassis[:]...))
	b = append(b, rawTLV(lldp.TLVTypePortID, append([]byte{byte(lldp.PortIDSubtypeInterfaceName)}, port...))...)
	return append(b, rawTLV(lldp.TLVTypeTTL, []byte{0, 120})...)
}

// What dcbtop does not read is blanked, what it reads is redacted whatever
// its length: a short System Name ("vm") and Port ID, a VLAN Name TLV it
// discards as malformed, LLDP-MED inventory (serial and asset numbers)
// and a vendor's TLV; the CIN DCBX TLV, whose presence a replay reads,
// keeps its bytes.
func TestBlankedAndShort(t *testing.T) {
	const (
		serial = "SN-7Q2XK9LMW"
		asset  = "ASSET-00417-RACK12"
		vlan   = "secret"
		vendor = "vendor-ssid-xyz"
	)
	cin := orgTLV(lldp.OUICEE, lldp.SubtypeCIN, []byte{0x01, 0x02, 0x00, 0x04, 0xde, 0xad, 0xbe, 0xef})
	du := mandatory(peerChasID, "p1")
	du = append(du, rawTLV(lldp.TLVTypeSystemName, []byte("vm"))...)
	// VLAN Name: VID 100, a name length of 20 over 6 bytes (802.1Q-2018 D.2.4).
	du = append(du, orgTLV(lldp.OUIIEEE8021, lldp.SubtypeVLANName, append([]byte{0, 100, 20}, vlan...))...)
	medOUI := lldp.OUI{0x00, 0x12, 0xbb} // TIA-1057 LLDP-MED
	du = append(du, orgTLV(medOUI, 8, []byte(serial))...)
	du = append(du, orgTLV(medOUI, 11, []byte(asset))...)
	du = append(du, orgTLV(lldp.OUI{0x00, 0x00, 0x5e}, 42, []byte(vendor))...)
	du = append(du, cin...)
	du = append(du, rawTLV(lldp.TLVTypeEnd, nil)...)
	before, err := lldp.Parse(du)
	if err != nil || len(before.Discarded) != 1 {
		t.Fatalf("the test's LLDPDU: %v, discarded %d (want the VLAN Name)", err, len(before.Discarded))
	}

	// A VLAN Name that lacks only its name: zeroed, it would read.
	cut := mandatory(peerChasID, "p1")
	cut = append(cut, orgTLV(lldp.OUIIEEE8021, lldp.SubtypeVLANName, []byte{0, 100, 5})...)
	cut = append(cut, rawTLV(lldp.TLVTypeEnd, nil)...)
	// An LLDPDU dcbtop rejects: a System Name cut by the frame's end.
	rejected := mandatory(peerChasID, "p1")
	rejected = append(rejected, rawTLV(lldp.TLVTypeSystemName, []byte("rejected-but-secret"))[:12]...)
	if _, err := lldp.Parse(rejected); err == nil {
		t.Fatal("the rejected LLDPDU parses")
	}

	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	writeFrames(t, in, [][]byte{du, cut, rejected}, func(int) lldp.MAC { return peerMAC })
	sum, err := File(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Blanked != 5 {
		t.Errorf("Summary.Blanked = %d, want 5 (2 VLAN Names, 2 LLDP-MED inventory, the vendor's)", sum.Blanked)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{serial, asset, vlan, vendor, "rejected"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%q left", s)
		}
	}
	if !bytes.Contains(b, cin) {
		t.Errorf("the CIN TLV was changed")
	}
	after := parsed(t, out)
	if len(after) != 3 || after[0].du == nil || after[1].du == nil || after[2].du != nil {
		t.Fatal("the redacted LLDPDUs do not parse as before")
	}
	if len(after[1].du.Discarded) != 1 {
		t.Errorf("the cut VLAN Name reads after: %+v", after[1].du.TLVs)
	}
	a := after[0].du
	if name := a.SystemName(); name == "vm" || len(name) != 2 || !isPlaceholderName(name) {
		t.Errorf("System Name %q: want a 2-byte placeholder", name)
	}
	if id := string(a.PortID.ID); id == "p1" || len(id) != 2 || !isPlaceholderName(id) {
		t.Errorf("Port ID %q: want a 2-byte placeholder", id)
	}
	if len(a.Discarded) != 1 || a.Discarded[0].Offset != before.Discarded[0].Offset {
		t.Errorf("discarded after: %+v, want the VLAN Name at %d as before", a.Discarded, before.Discarded[0].Offset)
	}
	var orgs []string
	for _, tlv := range a.TLVs {
		if r, ok := tlv.(*lldp.RawTLV); ok && r.T == lldp.TLVTypeOrg {
			orgs = append(orgs, fmt.Sprintf("%x/%d", r.Value[:3], r.Value[3]))
		}
	}
	if want := "0012bb/8 0012bb/11 00005e/42 001b21/1"; strings.Join(orgs, " ") != want {
		t.Errorf("undecoded TLVs after: %q, want %q (OUI and subtype kept)", orgs, want)
	}
}

// busyDUs is n LLDPDUs of n distinct MSAPs: chassis i, a Port ID and a
// System Name of 3 bytes each, distinct for the first names of them.
func busyDUs(n, names int) [][]byte {
	dus := make([][]byte, n)
	for i := range n {
		name := "s" + fmt.Sprintf("%02s", strconv.FormatInt(int64(i%names), 36))
		du := mandatory(busyMAC(i, 0x3c), name)
		du = append(du, rawTLV(lldp.TLVTypeSystemName, []byte(name))...)
		dus[i] = append(du, rawTLV(lldp.TLVTypeEnd, nil)...)
	}
	return dus
}

// busyMAC is the i-th of a busy link's addresses, in a vendor's OUI.
func busyMAC(i int, b byte) lldp.MAC {
	return lldp.MAC{0x1c, 0x34, b, byte(i >> 16), byte(i >> 8), byte(i)}
}

// A busy link redacts: 70,000 MSAPs (140,000 MACs, over the 65,535 of
// 7737732's placeholders) and 300 distinct names of 3 bytes (over its 99).
func TestBusyLink(t *testing.T) {
	if testing.Short() {
		t.Skip("70,000 frames")
	}
	const n, names = 70000, 300
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	writeFrames(t, in, busyDUs(n, names), func(i int) lldp.MAC { return busyMAC(i, 0xda) })
	sum, err := File(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.MACs != 2*n || sum.Names != names+1 {
		t.Errorf("Summary: %d MACs, %d names; want %d, %d (and the interface's)", sum.MACs, sum.Names, 2*n, names+1)
	}
	after := parsed(t, out)
	if len(after) != n {
		t.Fatalf("%d frames after, want %d", len(after), n)
	}
	seen := map[lldp.MAC]bool{}
	for i, f := range after {
		if f.du == nil {
			t.Fatalf("frame %d does not parse", i)
		}
		if !isPlaceholderMAC(f.src) || seen[f.src] {
			t.Fatalf("frame %d: source %s (a placeholder of its own wanted)", i, f.src)
		}
		seen[f.src] = true
		if name := f.du.SystemName(); !isPlaceholderName(name) || len(name) != 3 {
			t.Fatalf("frame %d: System Name %q", i, name)
		}
	}
}

// BenchmarkRedactBusy is File on a recording of 40,000 MSAPs (the
// reliability round's: 215 MB at 7737732).
func BenchmarkRedactBusy(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	writeFrames(b, in, busyDUs(40000, 1000), func(i int) lldp.MAC { return busyMAC(i, 0xda) })
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := File(in, filepath.Join(dir, "out"+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplacer compares, in the same run, the replacer of 40,000
// MSAPs' values with strings.Replacer (what 7737732 used): building it and
// replacing in one LLDPDU.
func BenchmarkReplacer(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	dus := busyDUs(40000, 1000)
	writeFrames(b, in, dus, func(i int) lldp.MAC { return busyMAC(i, 0xda) })
	c := newCollector()
	if _, err := walk(in, c); err != nil {
		b.Fatal(err)
	}
	m, err := c.mapping()
	if err != nil {
		b.Fatal(err)
	}
	// 7737732 listed every MAC's forms among the pairs.
	all := maps.Clone(m.pairs)
	for old, p := range m.mac {
		all[string(old[:])] = string(p[:])
		all[old.String()] = p.String()
		all[strings.ToUpper(old.String())] = strings.ToUpper(p.String())
		eo, ep := euiAddr(old), euiAddr(p)
		all[string(eo[:])] = string(ep[:])
		all[gidText(eo, false)] = gidText(ep, false)
		all[gidText(eo, true)] = gidText(ep, true)
	}
	b.Logf("%d values and MACs; %d forms as 7737732 listed them", len(m.pairs)+len(m.mac), len(all))
	b.Run("dcbtop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := newReplacer(m.pairs, m.mac)
			r.replace(bytes.Clone(dus[123]))
		}
	})
	b.Run("strings.Replacer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			args := make([]string, 0, 2*len(all))
			for old, new := range all {
				args = append(args, old, new)
			}
			r := strings.NewReplacer(args...)
			_ = r.Replace(string(dus[123]))
		}
	})
}

// The replacer finds a MAC in each of its shapes, in any case, and
// nothing that merely looks like one.
func TestMACShapes(t *testing.T) {
	old := lldp.MAC{0xb8, 0xce, 0xf6, 0x12, 0x34, 0x5a}
	p := lldp.MAC{0x02, 0, 0, 0, 0, 0x01}
	other := lldp.MAC{0xb8, 0xce, 0xf6, 0x99, 0x99, 0x99}
	r := newReplacer(map[string]string{"ens1f0np0": "if0000001"}, map[lldp.MAC]lldp.MAC{old: p})
	eo, ep := euiAddr(old), euiAddr(p)
	for _, tc := range []struct{ name, in, want string }{
		{"binary", "x" + string(old[:]) + "y", "x" + string(p[:]) + "y"},
		{"text", "addr b8:ce:f6:12:34:5a\n", "addr 02:00:00:00:00:01\n"},
		{"upper", "B8:CE:F6:12:34:5A", "02:00:00:00:00:01"},
		{"mixed case", "b8:CE:f6:12:34:5a", "02:00:00:00:00:01"},
		{"EUI-64 binary", string(eo[:]), string(ep[:])},
		{"GID text", gidText(eo, false) + "\n", gidText(ep, false) + "\n"},
		{"GID upper", gidText(eo, true), gidText(ep, true)},
		{"another MAC", other.String() + string(other[:]), other.String() + string(other[:])},
		{"not a MAC's text", "b8:ce:f6:12:34:5g b8-ce-f6-12-34-5a", "b8:ce:f6:12:34:5g b8-ce-f6-12-34-5a"},
		{"a name beside", "ens1f0np0 b8:ce:f6:12:34:5a", "if0000001 02:00:00:00:00:01"},
	} {
		b := []byte(tc.in)
		r.replace(b)
		if got := string(b); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
