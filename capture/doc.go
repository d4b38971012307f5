// Package capture owns every file descriptor dcbtop uses: pcap files today,
// packet and netlink sockets later. It turns the outside world into Frames
// and never decides DCBX semantics.
//
// A Source yields Frames one at a time until it is exhausted (io.EOF) or its
// context is done. Each Frame carries its own capture timestamp, which is the
// engine's only notion of "now" for frames, and owns its Data.
//
// # Replay
//
// OpenReplay reads a capture file, classic pcap or pcapng, with the pure Go
// readers of github.com/gopacket/gopacket/pcapgo (no cgo, no libpcap). It
// delivers frames as fast as they are asked for, or paced by their recorded
// timestamps (ReplayOptions.Speed).
//
// Link types other than Ethernet are rejected, except Linux cooked captures
// (LINKTYPE_LINUX_SLL and LINKTYPE_LINUX_SLL2, what "tcpdump -i any"
// writes), which are turned into Ethernet frames so that the rest of dcbtop
// sees a single format:
//
//	 0      6      12        14
//	+------+------+---------+---------+
//	| dst  | src  | type    | payload |
//	+------+------+---------+---------+
//	  |      |      `-- the record's protocol (an 802.3 length for
//	  |      |          protocols below 0x0600, such as 802.2 LLC)
//	  |      `--------- the record's link-layer address if 6 bytes long,
//	  |                 else 00:00:00:00:00:00
//	  `---------------- always 00:00:00:00:00:00: cooked records do not
//	                    carry the destination address
//
// The packet type of a cooked record gives the frame's Direction:
// PACKET_OUTGOING is DirectionOutgoing, anything else DirectionIncoming. In
// pcapng files the direction flags of an Enhanced Packet Block, when set,
// take precedence.
//
// Replay errors never repeat the file name, so that a command can print them
// as "dcbtop: FILE: <error>", and are told apart with errors.Is: ErrNotPcap,
// ErrTruncated, ErrCorrupt, ErrUnsupported, or fs errors such as
// fs.ErrNotExist.
//
// # Recording
//
// CreateWriter and NewWriter write Frames to a classic pcap file (Ethernet,
// nanosecond timestamps), so that what dcbtop saw in the field can be
// replayed later and turned into a test fixture. The format keeps the
// timestamp and bytes of each frame but neither its interface nor its
// direction.
//
// Package capturetest provides a Source backed by a slice of Frames for the
// tests of the packages that consume Sources.
package capture
