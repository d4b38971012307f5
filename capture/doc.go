// SPDX-License-Identifier: Apache-2.0

// Package capture owns the file descriptors of live capture: packet
// sockets and the link netlink socket (capture files: capture/pcap). It turns the outside world into Frames
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
// Capture files, classic pcap and pcapng, are read and written by
// capture/pcap; capture/replay paces a file's frames for a run.
//
// Package capturetest provides a Source backed by a slice of Frames for the
// tests of the packages that consume Sources.
//
// Size: sockets, links, the clock and the /proc scan, each a small,
// separate file sharing the Frame and Link types; the jobs with an API of
// their own (the pcap format, the run, control, dcbnl, kernel, demo) are
// sub-packages.
package capture
