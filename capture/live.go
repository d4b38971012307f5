// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"context"
	"errors"
)

// ErrNoInterface means the named network interface does not exist, or no
// longer does. OpenLive's error lists the interfaces that do exist, as in
// "no such interface (available: eth0, eth1, lo)".
var ErrNoInterface = errors.New("no such interface")

// A Live is a Source of the LLDP frames (EtherType 0x88cc) sent and received
// on one network interface, read from a Linux packet socket (AF_PACKET).
// Only Linux is supported: elsewhere OpenLive fails.
//
// The socket is bound to every protocol, but a classic BPF program attached
// before bind(2) lets only EtherType 0x88cc through (behind up to two
// 802.1Q or 802.1ad tags), so no other frame is ever queued to it, and
// frames this host transmits are seen too. It joins
// the three LLDP group addresses (01:80:c2:00:00:0e nearest bridge,
// 01:80:c2:00:00:03 nearest non-TPMR bridge, 01:80:c2:00:00:00 nearest
// customer bridge) so that NIC multicast filters let them in; it never
// makes the interface promiscuous. The kernel removes the memberships when
// the Live is closed.
//
// ReadFrame is not safe for concurrent use with itself; WriteFrame, Stats
// and Close may be called from any goroutine, also while a ReadFrame is
// pending.
type Live struct {
	name string
	sys  *liveSys // OS-specific
}

var _ Source = (*Live)(nil)

// LiveStats are the packet counters of a Live since it was opened.
type LiveStats struct {
	// Packets counts the frames that passed the LLDP filter, incoming and
	// outgoing, including those then dropped.
	Packets uint64
	// Drops counts the frames that passed the filter but were dropped
	// because the socket's receive buffer was full: the reader fell behind.
	Drops uint64
}

// OpenLive opens a packet socket on the interface named ifname for LLDP
// frames, joins the LLDP group addresses and sets the socket priority used
// for transmission to 7 (TC_PRIO_CONTROL). The interface may be down: frames
// flow once it is up.
//
// Errors never repeat ifname, so that a command can print them as
// "dcbtop: IFNAME: <error>". Without privilege the error is "open packet
// socket: permission denied (run as root or grant CAP_NET_RAW)" and
// satisfies errors.Is(err, os.ErrPermission). An unknown interface gives
// "no such interface (available: eth0, lo, ...)", listing every interface of
// the system by name, and satisfies errors.Is(err, ErrNoInterface). The
// interface is looked up before the socket is opened, so that error comes
// first even without privilege.
func OpenLive(ifname string) (*Live, error) {
	sys, err := openLive(ifname)
	if err != nil {
		return nil, err
	}
	return &Live{name: ifname, sys: sys}, nil
}

// ReadFrame returns the next LLDP frame sent or received on the interface,
// waiting for it as long as needed. The Frame's Interface is the name given
// to OpenLive; its Dir is DirectionOutgoing for a frame this host
// transmitted (packet type PACKET_OUTGOING) and DirectionIncoming for
// anything else; its At is the kernel's receive timestamp (see the package
// documentation); its Data is a copy of the whole Ethernet frame as it was
// on the wire: the kernel takes a frame's (outer) VLAN tag out of it
// before a packet socket sees it and hands it over beside the frame
// (PACKET_AUXDATA, struct tpacket_auxdata of linux/if_packet.h), and
// ReadFrame puts it back after the source address, as a pcap of the wire
// (libpcap does the same) holds it.
//
// A Live never reports the frames it transmitted itself with WriteFrame: the
// kernel does not loop a packet socket's own frames back to it. Outgoing
// frames are those of other programs of this host, such as another LLDP
// agent or another Live.
//
// When ctx is done ReadFrame returns ctx.Err() promptly. After Close, or
// when Close is called during the wait, it returns an error wrapping
// fs.ErrClosed. While the interface is down ReadFrame keeps waiting; if the
// interface is removed (or moved to another network namespace) it returns
// an error wrapping ErrNoInterface, as does every later call: open a new
// Live when the interface comes back.
func (l *Live) ReadFrame(ctx context.Context) (Frame, error) {
	f, err := l.sys.readFrame(ctx)
	if err != nil {
		return Frame{}, err
	}
	f.Interface = l.name
	return f, nil
}

// WriteFrame transmits b, a complete Ethernet frame starting at the
// destination MAC address, on the interface, with socket priority 7
// (TC_PRIO_CONTROL): some drivers (ice, lldpd#444) drop LLDP frames sent at
// a lower priority once DCB traffic classes are configured. The frame is
// sent as is: WriteFrame neither pads it nor adds a frame check sequence.
// WriteFrame gives up after one second if the interface cannot take the
// frame. It fails with an error wrapping ErrNoInterface once the interface
// is removed, and with one wrapping fs.ErrClosed after Close.
//
// If the socket priority could not be set at open (on kernels where it
// needs CAP_NET_ADMIN and only CAP_NET_RAW was granted), WriteFrame refuses
// to transmit, with an error saying so, rather than send frames a driver
// may silently drop.
func (l *Live) WriteFrame(b []byte) error {
	return l.sys.writeFrame(b)
}

// Stats returns the packet counters accumulated since the Live was opened.
//
// The kernel resets its counters every time they are read (and
// packet.Conn.Stats returns those per-read values); Stats adds them up, so
// successive calls return non-decreasing totals and callers may call it as
// often as they like. After Close it returns the last totals and an error
// wrapping fs.ErrClosed.
func (l *Live) Stats() (LiveStats, error) {
	return l.sys.stats()
}

// Pending reports whether a frame waits in the socket's receive queue, so
// that a ReadFrame would return it at once: after the process was stopped
// or starved, what the kernel received meanwhile. False after Close or on
// an error.
func (l *Live) Pending() bool {
	return l.sys.pending()
}

// Close closes the socket, which also leaves the multicast groups and
// unblocks a pending ReadFrame. Close may be called more than once.
func (l *Live) Close() error {
	return l.sys.close()
}
