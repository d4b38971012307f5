// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A mapping is the second pass's substitution: each value's byte forms
// and their placeholders, of the same lengths.
type mapping struct {
	mac   map[lldp.MAC]lldp.MAC
	v4    map[[4]byte][4]byte
	v6    map[[16]byte][16]byte
	name  map[string]string
	pairs map[string]string // old bytes -> new bytes, every form
	rep   *replacer         // nil when there is nothing to replace
	// short are the names under minName bytes and their placeholders,
	// replaced only where a TLV holds them whole (frame), never as bytes
	// inside others.
	short   map[string]string
	blanked int // TLVs blanked (frame), for the summary
	summary Summary
}

// Placeholder ranges.
var (
	// macPrefix starts every MAC placeholder: a locally administered
	// unicast address (IEEE Std 802-2014, 8.4: bit 1 of the first octet),
	// then the number in three bytes.
	macPrefix = [3]byte{0x02, 0, 0}
	// v4Nets are the IPv4 documentation ranges (RFC 5737): TEST-NET-1,
	// -2 and -3, used in turn.
	v4Nets = [][3]byte{{192, 0, 2}, {198, 51, 100}, {203, 0, 113}}
	// v6Doc is the IPv6 documentation prefix 2001:db8::/32 (RFC 3849).
	v6Doc = [4]byte{0x20, 0x01, 0x0d, 0xb8}
	// linkLocal is the first 64 bits of a link-local address, fe80::/64
	// (RFC 4291, 2.5.6), kept.
	linkLocal = [8]byte{0xfe, 0x80}
	// v4MappedPrefix is the first 96 bits of an IPv4-mapped IPv6 address
	// (RFC 4291, 2.5.5.2), kept.
	v4MappedPrefix = [12]byte{10: 0xff, 11: 0xff}
)

const (
	maxMACs = 1<<24 - 1 // 02:00:00:00:00:01 to 02:00:00:ff:ff:ff
	maxV4   = 254 * 3   // .1 to .254 of each of v4Nets
)

func isPlaceholderMAC(m lldp.MAC) bool { return [3]byte(m[:3]) == macPrefix }

func isPlaceholderV4(a [4]byte) bool {
	return slices.Contains(v4Nets, [3]byte(a[:3]))
}

func isV4Mapped(a [16]byte) bool { return [12]byte(a[:12]) == v4MappedPrefix }

// isPlaceholderV6 reports whether a is in 2001:db8::/32, or link-local
// with an interface ID of the form ::N (not made from a MAC).
func isPlaceholderV6(a [16]byte) bool {
	if [4]byte(a[:4]) == v6Doc {
		return true
	}
	return [8]byte(a[:8]) == linkLocal && [4]byte(a[8:12]) == [4]byte{}
}

// euiMAC returns the MAC a link-local address's interface ID was made
// from (modified EUI-64, RFC 4291, Appendix A: ff:fe in the middle, the
// universal/local bit inverted).
func euiMAC(a [16]byte) (lldp.MAC, bool) {
	if [8]byte(a[:8]) != linkLocal || a[11] != 0xff || a[12] != 0xfe {
		return lldp.MAC{}, false
	}
	return lldp.MAC{a[8] ^ 2, a[9], a[10], a[13], a[14], a[15]}, true
}

// euiAddr is the link-local address made from m (modified EUI-64).
func euiAddr(m lldp.MAC) [16]byte {
	var a [16]byte
	copy(a[:], linkLocal[:])
	a[8], a[9], a[10], a[11], a[12] = m[0]^2, m[1], m[2], 0xff, 0xfe
	a[13], a[14], a[15] = m[3], m[4], m[5]
	return a
}

// placeholderName is the placeholder number n of length l for a name of
// kind k: its prefix (cut to leave room for n's digits), zeros, n's
// digits; false if n's digits leave no room for a letter. Past the
// decimal numbers that fit (99 for 3 bytes), the numbers go on in base 36
// after a "~" ("~01" after "i99" for 3 bytes: 1,295 more), so that a busy
// link's names still get placeholders.
func placeholderName(k nameKind, n, l int) (string, bool) {
	d := strconv.Itoa(n)
	if len(d) >= l {
		// The decimal numbers of this length are used up: base 36.
		return extendedName(n-decimalNames(l), l)
	}
	p := string(k)
	if len(p)+len(d) > l {
		p = p[:l-len(d)]
	}
	return p + strings.Repeat("0", l-len(p)-len(d)) + d, true
}

// decimalNames is how many decimal placeholders a length holds (all its
// digits but one letter: 10^(l-1) - 1).
func decimalNames(l int) int {
	n := 1
	for range l - 1 {
		if n > math.MaxInt32 {
			return math.MaxInt32
		}
		n *= 10
	}
	return n - 1
}

// extendedName is the n-th (from 1) base-36 placeholder of length l: a
// "~", which no interface or host name in use has (Linux allows it in a
// name; nothing names an interface so), then n in base 36 padded with
// zeros; false when n does not fit.
func extendedName(n, l int) (string, bool) {
	if n < 1 || l < 2 {
		return "", false
	}
	d := strconv.FormatInt(int64(n), 36)
	if len(d) > l-1 {
		return "", false
	}
	return "~" + strings.Repeat("0", l-1-len(d)) + d, true
}

// shortPlaceholder is the n-th (from 1) placeholder of a name of l < 3
// bytes: for two bytes extendedName's (35 of them), for one the n-th of
// the 26 letters.
func shortPlaceholder(n, l int) (string, bool) {
	if l == 1 {
		if n <= 26 {
			return string(rune('a' + n - 1)), true
		}
		return "", false
	}
	return extendedName(n, l)
}

// isPlaceholderName reports whether s is a placeholder of some kind.
func isPlaceholderName(s string) bool {
	if len(s) >= 2 && s[0] == '~' {
		n, err := strconv.ParseInt(s[1:], 36, 64)
		return err == nil && n > 0 && strings.Trim(s[1:], "0123456789abcdefghijklmnopqrstuvwxyz") == ""
	}
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	d := strings.TrimLeft(s[i:], "0")
	if i == 0 || d == "" || len(d) > 9 {
		return false
	}
	n, err := strconv.Atoi(d)
	if err != nil {
		return false
	}
	for _, k := range nameKinds {
		if p, ok := placeholderName(k, n, len(s)); ok && p == s {
			return true
		}
	}
	return false
}

// mapping gives every value collected its placeholder, in order of first
// appearance, skipping those the file holds already.
func (c *collector) mapping() (*mapping, error) {
	m := &mapping{
		mac: map[lldp.MAC]lldp.MAC{}, v4: map[[4]byte][4]byte{}, v6: map[[16]byte][16]byte{},
		name: map[string]string{}, pairs: map[string]string{}, short: map[string]string{},
	}
	n := 0
	for _, old := range c.macs {
		var p lldp.MAC
		for {
			if n++; n > maxMACs {
				return nil, fmt.Errorf("over %d distinct MAC addresses", maxMACs)
			}
			p = lldp.MAC{macPrefix[0], macPrefix[1], macPrefix[2], byte(n >> 16), byte(n >> 8), byte(n)}
			if !c.takenMAC[p] {
				break
			}
		}
		m.mac[old] = p
	}
	n = 0
	for _, old := range c.v4 {
		var p [4]byte
		for {
			if n++; n > maxV4 {
				return nil, fmt.Errorf("over %d distinct IPv4 addresses", maxV4)
			}
			net := v4Nets[(n-1)/254]
			p = [4]byte{net[0], net[1], net[2], byte((n-1)%254 + 1)}
			if !c.takenV4[p] {
				break
			}
		}
		m.v4[old] = p
	}
	n = 0
	for _, old := range c.v6 {
		if mac, ok := euiMAC(old); ok {
			if p, ok := m.mac[mac]; ok {
				m.v6[old] = euiAddr(p)
				continue
			}
		}
		var p [16]byte
		for {
			n++ // a uint32 of them: never runs out
			if [8]byte(old[:8]) == linkLocal {
				copy(p[:], linkLocal[:])
			} else {
				p = [16]byte{}
				copy(p[:], v6Doc[:])
			}
			binary.BigEndian.PutUint32(p[12:], uint32(n))
			if !c.takenV6[p] {
				break
			}
		}
		m.v6[old] = p
	}
	next := map[int]int{} // the next number of each length
	for _, old := range c.names {
		l := len(old)
		var p string
		for {
			next[l]++
			var ok bool
			if p, ok = placeholderName(c.nameKind[old], next[l], l); !ok {
				return nil, fmt.Errorf("over %d distinct names of %d bytes", next[l]-1, l)
			}
			if !c.takenName[p] {
				break
			}
		}
		m.name[old] = p
	}
	shortNext := map[int]int{}
	for _, old := range c.short {
		l := len(old)
		var p string
		for {
			shortNext[l]++
			var ok bool
			if p, ok = shortPlaceholder(shortNext[l], l); !ok {
				return nil, fmt.Errorf("over %d distinct names of %d bytes", shortNext[l]-1, l)
			}
			if !c.takenName[p] && !c.shortSeen[p] {
				break
			}
		}
		m.short[old] = p
	}
	m.build(c)
	m.summary = Summary{MACs: len(m.mac), Names: len(m.name) + len(m.short), Addresses: len(m.v4) + len(m.v6), GIDs: len(c.gids)}
	return m, nil
}

// build lists every byte form of every value with its placeholder's (the
// first one listed wins, in c's order: MACs, IPv4, IPv6, names), and
// makes the Replacer: longest first, so that at any position the longest
// value there is the one replaced (strings.NewReplacer compares in
// argument order).
func (m *mapping) build(c *collector) {
	add := func(old, new string) {
		if len(old) != len(new) {
			panic(fmt.Sprintf("redact: placeholder of %d bytes for %d", len(new), len(old)))
		}
		if _, ok := m.pairs[old]; !ok && old != new {
			m.pairs[old] = new
		}
	}
	addV6 := func(old, new [16]byte) {
		add(string(old[:]), string(new[:]))
		for _, upper := range []bool{false, true} {
			add(gidText(old, upper), gidText(new, upper))
		}
	}
	// The MACs' forms are not listed: the replacer finds them by their
	// shape and looks them up in m.mac (memory: one entry a MAC).
	for _, old := range c.v4 {
		p := m.v4[old]
		add(string(old[:]), string(p[:]))
		var o6, p6 [16]byte
		copy(o6[:], v4MappedPrefix[:])
		copy(p6[:], v4MappedPrefix[:])
		copy(o6[12:], old[:])
		copy(p6[12:], p[:])
		addV6(o6, p6)
	}
	for _, old := range c.v6 {
		addV6(old, m.v6[old])
	}
	for _, old := range c.names {
		add(old, m.name[old])
	}
	if len(m.pairs) == 0 && len(m.mac) == 0 {
		return
	}
	m.rep = newReplacer(m.pairs, m.mac)
}

// A replacer replaces, left to right, the longest value that starts at
// each position with its placeholder (of its length). It looks the
// values up in the pairs map itself, trying only the lengths the values
// have whose first bytes include b's: a lookup costs one map probe per
// such length, and its memory is a table of first bytes per length
// (strings.Replacer's trie of 300,000 forms took 200 MB). MAC addresses
// are found by their shapes instead, each looked up in the MAC table:
// the 6 bytes, the text "aa:bb:cc:dd:ee:ff" (lower or upper case), and
// the link-local address made from the MAC (modified EUI-64, RFC 4291
// Appendix A) in its 16 bytes and as a GID's text (a pairs entry of the
// same length, such as a GID file's own address, is tried after).
type replacer struct {
	pairs map[string]string
	lens  []int // the values' lengths and the MAC shapes', longest first
	first map[int]*[256]bool
	mac   map[lldp.MAC]lldp.MAC
	// macHead has the first two bytes of every MAC in mac, so that a
	// binary lookup at each position is a table probe first.
	macHead *[1 << 16]bool
}

// The lengths of a MAC's shapes.
const (
	shapeBinary = 6  // the address
	shapeText   = 17 // aa:bb:cc:dd:ee:ff
	shapeEUI    = 16 // fe80::a8bb:ccff:fedd:eeff, binary
	shapeGID    = 39 // the same as a GID's text, eight groups of four
)

func newReplacer(pairs map[string]string, mac map[lldp.MAC]lldp.MAC) *replacer {
	r := &replacer{pairs: pairs, first: map[int]*[256]bool{}, mac: mac}
	for old := range pairs {
		l := len(old)
		if r.first[l] == nil {
			r.first[l] = new([256]bool)
			r.lens = append(r.lens, l)
		}
		r.first[l][old[0]] = true
	}
	if len(mac) > 0 {
		r.macHead = new([1 << 16]bool)
		for m := range mac {
			r.macHead[int(m[0])<<8|int(m[1])] = true
		}
		for _, l := range []int{shapeBinary, shapeText, shapeEUI, shapeGID} {
			if r.first[l] == nil {
				r.lens = append(r.lens, l)
			}
		}
	}
	slices.SortFunc(r.lens, func(a, b int) int { return cmp.Compare(b, a) })
	return r
}

// replace replaces in b, in place.
func (r *replacer) replace(b []byte) {
	for i := 0; i < len(b); {
		n := 1
		for _, l := range r.lens {
			if i+l > len(b) {
				continue
			}
			if r.macHead != nil && r.shape(b[i:i+l]) {
				n = l
				break
			}
			if f := r.first[l]; f == nil || !f[b[i]] {
				continue
			}
			if p, ok := r.pairs[string(b[i:i+l])]; ok {
				copy(b[i:], p)
				n = l
				break
			}
		}
		i += n
	}
}

// shape replaces v when it is one of a MAC's shapes (by its length) and
// that MAC is in the table.
func (r *replacer) shape(v []byte) bool {
	switch len(v) {
	case shapeBinary:
		if !r.macHead[int(v[0])<<8|int(v[1])] {
			return false
		}
		if p, ok := r.mac[lldp.MAC(v)]; ok {
			copy(v, p[:])
			return true
		}
	case shapeText:
		m, upper, ok := parseMACText(v)
		if !ok || !r.macHead[int(m[0])<<8|int(m[1])] {
			return false
		}
		if p, ok := r.mac[m]; ok {
			appendHex(v[:0], p[:], ':', 1, upper)
			return true
		}
	case shapeEUI:
		if v[0] != linkLocal[0] || v[1] != linkLocal[1] {
			return false
		}
		if m, ok := euiMAC([16]byte(v)); ok {
			if p, ok := r.mac[m]; ok {
				a := euiAddr(p)
				copy(v, a[:])
				return true
			}
		}
	case shapeGID:
		a, upper, ok := parseGIDText(v)
		if !ok || a[0] != linkLocal[0] || a[1] != linkLocal[1] {
			return false
		}
		if m, ok := euiMAC(a); ok {
			if p, ok := r.mac[m]; ok {
				a := euiAddr(p)
				appendHex(v[:0], a[:], ':', 2, upper)
				return true
			}
		}
	}
	return false
}

// parseMACText reads "aa:bb:cc:dd:ee:ff" (hex digits of either case;
// upper when any is an upper-case letter).
func parseMACText(v []byte) (m lldp.MAC, upper, ok bool) {
	for i := range 6 {
		if i > 0 && v[3*i-1] != ':' {
			return m, false, false
		}
		hi, u1, ok1 := unhex(v[3*i])
		lo, u2, ok2 := unhex(v[3*i+1])
		if !ok1 || !ok2 {
			return m, false, false
		}
		m[i] = hi<<4 | lo
		upper = upper || u1 || u2
	}
	return m, upper, true
}

// parseGIDText reads eight groups of four hex digits split by ':', the
// text show_port_gid prints (either case; upper when any is).
func parseGIDText(v []byte) (a [16]byte, upper, ok bool) {
	for g := range 8 {
		if g > 0 && v[5*g-1] != ':' {
			return a, false, false
		}
		for j := range 4 {
			d, u, ok := unhex(v[5*g+j])
			if !ok {
				return a, false, false
			}
			a[2*g+j/2] |= d << (4 * (1 - j%2))
			upper = upper || u
		}
	}
	return a, upper, true
}

// unhex is a hex digit's value, and whether it is an upper-case letter.
func unhex(c byte) (v byte, upper, ok bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', false, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, false, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true, true
	}
	return 0, false, false
}

// appendHex writes b in hex into dst's room (dst has len 0 and the
// capacity), sep between groups of group bytes.
func appendHex(dst, b []byte, sep byte, group int, upper bool) {
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	for i, x := range b {
		if i > 0 && i%group == 0 {
			dst = append(dst, sep)
		}
		dst = append(dst, digits[x>>4], digits[x&15])
	}
}

// replace replaces the values in b, in place (every placeholder has its
// value's length).
func (m *mapping) replace(b []byte) {
	if m.rep == nil || len(b) == 0 {
		return
	}
	m.rep.replace(b)
}

// replaceString is replace on a string.
func (m *mapping) replaceString(s string) string {
	if m.rep == nil {
		return s
	}
	b := []byte(s)
	m.rep.replace(b)
	return string(b)
}
