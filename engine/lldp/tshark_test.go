// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/dcbtop/dcbtop/testbed"
)

// lookTshark returns the path of tshark, or skips the test when it is not
// installed (fails with DCBTOP_REQUIRE_PRIV=1).
func lookTshark(t *testing.T) string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
			t.Fatalf("tshark not installed and DCBTOP_REQUIRE_PRIV=1: %v", err)
		}
		t.Skipf("tshark not installed (apt-get install tshark): %v", err)
	}
	return tshark
}

// TestTshark decodes every fixture frame with tshark (Wireshark's LLDP
// dissector, an independent implementation) and with dcbtop, and compares
// every 802.1Qaz, CEE and basic IEEE 802.1 and 802.3 field tshark shows;
// see checkTsharkFrame for the field mapping. tshark 4.0 was used to write
// it.
func TestTshark(t *testing.T) {
	tshark := lookTshark(t)
	files := fixturePcaps(t)
	// The fixtures leave many bits at 0; these hand-built frames set them.
	files = append(files, writePcap(t, filepath.Join(t.TempDir(), "synthetic.pcap"), tsharkSynthetic...))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), tshark, "-r", file, "-T", "json")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("tshark: %v\n%s", err, stderr.Bytes())
			}
			compareTshark(t, readPcap(t, file), out)
		})
	}
}

// TestTsharkRecorded does what TestTshark does with the tshark output that
// testbed/record-fixtures.sh stored next to each fixture, so that the
// comparison also runs where tshark is not installed.
func TestTsharkRecorded(t *testing.T) {
	for _, file := range fixturePcaps(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			js, err := os.ReadFile(strings.TrimSuffix(file, ".pcap") + ".tshark.json")
			if err != nil {
				t.Fatalf("%v (testbed/record-fixtures.sh writes it)", err)
			}
			compareTshark(t, readPcap(t, file), js)
		})
	}
}

// tsharkSynthetic are frames for TestTshark that set what the fixtures
// do not: willing, CBS, MBC, max TCs below 8, reserved bytes, reserved TSA
// and selectors, CEE versions and flags, repeated CEE sub-TLVs; and every
// basic IEEE 802.1 and 802.3 TLV of basicOrgTLVs (each flag set and clear,
// reserved bits, empty and 32-byte VLAN names, the Power via MDI
// extensions), but for the VLAN name of escape sequences, which tshark
// shows its own way.
var tsharkSynthetic = [][]byte{
	cat(ethDst, ethSrc, ethLLDP, typicalLLDPDU),
	cat(ethDst, ethSrc, ethLLDP, lldpdu(
		hx("FE 19 00 80 C2 09  C3  01 23 45 67  0A 14 1E 28 00 00 00 00  02 02 02 02 00 01 FF 07"),
		hx("FE 19 00 80 C2 0A  FF  76 54 32 10  32 32 00 00 00 00 00 00  02 02 00 00 00 00 00 00"),
		hx("FE 06 00 80 C2 0B  C4 29"),
		hx("FE 17 00 80 C2 0C 00  63 12 B7  E1 00 00  A5 00 3F  00 00 01  C6 00 02  27 FF FF"),
	)),
	cat(ethDst, ethSrc, ethLLDP, lldpdu(refETS, refPFC, refCEE)),
	cat(ethDst, ethSrc, ethLLDP, lldpdu(hx(`FE 45 00 1B 21 02
		06 06 01 02 E0 00 FF 03
		02 0A 01 02 00 00 01 00 FF FF FF FF
		08 10 00 00 40 00 89 06 00 1B 21 0A 0C BC 01 1B 21 00
		04 11 00 00 20 00 FE DC BA 98 00 00 00 00 00 00 00 64 08
		06 06 00 00 80 00 10 08`))),
	cat(ethDst, ethSrc, ethLLDP, lldpdu(tsharkBasicOrg(basicOrgTLVs[:len(basicOrgTLVs)/2])...)),
	cat(ethDst, ethSrc, ethLLDP, lldpdu(tsharkBasicOrg(basicOrgTLVs[len(basicOrgTLVs)/2:])...)),
}

// tsharkBasicOrg returns the TLVs of tests whose values tshark shows as
// dcbtop does: printable ASCII VLAN names only.
func tsharkBasicOrg(tests []optionalTLVTest) [][]byte {
	var out [][]byte
	for _, tt := range tests {
		if n, ok := tt.want.(*VLANName); ok && !printableASCII(n.Name) {
			continue
		}
		out = append(out, tt.b)
	}
	return out
}

// printableASCII reports whether b is printable ASCII, which tshark shows
// unchanged in a string field.
func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// TestTsharkMAUNames compares the operational MAU type names of the
// MAC/PHY view (mauNames) with those tshark gives the values of
// lldp.ieee.802_3.pmd_mau_type (tshark -G values: "V", field, value,
// description), up to the first " - " of the description.
func TestTsharkMAUNames(t *testing.T) {
	tshark := lookTshark(t)
	cmd := exec.CommandContext(t.Context(), tshark, "-G", "values")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark -G values: %v", err)
	}
	// Wireshark's misspellings, which mauNames corrects to RFC 4836's
	// dot3MauType names.
	fixed := map[uint64]string{13: "10BaseFLDF", 20: "100BaseT2DF"}
	seen := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 4 || f[0] != "V" || f[1] != "lldp.ieee.802_3.pmd_mau_type" {
			continue
		}
		v, err := strconv.ParseUint(f[2], 0, 16)
		if err != nil {
			t.Fatalf("tshark value %q: %v", f[2], err)
		}
		name, _, _ := strings.Cut(f[3], " - ")
		seen++
		switch {
		case v >= uint64(len(mauNames)):
			t.Errorf("tshark names MAU type %d %q, mauNames stops at %d", v, name, len(mauNames)-1)
		case fixed[v] != "":
			if name != fixed[v] {
				t.Errorf("MAU type %d: tshark %q, expected its misspelling %q (mauNames %q)", v, name, fixed[v], mauNames[v])
			}
		case mauNames[v] != name:
			t.Errorf("MAU type %d: tshark %q, mauNames %q", v, name, mauNames[v])
		}
	}
	if seen != len(mauNames) {
		t.Errorf("tshark names %d MAU types, mauNames %d", seen, len(mauNames))
	}
}

// writePcap writes Ethernet frames to a new classic pcap file.
func writePcap(t *testing.T, file string, frames ...[]byte) string {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, frame := range frames {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

// compareTshark compares the frames with tshark's JSON for them.
func compareTshark(t *testing.T, frames []capturedFrame, js []byte) {
	t.Helper()
	root, err := testbed.DecodeJSON(json.NewDecoder(bytes.NewReader(js)))
	if err != nil {
		t.Fatalf("tshark JSON: %v", err)
	}
	if len(root.Kids) != len(frames) {
		t.Fatalf("tshark shows %d frames, the pcap has %d", len(root.Kids), len(frames))
	}
	for i, f := range frames {
		t.Run(f.name(), func(t *testing.T) {
			lldp := root.Kids[i].Path("_source", "layers", "lldp")
			if lldp == nil {
				t.Fatal("tshark shows no lldp layer")
			}
			checkTsharkFrame(t, mustParse(t, lldpduOf(t, f.data)), lldp)
		})
	}
}

// A fieldChecker compares the fields of one tshark subtree with dcbtop's
// values and, at done, fails on any field it was not told about: no field
// tshark shows is skipped without a reason.
type fieldChecker struct {
	t    *testing.T
	name string
	n    *testbed.JSONNode
	used []bool
}

func newChecker(t *testing.T, name string, n *testbed.JSONNode) *fieldChecker {
	return &fieldChecker{t: t, name: name, n: n, used: make([]bool, len(n.Kids))}
}

// find returns the index of the first unused leaf called key, or -1.
func (c *fieldChecker) find(key string) int {
	for i, k := range c.n.Kids {
		if !c.used[i] && k.Leaf && k.Key == key {
			return i
		}
	}
	return -1
}

// take returns the first unused leaf called key and marks it used.
func (c *fieldChecker) take(key string) (string, bool) {
	i := c.find(key)
	if i < 0 {
		return "", false
	}
	c.used[i] = true
	return c.n.Kids[i].Val, true
}

// eq checks that tshark shows key with the number want. Numbers may be
// decimal or 0x-prefixed hex, as tshark prints them.
func (c *fieldChecker) eq(key string, want uint64) {
	c.t.Helper()
	s, ok := c.take(key)
	if !ok {
		c.t.Errorf("%s: tshark does not show %s (dcbtop: %d)", c.name, key, want)
		return
	}
	got, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		c.t.Errorf("%s: tshark %s = %q: %v", c.name, key, s, err)
		return
	}
	if got != want {
		c.t.Errorf("%s: tshark %s = %d, dcbtop %d", c.name, key, got, want)
	}
}

// eqAny is eq for a field whose name differs between tshark versions.
func (c *fieldChecker) eqAny(keys []string, want uint64) {
	c.t.Helper()
	for _, k := range keys {
		if c.find(k) >= 0 {
			c.eq(k, want)
			return
		}
	}
	c.t.Errorf("%s: tshark shows none of %v (dcbtop: %d)", c.name, keys, want)
}

// absent checks that tshark does not show key.
func (c *fieldChecker) absent(key string) {
	c.t.Helper()
	if s, ok := c.take(key); ok {
		c.t.Errorf("%s: tshark shows %s = %s, dcbtop has no such value", c.name, key, s)
	}
}

// skip consumes key, which dcbtop has no value for; why says so.
func (c *fieldChecker) skip(key, why string) {
	_ = why
	for {
		if _, ok := c.take(key); !ok {
			return
		}
	}
}

// skipPrefix consumes every member whose name starts with prefix,
// subtrees included; dcbtop has no value for them, why says so.
func (c *fieldChecker) skipPrefix(prefix, why string) {
	_ = why
	for i, k := range c.n.Kids {
		if strings.HasPrefix(k.Key, prefix) {
			c.used[i] = true
		}
	}
}

// tree returns a checker for the first unused object member called key
// and consumes it; when tshark does not show it, it fails and returns a
// checker of nothing.
func (c *fieldChecker) tree(key string) *fieldChecker {
	c.t.Helper()
	name := c.name + " " + key
	for i, k := range c.n.Kids {
		if !c.used[i] && !k.Leaf && k.Key == key {
			c.used[i] = true
			return newChecker(c.t, name, &c.n.Kids[i])
		}
	}
	c.t.Errorf("%s: tshark does not show %s", c.name, key)
	return newChecker(c.t, name, &testbed.JSONNode{})
}

// skipAll consumes everything, for TLVs dcbtop compares by type and
// length only.
func (c *fieldChecker) skipAll() {
	for i := range c.used {
		c.used[i] = true
	}
}

// subtrees returns the unused object members, in order, and consumes them.
func (c *fieldChecker) subtrees() []*testbed.JSONNode {
	var out []*testbed.JSONNode
	for i := range c.n.Kids {
		if !c.used[i] && !c.n.Kids[i].Leaf {
			c.used[i] = true
			out = append(out, &c.n.Kids[i])
		}
	}
	return out
}

// entries consumes the unused object members, one per entry of a table
// dcbtop has n entries in, and returns a checker for each; when tshark
// shows another number of entries it fails and returns none.
func (c *fieldChecker) entries(what string, n int) []*fieldChecker {
	c.t.Helper()
	trees := c.subtrees()
	if len(trees) != n {
		c.t.Errorf("%s: tshark shows %d %s entries, dcbtop %d", c.name, len(trees), what, n)
		return nil
	}
	out := make([]*fieldChecker, n)
	for i, tree := range trees {
		out[i] = newChecker(c.t, fmt.Sprintf("%s entry %d (%s)", c.name, i, tree.Key), tree)
	}
	return out
}

// done fails on every member nobody looked at.
func (c *fieldChecker) done() {
	c.t.Helper()
	for i, k := range c.n.Kids {
		if c.used[i] {
			continue
		}
		if strings.HasPrefix(k.Key, "_ws.") {
			c.t.Errorf("%s: tshark reports a problem: %s", c.name, valOr(k.Path("_ws.expert.message"), k.Key))
			continue
		}
		c.t.Errorf("%s: tshark field %s = %q not compared with dcbtop", c.name, k.Key, k.Val)
	}
}

// valOr returns n's value, or s when n is nil.
func valOr(n *testbed.JSONNode, s string) string {
	if n == nil {
		return s
	}
	return n.Val
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// checkTsharkFrame compares tshark's lldp layer with du. The mapping of
// tshark 4.0 field names to dcbtop (Wireshark reuses its CEE field names
// for the IEEE ETS tables):
//
//	every TLV         lldp.tlv.type, lldp.tlv.len      TLV type, length of the re-encoded value
//	Chassis/Port ID   lldp.chassis.subtype, lldp.port.subtype, lldp.*.id.mac
//	TTL               lldp.time_to_live
//	org TLVs          lldp.orgtlv.oui (decimal), lldp.ieee.802_1.subtype
//	ETS Config/Reco   lldp.dcbx.ieee.willing            ETS.Willing (config only)
//	                  lldp.dcbx.ieee.ets.cbs            ETS.CBS (config only)
//	                  lldp.dcbx.ieee.ets.maxtcs         ETS.MaxTCs, wire value (0 = 8)
//	                  lldp.dcbx.feature.pg.pgid_prioN   ETS.PrioTC[N]
//	                  lldp.dcbx.feature.pg.perN         ETS.Bandwidth[N]
//	                  lldp.dcbx.ieee.ets.tsaN           ETS.TSA[N]
//	                  lldp.dcbx.feature.pg.reserved     byte 4 of the Recommendation: reserved, not kept
//	PFC               lldp.dcbx.ieee.willing, lldp.dcbx.ieee.pfc.mbc
//	                  lldp.dcbx.ieee.pfc.numtcs         PFC.Cap
//	                  lldp.dcbx.feature.pfc.prioN       PFC.Enabled bit N
//	APP               lldp.dcbx.ieee.app.reserved       byte 4: reserved, not kept
//	                  one subtree per entry, in order:
//	                  lldp.dcbx.ieee.app.prio           AppEntry.Priority
//	                  lldp.dcbx.iee.app.sf              AppEntry.Selector (number; tshark calls 5 "Reserved")
//	                  lldp.dcbx.feature.app.proto       AppEntry.Protocol
//	CEE               lldp.dcbx.proto                   subtype (2)
//	                  one subtree per sub-TLV, in wire order; the first of
//	                  each type is CEE.Control/PG/PFC/App, the rest CEE.Other:
//	                  lldp.dcbx.type, lldp.dcbx.len     sub-TLV type and length
//	                  lldp.dcbx.version, max_version    OperVersion, MaxVersion
//	                  lldp.dcbx.control.seq, .ack       CEEControl.SeqNo, AckNo
//	                  lldp.dcbx.feature.enabled, willing, error, subtype   CEEFeature
//	                  lldp.dcbx.feature.pg.pgid_prioN, perN, numtcs       CEEPG
//	                  lldp.dcbx.feature.pfc.prioN, numtcs                 CEEPFC
//	                  per APP entry: lldp.dcbx.feature.app.proto, .sf     Protocol, Selector
//	                  lldp.dcbx.feature.app.prio        lowest priority in PriorityMap
//	                                                    (tshark shows one; absent when the map is 0)
//	                  lldp.dcbx.feature.app.oui         upper OUI bits of the selector field: not kept
//
// The basic IEEE 802.1 TLVs (subtype lldp.ieee.802_1.subtype):
//
//	Port VLAN ID      lldp.ieee.802_1.port_vlan.id      PortVLANID.PVID
//	Port And Protocol lldp.ieee.802_1.port_and_vlan_id_flag                  ProtocolVLANID.Flags
//	VLAN ID           ..._tree: .port_and_vlan_id_flag.supported, .enabled   Supported(), Enabled()
//	                  lldp.ieee.802_1.port_proto_vlan.id                     ProtocolVLANID.PPVID
//	VLAN Name         lldp.ieee.802_1.vlan.id, .vlan.name_len, .vlan.name    VID, len(Name), Name
//	                                                    (no name field for an empty name)
//	Protocol Identity lldp.ieee.802_1.proto.id_length, .proto.id             len(Identity), Identity (aa:bb hex)
//	Link Aggregation  lldp.ieee.802_1.aggregation_status                     LinkAggregation.Status
//	                  ..._tree: .aggregation_status.cap, .enabled, .porttype Capable(), Enabled(), PortType()
//	                  lldp.ieee.802_1.aggregated_port_id                     PortID
//	Congestion Notif. lldp.ieee.802_1qau.cnpv.prioN, .ready.prioN            CNPV, Ready bit N
//
// and IEEE 802.3 TLVs (subtype lldp.ieee.802_3.subtype):
//
//	MAC/PHY           lldp.ieee.802_3.mac_phy_auto_neg_status                MACPHYStatus.Autoneg
//	                  ..._tree: .mac_phy_auto_neg_status.supported, .enabled AutonegSupported(), AutonegEnabled()
//	                  lldp.ieee.802_3.pmd_auto_neg_advertised_caps           Advertised
//	                  ..._tree: .pmd_auto_neg_advertised_caps.NAME           Advertised bit, named as autonegNames
//	                                                    (tsharkAutoneg; the "inverse (wrong) bitorder" tree is skipped)
//	                  lldp.ieee.802_3.pmd_mau_type                           MAUType (names: TestTsharkMAUNames)
//	Power via MDI     lldp.ieee.802_3.mdi_power_support                      PowerViaMDI.Support
//	                  ..._tree: .port_class, .supported, .enabled, .pse_pairs PSE(), PSESupported(), PSEEnabled(), PairsControl()
//	                  lldp.ieee.802_3.mdi_pse_pair, .mdi_power_class         PowerPair, PowerClass
//	                  lldp.ieee.802_3.mdi_power_type, _source, _priority,    Extension (802.3at), which dcbtop keeps raw:
//	                  .mdi_pde_requested, .mdi_pse_allocated                 compared with its bytes
//	                  lldp.ieee.802_3.bt_*                                   Extension (802.3bt): skipped
//	Link Aggregation  as the 802.1 one under lldp.ieee.802_3, without porttype;
//	                  lldp.ieee.802_3.subtype_tree holds tshark's "TLV has been deprecated"
//	Max Frame Size    lldp.ieee.802_3.max_frame_size                         MaxFrameSize.Size
//
// Other TLVs (text, capabilities, management address, raw) are compared by
// type and length only.
func checkTsharkFrame(t *testing.T, du *DU, lldp *testbed.JSONNode) {
	t.Helper()
	var tlvs []*testbed.JSONNode
	for i := range lldp.Kids {
		k := &lldp.Kids[i]
		if !k.Leaf && k.Path("lldp.tlv.type") != nil {
			tlvs = append(tlvs, k)
		}
	}
	if n := len(tlvs); n > 0 && tlvs[n-1].Path("lldp.tlv.type").Val == "0" {
		tlvs = tlvs[:n-1] // End
	}
	if len(tlvs) != 3+len(du.TLVs) {
		t.Fatalf("tshark shows %d TLVs before End, dcbtop %d", len(tlvs), 3+len(du.TLVs))
	}
	for i, n := range tlvs {
		var typ TLVType
		var value []byte
		var tlv TLV
		switch i {
		case 0:
			typ, value = TLVTypeChassisID, cat([]byte{byte(du.ChassisID.Subtype)}, du.ChassisID.ID)
		case 1:
			typ, value = TLVTypePortID, cat([]byte{byte(du.PortID.Subtype)}, du.PortID.ID)
		case 2:
			typ, value = TLVTypeTTL, binary.BigEndian.AppendUint16(nil, du.TTL)
		default:
			tlv = du.TLVs[i-3]
			b, err := AppendTLV(nil, tlv)
			if err != nil {
				t.Fatalf("TLV %d: %v", i, err)
			}
			typ, value = tlv.Type(), b[2:]
		}
		c := newChecker(t, fmt.Sprintf("TLV %d (%s)", i, n.Key), n)
		c.eq("lldp.tlv.type", uint64(typ))
		c.eq("lldp.tlv.len", uint64(len(value)))
		switch i {
		case 0:
			c.eq("lldp.chassis.subtype", uint64(du.ChassisID.Subtype))
			if du.ChassisID.Subtype == ChassisIDSubtypeMACAddress {
				c.eqString("lldp.chassis.id.mac", idMAC(du.ChassisID.ID))
			}
			c.skipAll()
		case 1:
			c.eq("lldp.port.subtype", uint64(du.PortID.Subtype))
			if du.PortID.Subtype == PortIDSubtypeMACAddress {
				c.eqString("lldp.port.id.mac", idMAC(du.PortID.ID))
			}
			c.skipAll()
		case 2:
			c.eq("lldp.time_to_live", uint64(du.TTL))
		}
		switch x := tlv.(type) {
		case *ETS:
			checkTsharkETS(c, x)
		case *PFC:
			checkTsharkPFC(c, x)
		case *AppPriority:
			checkTsharkApp(c, x)
		case *CEE:
			checkTsharkCEE(c, x)
		case *PortVLANID:
			checkTsharkOrg(c, OUIIEEE8021, SubtypePortVLANID, tshark8021Sub)
			c.eq("lldp.ieee.802_1.port_vlan.id", uint64(x.PVID))
		case *ProtocolVLANID:
			checkTsharkProtocolVLANID(c, x)
		case *VLANName:
			checkTsharkVLANName(c, x)
		case *ProtocolIdentity:
			checkTsharkProtocolIdentity(c, x)
		case *LinkAggregation:
			checkTsharkLinkAggregation(c, x)
		case *CongestionNotification:
			checkTsharkOrg(c, OUIIEEE8021, SubtypeCongestionNotification, tshark8021Sub)
			for p := range 8 {
				c.eq(fmt.Sprintf("lldp.ieee.802_1qau.cnpv.prio%d", p), uint64(x.CNPV>>p&1))
			}
			for p := range 8 {
				c.eq(fmt.Sprintf("lldp.ieee.802_1qau.ready.prio%d", p), uint64(x.Ready>>p&1))
			}
		case *MACPHYStatus:
			checkTsharkMACPHY(c, x)
		case *PowerViaMDI:
			checkTsharkPower(c, x)
		case *MaxFrameSize:
			checkTsharkOrg(c, OUIIEEE8023, SubtypeMaxFrameSize, tshark8023Sub)
			c.eq("lldp.ieee.802_3.max_frame_size", uint64(x.Size))
		case nil:
		default:
			c.skipAll() // text, capabilities, management address, raw
		}
		c.done()
	}
}

func (c *fieldChecker) eqString(key, want string) {
	c.t.Helper()
	if got, ok := c.take(key); !ok || got != want {
		c.t.Errorf("%s: tshark %s = %q (shown %v), dcbtop %q", c.name, key, got, ok, want)
	}
}

func checkTsharkOrg(c *fieldChecker, oui OUI, sub uint8, subKey string) {
	c.t.Helper()
	c.eq("lldp.orgtlv.oui", uint64(oui[0])<<16|uint64(oui[1])<<8|uint64(oui[2]))
	c.eq(subKey, uint64(sub))
}

func checkTsharkETS(c *fieldChecker, e *ETS) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, e.Subtype(), "lldp.ieee.802_1.subtype")
	if e.Recommendation {
		c.skip("lldp.dcbx.feature.pg.reserved", "byte 4 of the Recommendation is reserved; dcbtop does not keep it")
		c.absent("lldp.dcbx.ieee.willing")
		c.absent("lldp.dcbx.ieee.ets.cbs")
		c.absent("lldp.dcbx.ieee.ets.maxtcs")
	} else {
		c.eq("lldp.dcbx.ieee.willing", b2u(e.Willing))
		c.eq("lldp.dcbx.ieee.ets.cbs", b2u(e.CBS))
		c.eq("lldp.dcbx.ieee.ets.maxtcs", uint64(e.MaxTCs%8)) // 8 is sent as 0
	}
	for p := range 8 {
		c.eq(fmt.Sprintf("lldp.dcbx.feature.pg.pgid_prio%d", p), uint64(e.PrioTC[p]))
	}
	for tc := range 8 {
		c.eq(fmt.Sprintf("lldp.dcbx.feature.pg.per%d", tc), uint64(e.Bandwidth[tc]))
		c.eq(fmt.Sprintf("lldp.dcbx.ieee.ets.tsa%d", tc), uint64(e.TSA[tc]))
	}
}

func checkTsharkPFC(c *fieldChecker, p *PFC) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, SubtypePFC, "lldp.ieee.802_1.subtype")
	c.eq("lldp.dcbx.ieee.willing", b2u(p.Willing))
	c.eq("lldp.dcbx.ieee.pfc.mbc", b2u(p.MBC))
	c.eq("lldp.dcbx.ieee.pfc.numtcs", uint64(p.Cap))
	for prio := range 8 {
		c.eq(fmt.Sprintf("lldp.dcbx.feature.pfc.prio%d", prio), uint64(p.Enabled>>prio&1))
	}
}

func checkTsharkApp(c *fieldChecker, a *AppPriority) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, SubtypeAppPriority, "lldp.ieee.802_1.subtype")
	c.skip("lldp.dcbx.ieee.app.reserved", "byte 4 is reserved; dcbtop does not keep it")
	for i, ec := range c.entries("APP", len(a.Entries)) {
		e := a.Entries[i]
		ec.eq("lldp.dcbx.ieee.app.prio", uint64(e.Priority))
		ec.eqAny([]string{"lldp.dcbx.iee.app.sf", "lldp.dcbx.ieee.app.sf"}, uint64(e.Selector))
		ec.eq("lldp.dcbx.feature.app.proto", uint64(e.Protocol))
		ec.done()
	}
}

func checkTsharkCEE(c *fieldChecker, x *CEE) {
	c.t.Helper()
	checkTsharkOrg(c, OUICEE, SubtypeCEE, "lldp.dcbx.proto")
	var seen [5]bool
	other := x.Other
	for i, n := range c.subtrees() {
		sc := newChecker(c.t, fmt.Sprintf("%s sub-TLV %d (%s)", c.name, i, n.Key), n)
		typ, _ := strconv.Atoi(valOr(n.Path("lldp.dcbx.type"), "-1"))
		first := typ >= ceeSubControl && typ <= ceeSubApp && !seen[typ]
		if first {
			seen[typ] = true
		}
		switch {
		case first && typ == ceeSubControl:
			ctl := x.Control
			sc.eq("lldp.dcbx.type", ceeSubControl)
			sc.eq("lldp.dcbx.len", ceeControlLen)
			sc.eq("lldp.dcbx.version", uint64(ctl.OperVersion))
			sc.eq("lldp.dcbx.max_version", uint64(ctl.MaxVersion))
			sc.eq("lldp.dcbx.control.seq", uint64(ctl.SeqNo))
			sc.eq("lldp.dcbx.control.ack", uint64(ctl.AckNo))
		case first && typ == ceeSubPG:
			pg := x.PG
			sc.eq("lldp.dcbx.type", ceeSubPG)
			sc.eq("lldp.dcbx.len", ceePGLen)
			checkTsharkFeature(sc, &pg.CEEFeature)
			for p := range 8 {
				sc.eq(fmt.Sprintf("lldp.dcbx.feature.pg.pgid_prio%d", p), uint64(pg.PGID[p]))
				sc.eq(fmt.Sprintf("lldp.dcbx.feature.pg.per%d", p), uint64(pg.Bandwidth[p]))
			}
			sc.eq("lldp.dcbx.feature.pg.numtcs", uint64(pg.NumTCs))
		case first && typ == ceeSubPFC:
			p := x.PFC
			sc.eq("lldp.dcbx.type", ceeSubPFC)
			sc.eq("lldp.dcbx.len", ceePFCLen)
			checkTsharkFeature(sc, &p.CEEFeature)
			for prio := range 8 {
				sc.eq(fmt.Sprintf("lldp.dcbx.feature.pfc.prio%d", prio), uint64(p.Enabled>>prio&1))
			}
			sc.eq("lldp.dcbx.feature.pfc.numtcs", uint64(p.NumTCs))
		case first && typ == ceeSubApp:
			a := x.App
			sc.eq("lldp.dcbx.type", ceeSubApp)
			sc.eq("lldp.dcbx.len", uint64(ceeFeatureLen+ceeAppEntryLen*len(a.Entries)))
			checkTsharkFeature(sc, &a.CEEFeature)
			for j, ec := range sc.entries("CEE APP", len(a.Entries)) {
				e := a.Entries[j]
				ec.eq("lldp.dcbx.feature.app.proto", uint64(e.Protocol))
				ec.eq("lldp.dcbx.feature.app.sf", uint64(e.Selector))
				ec.skip("lldp.dcbx.feature.app.oui", "the OUI bits around the selector; dcbtop does not keep them")
				if e.PriorityMap == 0 {
					ec.absent("lldp.dcbx.feature.app.prio")
				} else {
					ec.eq("lldp.dcbx.feature.app.prio", uint64(bits.TrailingZeros8(e.PriorityMap)))
				}
				ec.done()
			}
		default:
			// A repeated or unknown sub-TLV, kept raw in CEE.Other.
			if len(other) == 0 {
				c.t.Errorf("%s: tshark shows sub-TLV type %d that dcbtop does not have", sc.name, typ)
				sc.skipAll()
				break
			}
			o := other[0]
			other = other[1:]
			sc.eq("lldp.dcbx.type", uint64(o.Type))
			sc.eq("lldp.dcbx.len", uint64(len(o.Value)))
			sc.skipAll() // tshark dissects the raw value as it can; dcbtop keeps bytes
		}
		sc.done()
	}
	if len(other) != 0 {
		c.t.Errorf("%s: dcbtop has %d more sub-TLVs than tshark shows", c.name, len(other))
	}
	for typ, ok := range [5]bool{false, x.Control != nil, x.PG != nil, x.PFC != nil, x.App != nil} {
		if ok != seen[typ] {
			c.t.Errorf("%s: sub-TLV type %d: dcbtop has it %v, tshark shows it %v", c.name, typ, ok, seen[typ])
		}
	}
}

func checkTsharkFeature(c *fieldChecker, f *CEEFeature) {
	c.t.Helper()
	c.eq("lldp.dcbx.version", uint64(f.OperVersion))
	c.eq("lldp.dcbx.max_version", uint64(f.MaxVersion))
	c.eq("lldp.dcbx.feature.enabled", b2u(f.Enable))
	c.eq("lldp.dcbx.feature.willing", b2u(f.Willing))
	c.eq("lldp.dcbx.feature.error", b2u(f.Error))
	c.eq("lldp.dcbx.feature.subtype", uint64(f.Subtype))
}

// The subtype fields of the IEEE 802.1 and 802.3 OUIs.
const (
	tshark8021Sub = "lldp.ieee.802_1.subtype"
	tshark8023Sub = "lldp.ieee.802_3.subtype"
)

func checkTsharkProtocolVLANID(c *fieldChecker, p *ProtocolVLANID) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, SubtypeProtocolVLANID, tshark8021Sub)
	c.eq("lldp.ieee.802_1.port_and_vlan_id_flag", uint64(p.Flags))
	fc := c.tree("lldp.ieee.802_1.port_and_vlan_id_flag_tree")
	fc.eq("lldp.ieee.802_1.port_and_vlan_id_flag.supported", b2u(p.Supported()))
	fc.eq("lldp.ieee.802_1.port_and_vlan_id_flag.enabled", b2u(p.Enabled()))
	fc.done()
	c.eq("lldp.ieee.802_1.port_proto_vlan.id", uint64(p.PPVID))
}

func checkTsharkVLANName(c *fieldChecker, n *VLANName) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, SubtypeVLANName, tshark8021Sub)
	c.eq("lldp.ieee.802_1.vlan.id", uint64(n.VID))
	c.eq("lldp.ieee.802_1.vlan.name_len", uint64(len(n.Name)))
	switch {
	case len(n.Name) == 0:
		c.absent("lldp.ieee.802_1.vlan.name")
	case printableASCII(n.Name):
		c.eqString("lldp.ieee.802_1.vlan.name", string(n.Name))
	default:
		c.skip("lldp.ieee.802_1.vlan.name", "tshark shows bytes outside printable ASCII its own way")
	}
}

func checkTsharkProtocolIdentity(c *fieldChecker, p *ProtocolIdentity) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8021, SubtypeProtocolIdentity, tshark8021Sub)
	c.eq("lldp.ieee.802_1.proto.id_length", uint64(len(p.Identity)))
	if len(p.Identity) == 0 {
		c.absent("lldp.ieee.802_1.proto.id")
	} else {
		c.eqString("lldp.ieee.802_1.proto.id", hexBytes(p.Identity))
	}
}

func checkTsharkLinkAggregation(c *fieldChecker, l *LinkAggregation) {
	c.t.Helper()
	prefix := "lldp.ieee.802_1."
	if l.OUI == OUIIEEE8023 {
		prefix = "lldp.ieee.802_3."
	}
	checkTsharkOrg(c, l.OUI, l.Subtype(), prefix+"subtype")
	if l.OUI == OUIIEEE8023 {
		st := c.tree(prefix + "subtype_tree")
		ex := st.tree("_ws.expert")
		ex.eqString("_ws.expert.message", "TLV has been deprecated")
		ex.skipAll() // its severity and group
		ex.done()
		st.done()
	}
	c.eq(prefix+"aggregation_status", uint64(l.Status))
	sc := c.tree(prefix + "aggregation_status_tree")
	sc.eq(prefix+"aggregation_status.cap", b2u(l.Capable()))
	sc.eq(prefix+"aggregation_status.enabled", b2u(l.Enabled()))
	if l.OUI == OUIIEEE8021 {
		sc.eq(prefix+"aggregation_status.porttype", uint64(l.PortType()))
	}
	sc.done()
	c.eq(prefix+"aggregated_port_id", uint64(l.PortID))
}

// tsharkAutoneg are tshark's names of the bits of the PMD auto-negotiation
// advertised capability (lldp.ieee.802_3.pmd_auto_neg_advertised_caps.*),
// most significant bit first, next to dcbtop's (autonegNames).
var tsharkAutoneg = [16][2]string{
	{"other", "other"}, {"10base_t", "10BASE-T"}, {"10base_tfd", "10BASE-T FD"}, {"100base_t4", "100BASE-T4"},
	{"100base_tx", "100BASE-TX"}, {"100base_txfd", "100BASE-TX FD"}, {"100base_t2", "100BASE-T2"}, {"100base_t2fd", "100BASE-T2 FD"},
	{"fdx_pause", "PAUSE"}, {"fdx_apause", "asym PAUSE"}, {"fdx_spause", "sym PAUSE"}, {"fdx_bpause", "asym+sym PAUSE"},
	{"1000base_x", "1000BASE-X"}, {"1000base_xfd", "1000BASE-X FD"}, {"1000base_t", "1000BASE-T"}, {"1000base_tfd", "1000BASE-T FD"},
}

func checkTsharkMACPHY(c *fieldChecker, m *MACPHYStatus) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8023, SubtypeMACPHYStatus, tshark8023Sub)
	c.eq("lldp.ieee.802_3.mac_phy_auto_neg_status", uint64(m.Autoneg))
	ac := c.tree("lldp.ieee.802_3.mac_phy_auto_neg_status_tree")
	ac.eq("lldp.ieee.802_3.mac_phy_auto_neg_status.supported", b2u(m.AutonegSupported()))
	ac.eq("lldp.ieee.802_3.mac_phy_auto_neg_status.enabled", b2u(m.AutonegEnabled()))
	ac.done()
	c.eq("lldp.ieee.802_3.pmd_auto_neg_advertised_caps", uint64(m.Advertised))
	cc := c.tree("lldp.ieee.802_3.pmd_auto_neg_advertised_caps_tree")
	for i, n := range tsharkAutoneg {
		if autonegNames[i] != n[1] {
			c.t.Errorf("advertised capability bit %#04x: dcbtop names it %q, want %q (tshark %s)", 0x8000>>i, autonegNames[i], n[1], n[0])
		}
		cc.eq("lldp.ieee.802_3.pmd_auto_neg_advertised_caps."+n[0], uint64(m.Advertised>>(15-i)&1))
	}
	cc.done()
	inv := c.tree("Same in inverse (wrong) bitorder")
	inv.skipAll() // tshark's reading of the field with the bits reversed, which lldpd and RFC 4836 do not use
	inv.done()
	c.eq("lldp.ieee.802_3.pmd_mau_type", uint64(m.MAUType))
}

func checkTsharkPower(c *fieldChecker, p *PowerViaMDI) {
	c.t.Helper()
	checkTsharkOrg(c, OUIIEEE8023, SubtypePowerViaMDI, tshark8023Sub)
	c.eq("lldp.ieee.802_3.mdi_power_support", uint64(p.Support))
	sc := c.tree("lldp.ieee.802_3.mdi_power_support_tree")
	sc.eq("lldp.ieee.802_3.mdi_power_support.port_class", b2u(p.PSE()))
	sc.eq("lldp.ieee.802_3.mdi_power_support.supported", b2u(p.PSESupported()))
	sc.eq("lldp.ieee.802_3.mdi_power_support.enabled", b2u(p.PSEEnabled()))
	sc.eq("lldp.ieee.802_3.mdi_power_support.pse_pairs", b2u(p.PairsControl()))
	sc.done()
	c.eq("lldp.ieee.802_3.mdi_pse_pair", uint64(p.PowerPair))
	c.eq("lldp.ieee.802_3.mdi_power_class", uint64(p.PowerClass))
	at := []string{"lldp.ieee.802_3.mdi_power_type", "lldp.ieee.802_3.mdi_power_source", "lldp.ieee.802_3.mdi_power_priority",
		"lldp.ieee.802_3.mdi_pde_requested", "lldp.ieee.802_3.mdi_pse_allocated"}
	if x := p.Extension; len(x) >= powerATExtLen {
		// dcbtop keeps the 802.3at fields raw: its bytes are where
		// tshark reads them.
		for i, v := range []uint64{uint64(x[0] >> 6), uint64(x[0] >> 4 & 3), uint64(x[0] & 0xf),
			uint64(binary.BigEndian.Uint16(x[1:])), uint64(binary.BigEndian.Uint16(x[3:]))} {
			c.eq(at[i], v)
		}
	} else {
		for _, k := range at {
			c.absent(k)
		}
	}
	if len(p.Extension) == powerBTExtLen {
		c.skipPrefix("lldp.ieee.802_3.bt_", "the 802.3bt fields, which dcbtop keeps raw")
	}
}
