// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Sanitize returns s with every rune unsafe on a terminal replaced by
// U+FFFD (engine.Sanitize). Every string that comes from the wire, a
// capture file, the kernel or the backend goes through it before it
// reaches a terminal.
func Sanitize(s string) string { return engine.Sanitize(s) }

// width returns the display width of s, escape sequences excluded.
func width(s string) int {
	// Most of what a frame measures is ASCII, SGR sequences and a few
	// symbols of one cell each (rules, arrows, "·", "—"): counted here
	// without segmenting graphemes. Anything else is measured by ansi.
	n := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// SGR, as styles write it: CSI, digits and separators, m
			// (ECMA-48 8.3.117). Other sequences go to ansi.
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j == len(s) || s[j] != 'm' {
				return ansi.StringWidth(s)
			}
			i = j + 1
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 1 || !narrowRune(r) { // size 1: invalid UTF-8
				return ansi.StringWidth(s)
			}
			n++
			i += size
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// narrowRanges are runes one cell wide that never join a neighbour in a
// grapheme cluster (no marks, joiners, selectors or emoji presentation):
// Latin-1 symbols and letters, punctuation, letterlike symbols, arrows,
// mathematical operators, box drawing, block elements, geometric shapes
// and the few other symbols the screen draws. TestNarrowRanges checks each
// against ansi.StringWidth.
var narrowRanges = [...][2]rune{
	{0x00a1, 0x00ac}, {0x00ae, 0x00ff}, {0x2010, 0x2027}, {0x2030, 0x205e},
	{0x2100, 0x214f}, {0x2190, 0x22ff}, {0x23ce, 0x23ce}, {0x2500, 0x25fc},
	{0x2600, 0x2613}, {0x26a0, 0x26a0}, {0x2713, 0x2717}, {0xfffd, 0xfffd},
}

// narrowRune reports whether r is in narrowRanges.
func narrowRune(r rune) bool {
	for _, rg := range narrowRanges {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}

// trunc cuts s (which may be styled) to at most w cells, ending with "…"
// when something was cut.
func trunc(s string, w int) string {
	s, _ = truncWidth(s, w)
	return s
}

// truncWidth is trunc, and the width of what it returns.
func truncWidth(s string, w int) (string, int) {
	if w <= 0 {
		return "", 0
	}
	n := width(s)
	if n <= w {
		return s, n
	}
	s = ansi.Truncate(s, w, "…")
	return s, width(s)
}

// pad truncates s to w cells and pads it with spaces to exactly w.
func pad(s string, w int) string {
	s, n := truncWidth(s, w)
	if n < w {
		s += spaces(w - n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s, n := truncWidth(s, w)
	if n < w {
		s = spaces(w-n) + s
	}
	return s
}

// blanks is a line of spaces that spaces slices.
var blanks = strings.Repeat(" ", 512)

// spaces returns n spaces (without allocating up to 512).
func spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:n]
	}
	return strings.Repeat(" ", n)
}

// clean sanitizes an untrusted string and fits it in w cells (no padding).
func clean(s string, w int) string { return trunc(Sanitize(s), w) }

// fmtSeconds renders a duration as whole seconds (under 10 minutes),
// minutes or hours: "84s", "12m05s", "1h02m".
func fmtSeconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 600:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// ceilSeconds rounds a countdown up, so that "1s" shows until it is over.
func ceilSeconds(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return (d + time.Second - 1).Truncate(time.Second)
}

// fmtCount renders a counter compactly with an SI prefix, always in at
// most six cells (999, 1.2k, 3.4M, ... 18.4E for the largest uint64), so
// that a narrow column never cuts it into a smaller-looking number (2^62
// was "4611686018.4G", cut to "461168…").
func fmtCount(n uint64) string {
	if n < 1000 {
		return strconv.FormatUint(n, 10)
	}
	v := float64(n) / 1000
	for _, unit := range "kMGTP" {
		// 999.95 and more rounds to "1000.0": take the next prefix.
		if v < 999.95 {
			return strconv.FormatFloat(v, 'f', 1, 64) + string(unit)
		}
		v /= 1000
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "E" // at most 18.4E
}

// statusShort is the short form of an indication status.
func statusShort(s engine.Status) string {
	switch s {
	case engine.StatusRemote:
		return "REMOTE"
	case engine.StatusOperational:
		return "OPER"
	case engine.StatusLocal:
		return "LOCAL"
	case engine.StatusNeighbor:
		return "NEIGH"
	}
	return s.String()
}

// flagGroups lists the NDIS parameter groups with their flags and the
// names the compact form uses.
var flagGroups = [...]struct {
	name                string
	configured, changed engine.Flags
}{
	{"ETS", engine.FlagETSConfigured, engine.FlagETSChanged},
	{"PFC", engine.FlagPFCConfigured, engine.FlagPFCChanged},
	{"APP", engine.FlagClassificationConfigured, engine.FlagClassificationChanged},
}

// flagsCompact renders flags in a few cells: "ETS" for X_CONFIGURED,
// "ETS*" for X_CONFIGURED|X_CHANGED, "ETS-" for X_CHANGED alone (the group
// was withdrawn) and "W" for WILLING.
func flagsCompact(f engine.Flags) string {
	var parts []string
	for _, g := range flagGroups {
		c, ch := f&g.configured != 0, f&g.changed != 0
		switch {
		case c && ch:
			parts = append(parts, g.name+"*")
		case c:
			parts = append(parts, g.name)
		case ch:
			parts = append(parts, g.name+"-")
		}
	}
	if f&engine.FlagWilling != 0 {
		parts = append(parts, "W")
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " ")
}

// flagsFull renders flags as NDIS names joined with "|", or "—".
func flagsFull(f engine.Flags) string {
	if s := f.String(); s != "" {
		return s
	}
	return "—"
}

// tsaName renders a TSA in at most 6 cells, or 3 when compact.
func tsaName(t lldp.TSA, compact bool) string {
	switch t {
	case lldp.TSAStrict:
		if compact {
			return "str"
		}
		return "strict"
	case lldp.TSAVendor:
		if compact {
			return "vnd"
		}
		return "vendor"
	case lldp.TSAETS, lldp.TSACBS:
		return t.String()
	}
	return "?" + strconv.Itoa(int(t))
}

// prioMap renders the priorities mapped to tc as 8 cells, the priority's
// digit where it maps to tc and "·" elsewhere: "012·4567".
func prioMap(prioTC [8]uint8, tc uint8) string {
	var b strings.Builder
	for p, t := range prioTC {
		if t == tc {
			b.WriteByte('0' + byte(p))
		} else {
			b.WriteString("·")
		}
	}
	return b.String()
}

// dscpNames names the DSCP code points of RFC 2474, 2597, 3246 and 5865.
var dscpNames = map[uint16]string{
	0: "CS0/BE", 8: "CS1", 16: "CS2", 24: "CS3", 32: "CS4", 40: "CS5", 48: "CS6", 56: "CS7",
	10: "AF11", 12: "AF12", 14: "AF13", 18: "AF21", 20: "AF22", 22: "AF23",
	26: "AF31", 28: "AF32", 30: "AF33", 34: "AF41", 36: "AF42", 38: "AF43",
	44: "VOICE-ADMIT", 46: "EF",
}

// Well-known protocols of APP entries, per selector family.
var (
	etherTypeNames = map[uint16]string{
		0x0800: "IPv4", 0x86dd: "IPv6", 0x8906: "FCoE", 0x8914: "FIP", 0x8915: "RoCEv1",
		0x88cc: "LLDP", 0x8808: "PAUSE",
	}
	tcpNames = map[uint16]string{
		3260: "iSCSI", 860: "iSCSI", 4420: "NVMe/TCP", 8009: "NVMe/TCP disc", 445: "SMB", 2049: "NFS",
		5445: "SMB Direct",
	}
	udpNames = map[uint16]string{4791: "RoCEv2", 4420: "NVMe/RDMA"}
)

// appProtocol names an APP entry's protocol: "RoCEv2 (UDP 4791)",
// "iSCSI (TCP 3260)", "FCoE (0x8906)", "DSCP 26 (AF31)", or the bare value
// when it is not a well-known one.
func appProtocol(sel lldp.AppSelector, proto uint16) string {
	var name, value string
	switch sel {
	case lldp.AppSelEthertype:
		if proto == 0 {
			return "default (EtherType 0)"
		}
		value = fmt.Sprintf("%#04x", proto)
		if name = etherTypeNames[proto]; name == "" {
			return "EtherType " + value
		}
	case lldp.AppSelTCP:
		name, value = tcpNames[proto], fmt.Sprintf("TCP %d", proto)
	case lldp.AppSelUDP:
		name, value = udpNames[proto], fmt.Sprintf("UDP %d", proto)
	case lldp.AppSelPort:
		name, value = cmp.Or(udpNames[proto], tcpNames[proto]), fmt.Sprintf("port %d", proto)
	case lldp.AppSelDSCP: // the code point first: "DSCP 26 (AF31)"
		value = fmt.Sprintf("DSCP %d", proto)
		if n := dscpNames[proto]; n != "" {
			return value + " (" + n + ")"
		}
		return value
	default:
		return fmt.Sprintf("%s %d", sel, proto)
	}
	if name == "" {
		return value
	}
	return name + " (" + value + ")"
}

// localSourceWords says where local parameters come from.
func localSourceWords(s engine.LocalSource) string {
	switch s {
	case engine.SourceDCBNL:
		return "dcbnl (driver)"
	case engine.SourceObserved:
		return "observed agent"
	case engine.SourceAgent:
		return "dcbtop agent"
	case engine.SourceNone, "":
		return "none"
	}
	return string(s)
}

// plural renders "1 error", "2 errors", "1 entry", "3 entries".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if len(word) > 1 && word[len(word)-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[len(word)-2])) {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(word, "y") + "ies" // entry, priority
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// fmtRate renders a per-second rate compactly: 0, 0.5, 2.0, 67, 1.2k,
// 3.4M.
func fmtRate(v float64) string {
	switch {
	case !(v > 0): // zero, negative or NaN
		return "0"
	case v < 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v < 1e6:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v < 1e9:
		return fmt.Sprintf("%.1fM", v/1e6)
	}
	return fmt.Sprintf("%.1fG", v/1e9)
}

// fmtMicros renders a duration counted in microseconds: "800µs",
// "2.5ms", "12.3s", and from a minute on to the nearest second as
// fmtSeconds does ("60s", "12m05s").
func fmtMicros(us uint64) string {
	switch {
	case us < 1000:
		return strconv.FormatUint(us, 10) + "µs"
	case us < 999_950:
		return fmt.Sprintf("%.1fms", float64(us)/1e3)
	case us < 59_950_000:
		return fmt.Sprintf("%.1fs", float64(us)/1e6)
	}
	return fmtSeconds(time.Duration(us)*time.Microsecond + time.Second/2)
}

// fmtInterval renders a sampling interval: "250ms", "1s", "90s".
func fmtInterval(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(max(ms, 0), 10) + "ms"
	}
	return fmtSeconds(msDur(ms))
}

// buckets fits samples (oldest first) into at most w cells: one sample
// per cell when they fit, else consecutive runs of samples sharing a cell
// by their largest, so that a burst stays visible.
func buckets(samples []float64, w int) []float64 {
	if w <= 0 {
		return nil
	}
	if len(samples) <= w {
		return samples
	}
	out := make([]float64, w)
	for i := range out {
		lo, hi := i*len(samples)/w, (i+1)*len(samples)/w
		out[i] = slices.Max(samples[lo:hi])
	}
	return out
}

// sparkline draws values (oldest first, at most w) with blocks, the
// levels lowest first (Symbols.Spark: ▁ to █, or _ to # in ASCII),
// right-aligned in w cells so that the newest is always in the last one.
// top is drawn with the highest level; zero (and anything not positive)
// with the lowest and any positive value at least the second, so a quiet
// minute never looks like a busy one. No values is w blanks; top 0 (all
// zero) a row of the lowest level.
func sparkline(values []float64, w int, top float64, blocks [8]string) string {
	if w <= 0 {
		return ""
	}
	values = values[max(0, len(values)-w):]
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", w-len(values)))
	last := len(blocks) - 1
	for _, v := range values {
		level := 0
		if v > 0 && top > 0 {
			level = 1 + int(math.Round(min(v/top, 1)*float64(last-1)))
		}
		b.WriteString(blocks[level])
	}
	return b.String()
}

// lineBreaks shows the line breaks of a one-line rendering of wire text
// as ⏎ (Sanitize would replace them like any control character).
func lineBreaks(s string) string {
	return strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ⏎ ").Replace(s)
}
