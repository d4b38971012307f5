// Package capture owns every file descriptor dcbtop uses: pcap files,
// packet sockets and netlink sockets. It turns the outside world into Frames
// and link events, and never decides DCBX semantics.
//
// A Source yields Frames one at a time until it is exhausted (io.EOF) or its
// context is done. Each Frame carries its own capture timestamp, which is the
// engine's only notion of "now" for frames, and owns its Data.
//
// # Live capture
//
// OpenLive (Linux only) opens a packet socket on one interface. It delivers
// the LLDP frames (EtherType 0x88cc) the interface receives and those other
// programs of this host transmit on it, and transmits the frames given to
// WriteFrame at socket priority 7 (TC_PRIO_CONTROL). Frames to the three
// LLDP group addresses are all delivered: telling the nearest-bridge agent
// (01:80:c2:00:00:0e), which alone carries DCBX, from the other two is the
// consumer's business.
//
// A live Frame's Dir comes from the packet type the kernel reports with each
// frame (sll_pkttype): PACKET_OUTGOING, a frame this host transmitted, is
// DirectionOutgoing; anything else (PACKET_HOST, PACKET_MULTICAST, ...) is
// DirectionIncoming. Its At is the kernel's receive timestamp
// (SO_TIMESTAMPNS, wall clock, nanoseconds), taken when the frame reached
// the socket rather than when ReadFrame read it, so a slow reader does not
// skew TTLs; should the kernel refuse the option, At is the time of the read.
//
// Opening a packet socket needs CAP_NET_RAW. Live errors never repeat the
// interface name, so that a command can print them as "dcbtop: IFNAME:
// <error>".
//
// # Links
//
// Interfaces lists the default capture set (the Ethernet interfaces that
// are up), and WatchLinks follows links being added, going up or down and
// being removed, from rtnetlink notifications. Neither needs privilege.
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
// CreateWriter and NewWriter write Frames to a pcapng file, so that what
// dcbtop saw in the field, on every interface and in both directions, can be
// replayed later with the same outcome and turned into a test fixture. Each
// distinct Frame.Interface gets an Interface Description Block (its name as
// if_name, Ethernet, snapshot length 65535, nanosecond timestamps) before
// its first frame; each frame is an Enhanced Packet Block on its interface
// whose epb_flags carry the direction (inbound, outbound, or no epb_flags
// for DirectionUnknown). OpenReplay gives back the same Interface, At (to
// the nanosecond), Dir and Data, frames over 65535 bytes cut. Every frame
// reaches the file as soon as WriteFrame returns, so a recording in progress
// can be replayed, or read by tshark, up to its last frame. CreateWriter
// overwrites an existing file, as tcpdump -w does.
//
// Package capturetest provides a Source backed by a slice of Frames for the
// tests of the packages that consume Sources.
//
// Size: about 1,900 lines across sockets, links, replay, recording and the
// clock: each is a small, separate file, and they share the Frame and
// Link types; the jobs with an API of their own (runtime, control,
// dcbnl, kernel, demo) are sub-packages.
package capture
