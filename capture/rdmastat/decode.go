// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A counterEntry is one RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY of a STAT_GET
// or STAT_GET_STATUS reply.
type counterEntry struct {
	name  string
	value *uint64 // STAT_GET: ENTRY_VALUE, nil when absent or not 8 bytes
	// optional is true when the entry has HWCOUNTER_DYNAMIC (STAT_GET_STATUS
	// sends it only for IB_STAT_FLAG_OPTIONAL counters); enabled is its
	// value, meaningful only when stateKnown.
	optional, enabled, stateKnown bool
}

// A statReply is a decoded STAT_GET or STAT_GET_STATUS reply. The kernel
// fills both the same way (nldev.c stat_get_doit_default_counter and
// nldev_stat_get_counter_status_doit): DEV_INDEX, DEV_NAME, PORT_INDEX,
// then the HWCOUNTERS nest of HWCOUNTER_ENTRY nests. A STAT_GET entry holds
// ENTRY_NAME and ENTRY_VALUE (rdma_nl_stat_hwcounter_entry); a
// STAT_GET_STATUS entry holds ENTRY_NAME, HWCOUNTER_INDEX and, for an
// optional counter only, HWCOUNTER_DYNAMIC.
type statReply struct {
	devIndex, port *uint32
	devName        string
	hasTable       bool
	entries        []counterEntry
	// skipped has one line per entry left out or only partly used.
	skipped []string
}

// decodeStatReply decodes the attributes of a STAT_GET or STAT_GET_STATUS
// reply (the kernel sends no family header: the attributes follow the
// netlink header). A framing error of the message or of the HWCOUNTERS
// table, or a DEV_INDEX or PORT_INDEX that is not a u32, fails the whole
// reply; a bad entry is skipped (or its value dropped) and noted in
// skipped. Unknown attributes, RDMA_NLDEV_ATTR_PAD included, are ignored,
// and nests are accepted with or without NLA_F_NESTED (set by
// nla_nest_start since Linux 5.2). withValues is true for STAT_GET, whose
// entries must each carry a value.
func decodeStatReply(b []byte, withValues bool) (statReply, error) {
	var r statReply
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return statReply{}, nl.Malformed("", "attributes: %v", err)
	}
	for ad.Next() {
		switch ad.Type() {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			v, ok := u32(ad.Bytes())
			if !ok {
				return statReply{}, nl.Malformed("", "RDMA_NLDEV_ATTR_DEV_INDEX of %d bytes, not a u32", len(ad.Bytes()))
			}
			r.devIndex = &v
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			v, ok := u32(ad.Bytes())
			if !ok {
				return statReply{}, nl.Malformed("", "RDMA_NLDEV_ATTR_PORT_INDEX of %d bytes, not a u32", len(ad.Bytes()))
			}
			r.port = &v
		case RDMA_NLDEV_ATTR_DEV_NAME:
			r.devName = nlclient.CString(ad.Bytes())
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
			r.hasTable = true
			if err := r.decodeTable(ad.Bytes(), withValues); err != nil {
				return statReply{}, err
			}
		}
	}
	if err := ad.Err(); err != nil {
		return statReply{}, nl.Malformed("", "attributes: %v", err)
	}
	return r, nil
}

// decodeTable appends the entries of one HWCOUNTERS nest to r.
func (r *statReply) decodeTable(b []byte, withValues bool) error {
	ad, err := nl.NewDecoder("RDMA_NLDEV_ATTR_STAT_HWCOUNTERS", b)
	if err != nil {
		return err
	}
	n := 0 // the entry's position in the table, from 1, for messages
	for ad.Next() {
		if ad.Type() != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY {
			continue
		}
		n++
		e, problem := decodeEntry(ad.Bytes(), withValues)
		if problem != "" {
			if e.name != "" {
				problem = fmt.Sprintf("entry %d (%s): %s", n, e.name, problem)
			} else {
				problem = fmt.Sprintf("entry %d: %s", n, problem)
			}
			r.skipped = append(r.skipped, problem)
		}
		if e.name != "" {
			r.entries = append(r.entries, e)
		}
	}
	if err := ad.Err(); err != nil {
		return nl.InAttr("RDMA_NLDEV_ATTR_STAT_HWCOUNTERS", err)
	}
	return nil
}

// decodeEntry decodes one HWCOUNTER_ENTRY nest. An entry whose name is
// missing or not acceptable comes back with name "" (to be left out);
// problem says, in a few words, what was wrong with the entry, or is "".
// withValues asks for a value: its absence is then a problem.
func decodeEntry(b []byte, withValues bool) (e counterEntry, problem string) {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return counterEntry{}, fmt.Sprintf("not a nest of attributes (%v)", err)
	}
	var (
		rawName               []byte
		haveName, haveDynamic bool
		valueLen              = -1
		dynamic               []byte
		problems              []string
	)
	for ad.Next() {
		switch ad.Type() {
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
			if !haveName {
				rawName, haveName = ad.Bytes(), true
			}
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE:
			if valueLen < 0 {
				v := ad.Bytes()
				valueLen = len(v)
				if len(v) == 8 {
					x := binary.NativeEndian.Uint64(v)
					e.value = &x
				}
			}
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC:
			if !haveDynamic {
				dynamic, haveDynamic = ad.Bytes(), true
			}
		}
	}
	if err := ad.Err(); err != nil {
		return counterEntry{}, fmt.Sprintf("not a nest of attributes (%v)", err)
	}
	if !haveName {
		return counterEntry{}, "no name"
	}
	name, why := counterName(rawName)
	if why != "" {
		return counterEntry{}, why
	}
	e.name = name
	switch {
	case valueLen >= 0 && valueLen != 8:
		problems = append(problems, fmt.Sprintf("value of %d bytes, not a u64: left unknown", valueLen))
	case valueLen < 0 && withValues:
		problems = append(problems, "no value: left unknown")
	}
	if haveDynamic {
		e.optional = true
		if len(dynamic) == 1 {
			e.enabled, e.stateKnown = dynamic[0] != 0, true
		} else {
			problems = append(problems, fmt.Sprintf("optional-counter state of %d bytes, not a u8", len(dynamic)))
		}
	}
	return e, strings.Join(problems, "; ")
}

// counterName returns the name carried by a HWCOUNTER_ENTRY_NAME payload
// (nla_put_string: the string and its NUL), or why it is not acceptable:
// empty, longer than maxCounterName bytes, or holding a byte that is not
// printable ASCII, a space or a comma (which would break the
// comma-separated list of `rdma statistic set ... optional-counters`).
func counterName(b []byte) (string, string) {
	if n := len(b); n > 0 && b[n-1] == 0 {
		b = b[:n-1]
	}
	switch {
	case len(b) == 0:
		return "", "empty name"
	case len(b) > maxCounterName:
		return "", fmt.Sprintf("name of %d bytes, more than %d", len(b), maxCounterName)
	}
	for _, c := range b {
		if c <= ' ' || c > '~' || c == ',' {
			return "", fmt.Sprintf("name %s has byte %#02x (not printable ASCII, or a space or comma)", quoteShort(b), c)
		}
	}
	return string(b), ""
}

// validDeviceName reports whether s can be the name of an RDMA device: 1 to
// 63 bytes of printable ASCII without spaces, commas or slashes (the kernel
// refuses '/' in device names: dev_set_name, ib_device_rename).
func validDeviceName(s string) bool {
	if s == "" || len(s) > maxDeviceName {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == ',' || c == '/' {
			return false
		}
	}
	return true
}

// decodeDevice decodes one message of a RDMA_NLDEV_CMD_GET dump (nldev.c
// fill_dev_info: DEV_INDEX, DEV_NAME, PORT_INDEX holding the number of
// ports, then attributes this package does not need). For a message
// without a u32 index or with an unacceptable name, why says what is wrong.
func decodeDevice(b []byte) (d Device, why string) {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return Device{}, fmt.Sprintf("attributes: %v", err)
	}
	var haveIndex, haveName bool
	for ad.Next() {
		switch ad.Type() {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			v, ok := u32(ad.Bytes())
			if !ok {
				return Device{}, "RDMA_NLDEV_ATTR_DEV_INDEX is not a u32"
			}
			d.Index, haveIndex = v, true
		case RDMA_NLDEV_ATTR_DEV_NAME:
			d.Name, haveName = nlclient.CString(ad.Bytes()), true
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			v, ok := u32(ad.Bytes())
			if !ok || v > 1<<16 {
				return Device{}, "RDMA_NLDEV_ATTR_PORT_INDEX is not a port count"
			}
			d.Ports = int(v)
		}
	}
	switch {
	case ad.Err() != nil:
		return Device{}, fmt.Sprintf("attributes: %v", ad.Err())
	case !haveIndex:
		return Device{}, "no RDMA_NLDEV_ATTR_DEV_INDEX"
	case !haveName:
		return Device{}, "no RDMA_NLDEV_ATTR_DEV_NAME"
	case !validDeviceName(d.Name):
		return Device{}, fmt.Sprintf("device name %s is not acceptable", quoteShort([]byte(d.Name)))
	}
	return d, ""
}

// merge builds the Port of device/port from its STAT_GET reply and, when
// the kernel answered it, its STAT_GET_STATUS reply (nil otherwise, with
// why saying why).
func merge(device string, port int, stat statReply, status *statReply, why string) Port {
	p := Port{Device: device, Port: port}
	for _, s := range stat.skipped {
		p.Skipped = append(p.Skipped, "STAT_GET "+s)
	}
	byName := map[string]int{} // index in p.Counters
	for _, e := range stat.entries {
		if _, dup := byName[e.name]; dup {
			p.Skipped = append(p.Skipped, "STAT_GET: duplicate counter "+e.name+": the first one is kept")
			continue
		}
		byName[e.name] = len(p.Counters)
		p.Counters = append(p.Counters, Counter{Name: e.name, Value: e.value})
	}
	if status == nil {
		p.StatusWhy = oneLine(why)
	} else {
		p.StatusKnown = true
		for _, s := range status.skipped {
			p.Skipped = append(p.Skipped, "STAT_GET_STATUS "+s)
		}
		seen := map[string]bool{}
		for _, e := range status.entries {
			if seen[e.name] {
				p.Skipped = append(p.Skipped, "STAT_GET_STATUS: duplicate counter "+e.name+": the first one is kept")
				continue
			}
			seen[e.name] = true
			i, ok := byName[e.name]
			if !ok {
				// A counter STAT_GET left out: a disabled optional
				// counter (or one enabled between the two requests).
				i = len(p.Counters)
				byName[e.name] = i
				p.Counters = append(p.Counters, Counter{Name: e.name})
			}
			c := &p.Counters[i]
			if !e.optional {
				continue
			}
			c.Optional = true
			if e.stateKnown {
				c.Enabled = e.enabled
			} else {
				// STAT_GET reports an optional counter only while it
				// is enabled (stat_get_doit_default_counter skips
				// is_disabled ones).
				c.Enabled = c.Value != nil
			}
		}
	}
	slices.SortFunc(p.Counters, func(a, b Counter) int { return strings.Compare(a.Name, b.Name) })
	return p
}

// u32 decodes a host-order u32 payload.
func u32(b []byte) (uint32, bool) {
	if len(b) != 4 {
		return 0, false
	}
	return binary.NativeEndian.Uint32(b), true
}

// quoteShort quotes b for a one-line message, in ASCII, cut to 40 bytes.
func quoteShort(b []byte) string {
	if len(b) > 40 {
		return strconv.QuoteToASCII(string(b[:40])) + "..."
	}
	return strconv.QuoteToASCII(string(b))
}

// oneLine replaces line breaks in s by spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
