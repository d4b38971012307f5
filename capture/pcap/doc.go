// SPDX-License-Identifier: Apache-2.0

// Package pcap reads and writes capture files, classic pcap and pcapng,
// as capture.Frames: a Reader is a capture.Source of a file's frames (and
// of a dcbtop recording's host packets, HostPacket), a Writer records
// frames and host packets as pcapng. It decides no DCBX semantics, and
// paces nothing (capture/replay does).
//
// # Reading
//
// Open reads a capture file, classic pcap or pcapng, with this
// package's own readers (reader.go, pcapng.go; no cgo, no libpcap; gopacket's pcapgo
// checks them in the tests). It delivers frames as fast as they are asked
// for: capture/session's replay source paces them by their recorded
// timestamps for the screen's player, which also pauses and seeks.
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
//	  `---------------- assumed from the packet type (see below): cooked
//	                    records do not carry the destination address
//
// The packet type of a cooked record
// (https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html,
// https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html) gives the
// frame's Direction and its destination address, and every such Frame has
// DstAssumed set:
//
//	packet type             Dir       destination of an LLDP frame
//	0 PACKET_HOST           incoming  00:00:00:00:00:00 (unknown)
//	1 PACKET_BROADCAST      incoming  00:00:00:00:00:00 (unknown)
//	2 PACKET_MULTICAST      incoming  01:80:c2:00:00:0e (nearest bridge)
//	3 PACKET_OTHERHOST      incoming  00:00:00:00:00:00 (unknown)
//	4 PACKET_OUTGOING       outgoing  01:80:c2:00:00:0e (nearest bridge)
//	5 and above             incoming  00:00:00:00:00:00 (unknown)
//
// An LLDP frame is one of EtherType 0x88cc, after at most two 802.1Q or
// 802.1ad tags; other frames always get 00:00:00:00:00:00. LLDP frames go to
// one of three multicast group addresses (IEEE Std 802.1AB-2016, Table
// 7-1), and Linux sets the packet type of a received frame from its
// destination: PACKET_MULTICAST for a multicast group other than the
// broadcast address, PACKET_HOST for this interface's own unicast address,
// PACKET_BROADCAST and PACKET_OTHERHOST for the broadcast address and other
// unicast addresses. Only PACKET_MULTICAST and PACKET_OUTGOING (sent by
// this host, to an address the record does not tell) are then compatible
// with an LLDP group. Of the three groups, the nearest-bridge one is what
// lldpd and lldpad send to by default and the only one that carries DCBX,
// so it is the one assumed; a frame sent to another group, which a cooked capture
// cannot tell, is then scoped wrongly, hence DstAssumed. In pcapng files the
// direction flags of an Enhanced Packet Block, when set, take precedence
// for Dir, not for the destination.
//
// Records whose capture length exceeds their original length or the
// snapshot length, which the pcap and pcapng formats forbid
// (https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcap/, section 5,
// Packet Record; https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/,
// section 4.3, Enhanced Packet Block), are read as captured, as tshark
// reads them, and their Frame has a Note saying so. Capture lengths over
// 256 KiB (libpcap's MAXIMUM_SNAPLEN) are corrupt. So are timestamps outside years 0 to 9999,
// which no RFC 3339 (JSON) timestamp can hold: typically nanoseconds in a
// pcapng interface without if_tsresol, whose timestamps are then
// microseconds (draft-ietf-opsawg-pcapng, section 4.2).
//
// Reader errors never repeat the file name, so that a command can print them
// as "dcbtop: FILE: <error>", and are told apart with errors.Is: ErrNotPcap,
// ErrTruncated, ErrCorrupt, ErrUnsupported, or fs errors such as
// fs.ErrNotExist.
//
// # Recording
//
// Create and NewWriter write Frames to a pcapng file, so that what
// dcbtop saw in the field, on every interface and in both directions, can be
// replayed later with the same outcome and turned into a test fixture. Each
// distinct Frame.Interface gets an Interface Description Block (its name as
// if_name, Ethernet, snapshot length 65535, nanosecond timestamps) before
// its first frame; each frame is an Enhanced Packet Block on its interface
// whose epb_flags carry the direction (inbound, outbound, or no epb_flags
// for DirectionUnknown). Open gives back the same Interface, At (to
// the nanosecond), Dir and Data, frames over 65535 bytes cut. Every frame
// reaches the file as soon as WriteFrame returns, so a recording in progress
// can be replayed, or read by tshark, up to its last frame. Create
// overwrites an existing file, as tcpdump -w does.
package pcap
