// SPDX-License-Identifier: Apache-2.0

// Package redact hides what identifies a site in a dcbtop recording
// (`dcbtop bundle --redact`: a support bundle for a ticket): MAC
// addresses, interface and system names, LLDP descriptions, IP addresses
// and RDMA GIDs are replaced with placeholders, and the result is still a
// recording `dcbtop -r` replays.
//
// # Stable, same-length placeholders
//
// A recording says the same thing in several places: an interface's name
// is the pcapng if_name of its LLDPDUs, a component of the sysfs paths its
// counters were read from, the content of an RDMA port's gid_attrs/ndevs
// file, an attribute of a netlink request; a peer's MAC address is the
// frames' source and its Chassis ID. A replay holds together only if all
// of them still agree, so a value gets one placeholder for the whole file,
// wherever it occurs (File collects every value first, then rewrites).
//
// Every placeholder has exactly the length of the value it replaces. The
// rewrite then works on the raw bytes of each record and nothing needs to
// be encoded again: LLDP TLV lengths (IEEE Std 802.1AB-2016, 8.4.1), the
// netlink messages' and attributes' lengths and the host records' field
// lengths (docs/recording.md, "The host's inputs in a recording") stay
// valid. Longer values are replaced before shorter ones, so a name inside
// another (an interface in a description) does not cut the longer one.
//
// See File for what is replaced and what is not.
package redact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/anonfile"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// Summary says what File replaced.
type Summary struct {
	// MACs, Names, Addresses and GIDs count the distinct values replaced
	// (each once, whatever forms it had). Addresses counts IPv4 and IPv6
	// addresses, a GID's own address included (an IPv4-mapped GID counts
	// its IPv4 address); GIDs counts the GID files' values.
	MACs, Names, Addresses, GIDs int
	// Blanked is the number of TLVs whose value was zeroed: those dcbtop
	// discards as malformed or does not decode (LLDP-MED inventory,
	// vendors' TLVs), kept with their type, OUI and subtype only.
	Blanked int
	// Records is the number of records written: frames, netlink packets
	// and host records.
	Records int
	// Dropped is the number of packets left out: those of netlink or
	// private link types on interfaces that are not a dcbtop recording's
	// own (an nlmon capture beside the LLDPDUs), which pcap.Reader
	// reads past (Replay.Skipped) and which nothing here could redact.
	Dropped int
}

// File reads the recording at in and writes the redacted recording to out,
// returning what was replaced. out is mode 0600, written as an unnamed
// file in its directory and named out at the end (anonfile), so there is
// never a partial file at out or beside it: on an error, or a kill, nothing
// is left behind. Both
// must be files ("-", standard input, cannot be read twice).
//
// The input may be any capture pcap.Open reads; the output is a
// pcapng file written with pcap.Writer holding the same records in the
// same order: every frame (Interface and Data redacted, At and Dir kept)
// and every packet of the recording's netlink ("dcbtop:netlink") and host
// ("dcbtop:host") interfaces (redacted, with the tape's description). What
// a pcap.Reader does not read is not written: pcapng comments, name
// resolution blocks, the captured interfaces' options other than if_name,
// the section header's options (shb_hardware, shb_os), and the packets
// Summary.Dropped counts.
//
// What is replaced, wherever its bytes occur in a frame, a netlink
// message's payload or a host record's field values (the binary numbers
// of a host record, its field headers, netlink message headers and the
// cooked header are left as they are):
//
//   - MAC addresses: each frame's source, and its destination when it is
//     unicast; the MAC-subtype Chassis and Port IDs and 802 management
//     addresses of each LLDPDU (IEEE Std 802.1AB-2016, 8.5.2, 8.5.3,
//     8.5.9); tape.Link's MAC; the content of sysfs ".../address" files;
//     the MAC inside an EUI-64 link-local GID (RFC 4291, Appendix A).
//     Each becomes 02:00:00:00:00:01, 02:00:00:00:00:02, ... up to
//     02:00:00:ff:ff:ff (16,777,215 of them; locally administered, IEEE
//     Std 802-2014, 8.4) in order of first appearance,
//     in binary and as text ("aa:bb:cc:dd:ee:ff", lower or upper case),
//     and as the interface ID of its fe80:: link-local address, so a GID
//     made from a MAC stays the GID of its placeholder.
//   - Names: the captured interfaces' names (pcapng if_name), tape.Begin's,
//     tape.Link's and tape.Ethtool's interface names, the component after
//     "class/net/" in a sysfs path, the entries of a "class/net" listing
//     (but bonding_masters),
//     the content of RDMA gid_attrs/ndevs files (drivers/infiniband/core/
//     sysfs.c print_ndev); each LLDPDU's System Name, System Description,
//     Port Description and Chassis and Port IDs of the other subtypes
//     (their bytes). Each becomes a kind prefix ("if" interface names,
//     the interface-name Chassis and Port IDs included; "host" system
//     names, "desc" system descriptions, "port" port descriptions and
//     other Port IDs, "chassis" other Chassis IDs; the kind it is first
//     seen as), cut if it must be, and a number padded with zeros to the
//     original's length: "eth0" is "if01", "ens1f0np0" "if0000001";
//     numbers count per length in order of first appearance; past the
//     decimal ones (99 for 3 bytes) they go on in base 36 after a "~"
//     ("~01" to "~zz": 1,295 more of 3 bytes). A name shorter than 3
//     bytes that an LLDP TLV holds whole (a System Name "vm", a Port ID
//     "p1", a VLAN name) is replaced there, by "~1".."~z" (2 bytes) or
//     "a".."z" (1 byte), and only there: a placeholder that short would
//     match bytes everywhere else.
//   - IP addresses: IPv4 and IPv6 management addresses and network-address
//     Chassis and Port IDs (family 1 or 2, IANA Address Family Numbers);
//     the addresses in GIDs. IPv4 becomes 192.0.2.N (then 198.51.100.N,
//     203.0.113.N: RFC 5737's documentation ranges), also inside an
//     IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 2.5.5.2, the GID
//     of an IPv4 RoCE v2 address); a link-local address (fe80::/64) keeps
//     its prefix and gets the interface ID of its MAC's placeholder, or
//     ::N; any other IPv6 address becomes 2001:db8::N (RFC 3849).
//   - GIDs: the values of class/infiniband/DEV/ports/P/gids/N, the text
//     show_port_gid prints (eight groups of four hex digits), replaced as
//     their address is; the zero GID (an unused entry) stays zero.
//
// What is blanked (its value zeroed, its TLV header and an
// organizationally specific TLV's OUI and subtype kept, so that the TLV
// is still there and says what it was): every LLDP TLV dcbtop does not
// read, which may hold anything (LLDP-MED inventory's serial and asset
// numbers, ANSI/TIA-1057 10.2.6; vendors' TLVs; reserved types), but the
// pre-CEE CIN DCBX TLV whose presence a replay reads; every TLV dcbtop
// discards as malformed (a VLAN Name it cannot read still holds the
// name); and every optional TLV of an LLDPDU dcbtop rejects (the bytes
// after a cut TLV's header too). Summary.Blanked counts them.
//
// A value that is all zero bytes, a multicast MAC address, or a
// placeholder already (so redacting a redacted file changes nothing) is
// never replaced, and no value gets a placeholder the file holds already.
//
// What is not replaced: textual IP addresses other than GIDs ("10.1.2.3"
// in a description is gone only as part of the description), names of
// other things than interfaces and systems (RDMA device names such as
// mlx5_0, PCI addresses, driver names and versions, LLDP agent process
// names, ethtool statistic names), interface names shorter than 3 bytes
// outside LLDP TLVs (a host's "h0" in its sysfs paths and netlink
// requests), and names or addresses that occur only in a netlink reply
// (an RDMA netlink answer naming a netdev no other record names).
//
// Memory: File keeps each distinct value once with its placeholder,
// nothing per frame; a MAC is one entry of a table (about 50 bytes with
// the first pass's), its text, upper-case and GID forms found by their
// shape rather than listed; names and addresses are listed in their
// forms. 30,000 MSAPs (60,000 MACs) peak at 15 MB, where 7737732's
// strings.Replacer of every form took 159 MB (BenchmarkReplacer
// compares the two in one run).
//
// Values are replaced wherever their bytes occur, so a
// name that is also a word of a path or a message is replaced there too,
// and a binary value could in principle match bytes of a number; File
// checks that every LLDPDU, netlink packet and host record that decoded
// before still decodes after, and fails rather than write one that does
// not.
//
// Errors never repeat in or out; they say whether reading or writing
// failed, with pcap.Reader's error (pcap.ErrNotPcap,
// pcap.ErrCorrupt, ...) or tape's (tape.ErrMalformed) for a file that
// is no recording or a corrupt one.
func File(in, out string) (Summary, error) {
	if in == "-" || out == "-" {
		return Summary{}, errors.New("redact: a recording is read twice: standard input or output cannot be used")
	}
	c := newCollector()
	dropped, err := walk(in, c)
	if err == nil {
		err = c.end()
	}
	if err != nil {
		return Summary{}, fmt.Errorf("redact: reading the recording: %w", err)
	}
	m, err := c.mapping()
	if err != nil {
		return Summary{}, fmt.Errorf("redact: %w", err)
	}
	sum := m.summary
	sum.Dropped = dropped
	if sum.Records, err = writeRedacted(in, out, m); err != nil {
		return Summary{}, err
	}
	sum.Blanked = m.blanked
	return sum, nil
}

// writeRedacted writes the redacted recording to an unnamed file in out's
// directory and names it out once it is whole (anonfile), returning the
// number of records written: a redaction killed half way leaves nothing.
func writeRedacted(in, out string, m *mapping) (int, error) {
	f, err := anonfile.Create(filepath.Dir(out))
	if err != nil {
		return 0, fmt.Errorf("redact: writing the redacted recording: %w", unwrapPath(err))
	}
	defer f.Close()
	w, err := pcap.Create(f.Path())
	if err != nil {
		return 0, fmt.Errorf("redact: writing the redacted recording: %w", err)
	}
	rw := &rewriter{m: m, w: w}
	if _, err := walk(in, rw); err != nil {
		w.Close()
		if rw.werr {
			return 0, fmt.Errorf("redact: writing the redacted recording: %w", err)
		}
		return 0, fmt.Errorf("redact: reading the recording: %w", err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("redact: writing the redacted recording: %w", err)
	}
	if err := f.Link(out); err != nil {
		return 0, fmt.Errorf("redact: writing the redacted recording: %w", unwrapPath(err))
	}
	return rw.records, nil
}

// unwrapPath drops the path an *os.PathError or *os.LinkError repeats,
// keeping the operation and the cause.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}

// A visitor is handed a recording's records in file order.
type visitor interface {
	frame(f capture.Frame) error
	host(p pcap.HostPacket) error
}

// walk reads the recording at path in file order: before each frame, the
// host packets that came before it (Replay.NextHost with the number of
// frames handed on so far), the pending ones when ReadFrame says
// pcap.ErrHostPending, and at the end those after the last frame. It
// returns the number of packets the Replay skipped (Replay.Skipped).
func walk(path string, v visitor) (skipped int, err error) {
	r, err := pcap.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	frames := 0
	take := func(upTo int) error {
		for {
			p, ok := r.NextHost(upTo)
			if !ok {
				return nil
			}
			if err := v.host(p); err != nil {
				return err
			}
		}
	}
	ctx := context.Background()
	for {
		f, err := r.ReadFrame(ctx)
		switch {
		case errors.Is(err, pcap.ErrHostPending):
			if err := take(frames); err != nil {
				return 0, err
			}
			continue
		case err == io.EOF:
			if err := take(math.MaxInt); err != nil {
				return 0, err
			}
			return r.Skipped(), nil
		case err != nil:
			return 0, err
		}
		if err := take(frames); err != nil {
			return 0, err
		}
		if err := v.frame(f); err != nil {
			return 0, err
		}
		frames++
	}
}
