// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"path"
	"strings"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A nameKind is what a name names; its prefix starts the name's
// placeholder.
type nameKind string

// The kinds of names.
const (
	kindIf      nameKind = "if"      // an interface (ours or the peer's Port ID)
	kindHost    nameKind = "host"    // an LLDP System Name
	kindDesc    nameKind = "desc"    // an LLDP System Description
	kindPort    nameKind = "port"    // an LLDP Port Description or Port ID
	kindChassis nameKind = "chassis" // an LLDP Chassis ID
)

var nameKinds = []nameKind{kindIf, kindHost, kindDesc, kindPort, kindChassis}

// minName is the shortest name replaced.
const minName = 3

// A collector gathers the values to hide in the first pass, each once, in
// order of first appearance, and the placeholders the file already holds
// (taken: never keys, never given to another value).
type collector struct {
	macs     []lldp.MAC
	macSeen  map[lldp.MAC]bool
	v4       [][4]byte
	v4Seen   map[[4]byte]bool
	v6       [][16]byte
	v6Seen   map[[16]byte]bool
	gids     map[[16]byte]bool // the GID files' values
	names    []string
	nameKind map[string]nameKind
	// short are the names under minName bytes a TLV holds whole, each
	// once; shortSeen holds them (no placeholder may be one).
	short     []string
	shortSeen map[string]bool

	takenMAC  map[lldp.MAC]bool
	takenV4   map[[4]byte]bool
	takenV6   map[[16]byte]bool
	takenName map[string]bool

	// tr checks that the host packets make a recording a replay reads
	// (tape.Reader: requests with replies, rounds that end).
	tr tape.Reader
}

func newCollector() *collector {
	return &collector{
		macSeen: map[lldp.MAC]bool{}, v4Seen: map[[4]byte]bool{}, v6Seen: map[[16]byte]bool{},
		gids: map[[16]byte]bool{}, nameKind: map[string]nameKind{}, shortSeen: map[string]bool{},
		takenMAC: map[lldp.MAC]bool{}, takenV4: map[[4]byte]bool{}, takenV6: map[[16]byte]bool{}, takenName: map[string]bool{},
	}
}

// end checks the recording ended between rounds (tape.Reader.End).
func (c *collector) end() error { return c.tr.End() }

// frame collects a frame's interface name, its MACs and its LLDPDU's
// identifiers.
func (c *collector) frame(f capture.Frame) error {
	c.addName([]byte(f.Interface), kindIf)
	d := f.Data
	if len(d) < 12 {
		return nil
	}
	c.addMAC(lldp.MAC(d[6:12]))
	c.addMAC(lldp.MAC(d[0:6])) // kept out when multicast, as LLDP's groups are
	_, b, err := lldp.SplitFrame(d)
	if err != nil {
		return nil // not LLDP: its MACs only
	}
	du, err := lldp.Parse(b)
	if err != nil || len(du.Discarded) > 0 {
		// What Parse rejects or leaves out is hidden too: read the
		// TLVs as they come.
		c.rawTLVs(b)
	}
	if err != nil {
		return nil
	}
	c.chassisID(uint8(du.ChassisID.Subtype), du.ChassisID.ID)
	c.portID(uint8(du.PortID.Subtype), du.PortID.ID)
	for _, t := range du.TLVs {
		switch t := t.(type) {
		case *lldp.Text:
			c.text(t.Kind, []byte(t.Value))
		case *lldp.ManagementAddress:
			c.mgmtAddress(t.Family, t.Address)
		case *lldp.VLANName:
			c.addTLVName(t.Name, kindDesc) // a tenant's or a site's name
		}
	}
	return nil
}

// rawTLVs collects the identifiers of an LLDPDU's TLVs (IEEE Std
// 802.1AB-2016, 8.4.1: a 7-bit type and a 9-bit length) without Parse's
// checks.
func (c *collector) rawTLVs(b []byte) {
	for len(b) >= 2 {
		h := binary.BigEndian.Uint16(b)
		typ, n := lldp.TLVType(h>>9), int(h&0x1ff)
		if typ == lldp.TLVTypeEnd || 2+n > len(b) {
			return
		}
		v := b[2 : 2+n]
		switch typ {
		case lldp.TLVTypeChassisID:
			if len(v) > 1 {
				c.chassisID(v[0], v[1:])
			}
		case lldp.TLVTypePortID:
			if len(v) > 1 {
				c.portID(v[0], v[1:])
			}
		case lldp.TLVTypePortDescription, lldp.TLVTypeSystemName, lldp.TLVTypeSystemDescription:
			c.text(typ, v)
		case lldp.TLVTypeManagementAddress:
			// 8.5.9: address string length (subtype + address),
			// subtype, address.
			if len(v) >= 2 && int(v[0]) >= 2 && 1+int(v[0]) <= len(v) {
				c.mgmtAddress(v[1], v[2:1+int(v[0])])
			}
		}
		b = b[2+n:]
	}
}

// chassisID collects a Chassis ID (IEEE Std 802.1AB-2016, Table 8-2).
func (c *collector) chassisID(subtype uint8, id []byte) {
	switch lldp.ChassisIDSubtype(subtype) {
	case lldp.ChassisIDSubtypeMACAddress:
		c.idMAC(id, kindChassis)
	case lldp.ChassisIDSubtypeNetworkAddress:
		c.networkAddress(id, kindChassis)
	case lldp.ChassisIDSubtypeInterfaceName:
		c.addTLVName(id, kindIf)
	default:
		c.addTLVName(id, kindChassis)
	}
}

// portID collects a Port ID (IEEE Std 802.1AB-2016, Table 8-3).
func (c *collector) portID(subtype uint8, id []byte) {
	switch lldp.PortIDSubtype(subtype) {
	case lldp.PortIDSubtypeMACAddress:
		c.idMAC(id, kindPort)
	case lldp.PortIDSubtypeNetworkAddress:
		c.networkAddress(id, kindPort)
	case lldp.PortIDSubtypeInterfaceName:
		c.addTLVName(id, kindIf)
	default:
		c.addTLVName(id, kindPort)
	}
}

// idMAC collects an ID of the MAC subtype: 6 bytes, else a name.
func (c *collector) idMAC(id []byte, k nameKind) {
	if len(id) == 6 {
		c.addMAC(lldp.MAC(id))
		return
	}
	c.addName(id, k)
}

// networkAddress collects an ID of the network address subtype: an IANA
// address family byte and the address (IEEE Std 802.1AB-2016, 8.5.2.3).
func (c *collector) networkAddress(id []byte, k nameKind) {
	if len(id) > 0 && c.mgmtAddress(id[0], id[1:]) {
		return
	}
	c.addName(id, k)
}

// mgmtAddress collects an address of IANA address family fam (1 IPv4, 2
// IPv6, 6 802 MAC); false if it is none of these.
func (c *collector) mgmtAddress(fam uint8, a []byte) bool {
	switch {
	case fam == 1 && len(a) == 4:
		c.addV4([4]byte(a))
	case fam == 2 && len(a) == 16:
		c.addV6([16]byte(a))
	case fam == 6 && len(a) == 6:
		c.addMAC(lldp.MAC(a))
	default:
		return false
	}
	return true
}

// text collects a string TLV.
func (c *collector) text(typ lldp.TLVType, v []byte) {
	switch typ {
	case lldp.TLVTypeSystemName:
		c.addTLVName(v, kindHost)
	case lldp.TLVTypeSystemDescription:
		c.addTLVName(v, kindDesc)
	case lldp.TLVTypePortDescription:
		c.addTLVName(v, kindPort)
	}
}

// host collects a host packet's values: a host record's interface names,
// MACs, sysfs addresses, GIDs and ndevs; a netlink packet only has to
// decode (it is rewritten with the values found elsewhere).
func (c *collector) host(p pcap.HostPacket) error {
	if _, _, err := c.tr.Add(p); err != nil {
		return err
	}
	if p.Netlink {
		return nil
	}
	rec, err := tape.DecodeHost(p.Data)
	if err != nil {
		return nil // an unknown kind (tr.Add checked the rest): rewritten whole
	}
	switch r := rec.(type) {
	case tape.Begin:
		c.addName([]byte(r.Ifname), kindIf)
	case tape.Link:
		c.addName([]byte(r.Name), kindIf)
		c.addMAC(r.MAC)
	case tape.Ethtool:
		c.addName([]byte(r.Ifname), kindIf)
	case tape.File:
		c.file(r.Op)
	}
	return nil
}

// file collects what a sysfs operation names: the interface of a
// class/net path, the entries of class/net, the MAC of an address file,
// the GID of a gids file, the interface of an ndevs file
// (drivers/infiniband/core/sysfs.c, capture/rdma's doc).
func (c *collector) file(op hostfs.Op) {
	comps := strings.Split(op.Name, "/")
	for i := 0; i+2 < len(comps); i++ {
		if comps[i] == "class" && comps[i+1] == "net" {
			c.addNetdev(comps[i+2])
		}
	}
	if op.Kind == hostfs.OpReadDir && (op.Name == "class/net" || strings.HasSuffix(op.Name, "/class/net")) {
		for _, n := range op.Names {
			c.addNetdev(n)
		}
	}
	if op.Kind != hostfs.OpReadFile || op.Err != nil {
		return
	}
	content := strings.TrimSuffix(string(op.Data), "\n")
	switch {
	case path.Base(op.Name) == "address":
		if len(content) == len("aa:bb:cc:dd:ee:ff") {
			if hw, err := net.ParseMAC(content); err == nil && len(hw) == 6 {
				c.addMAC(lldp.MAC(hw))
			}
		}
	case tailMatch(op.Name, "class/infiniband/*/ports/*/gids/*"):
		if a, ok := parseGID(content); ok && c.addV6(a) {
			c.gids[a] = true
		}
	case tailMatch(op.Name, "class/infiniband/*/ports/*/gid_attrs/ndevs/*"):
		c.addName([]byte(content), kindIf)
	}
}

// addNetdev collects an entry of /sys/class/net: an interface, but for
// the bonding driver's control file (Documentation/networking/bonding.rst),
// whose name a replay asks for as it is.
func (c *collector) addNetdev(name string) {
	if name != "bonding_masters" {
		c.addName([]byte(name), kindIf)
	}
}

// tailMatch reports whether the last components of name match pattern
// (path.Match), as many as pattern has.
func tailMatch(name, pattern string) bool {
	n := strings.Count(pattern, "/") + 1
	comps := strings.Split(name, "/")
	if len(comps) < n {
		return false
	}
	ok, _ := path.Match(pattern, strings.Join(comps[len(comps)-n:], "/"))
	return ok
}

// parseGID parses a GID as show_port_gid prints it ("%pI6": eight groups
// of four lowercase hex digits).
func parseGID(s string) ([16]byte, bool) {
	if len(s) != 39 {
		return [16]byte{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return [16]byte{}, false
	}
	b := a.As16()
	if gidText(b, false) != s && gidText(b, true) != s {
		return [16]byte{}, false
	}
	return b, true
}

// gidText is the text of a GID (upper: in upper-case hex digits).
func gidText(a [16]byte, upper bool) string {
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02x%02x", a[i], a[i+1])
	}
	if upper {
		return strings.ToUpper(sb.String())
	}
	return sb.String()
}

// addMAC collects a MAC address: not the zero, broadcast or a multicast
// address (bit 0 of the first octet, IEEE Std 802-2014, 8.2), which name
// no host; a placeholder is taken.
func (c *collector) addMAC(m lldp.MAC) {
	switch {
	case m == lldp.MAC{} || m[0]&1 != 0 || c.macSeen[m]:
	case isPlaceholderMAC(m):
		c.takenMAC[m] = true
	default:
		c.macSeen[m] = true
		c.macs = append(c.macs, m)
	}
}

// addV4 collects an IPv4 address.
func (c *collector) addV4(a [4]byte) bool {
	switch {
	case a == [4]byte{}:
		return false
	case isPlaceholderV4(a):
		c.takenV4[a] = true
		return false
	case !c.v4Seen[a]:
		c.v4Seen[a] = true
		c.v4 = append(c.v4, a)
	}
	return true
}

// addV6 collects an IPv6 address: an IPv4-mapped one as its IPv4
// address, a link-local one made from a MAC (EUI-64) with its MAC. It
// reports whether a is replaced.
func (c *collector) addV6(a [16]byte) bool {
	if a == [16]byte{} {
		return false
	}
	if isV4Mapped(a) {
		return c.addV4([4]byte(a[12:]))
	}
	if m, ok := euiMAC(a); ok {
		if m == (lldp.MAC{}) || isPlaceholderMAC(m) {
			c.takenV6[a] = true
			return false
		}
		c.addMAC(m)
	}
	switch {
	case isPlaceholderV6(a):
		c.takenV6[a] = true
		return false
	case !c.v6Seen[a]:
		c.v6Seen[a] = true
		c.v6 = append(c.v6, a)
	}
	return true
}

// addName collects a name of kind k, the first kind it is seen as.
func (c *collector) addName(v []byte, k nameKind) {
	s := string(v)
	switch {
	case len(s) < minName || allZero(v) || c.nameKind[s] != "":
	case isPlaceholderName(s):
		c.takenName[s] = true
	default:
		c.nameKind[s] = k
		c.names = append(c.names, s)
	}
}

// addTLVName collects a name an LLDP TLV holds whole: one of minName
// bytes or more as addName does; a shorter one ("vm") too, replaced only
// where a TLV holds it whole (a placeholder that short would match bytes
// everywhere else).
func (c *collector) addTLVName(v []byte, k nameKind) {
	if len(v) >= minName {
		c.addName(v, k)
		return
	}
	s := string(v)
	switch {
	case len(s) == 0 || allZero(v) || c.shortSeen[s]:
	default:
		c.shortSeen[s] = true
		c.short = append(c.short, s)
	}
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }
