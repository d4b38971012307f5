// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/mdlayher/packet"
	"github.com/vishvananda/netlink"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// tcPrioControl is TC_PRIO_CONTROL, the socket priority of transmitted
// LLDP frames (as lldpad and lldpd use).
const tcPrioControl = 7

// lldpGroups are the LLDP destination addresses (IEEE 802.1AB-2009 Table
// 7-1) a Live joins.
var lldpGroups = []net.HardwareAddr{
	{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}, // nearest bridge
	{0x01, 0x80, 0xc2, 0x00, 0x00, 0x03}, // nearest non-TPMR bridge
	{0x01, 0x80, 0xc2, 0x00, 0x00, 0x00}, // nearest customer bridge
}

// lldpFilter is the classic BPF program of a Live: accept a frame whose
// EtherType is 0x88cc, behind no tag, one or two 802.1Q (0x8100) or
// 802.1ad (0x88a8) tags, whole; drop anything else. It runs on the data
// a packet socket is given, where the outer tag usually is not: the
// kernel moves a received frame's tag out of the data before the packet
// sockets see it (net/core/dev.c, __netif_receive_skb_core:
// skb_vlan_untag, whatever the device's rx-vlan-hw-parse), and a frame
// this host sends keeps its tag out of the data where the device inserts
// tags itself (tx-vlan-hw-insert); the Live puts it back from
// PACKET_AUXDATA. A tag stays in the data where the device does not
// insert tags (validate_xmit_vlan puts it there before the packet
// sockets see the frame) and for the inner tag of two (802.1ad, then
// 802.1Q): hence the tags the program looks past.
var lldpFilter = []bpf.Instruction{
	bpf.LoadAbsolute{Off: 12, Size: 2},                                 // 0: ldh [12]
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: lldp.EtherType, SkipTrue: 8},  // 1: jeq #0x88cc, accept
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x8100, SkipTrue: 1},          // 2: jeq #0x8100, tag
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x88a8, SkipFalse: 7},         // 3: jeq #0x88a8, tag, drop
	bpf.LoadAbsolute{Off: 16, Size: 2},                                 // 4: tag: ldh [16]
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: lldp.EtherType, SkipTrue: 4},  // 5: jeq #0x88cc, accept
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x8100, SkipTrue: 1},          // 6: jeq #0x8100, tag2
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x88a8, SkipFalse: 3},         // 7: jeq #0x88a8, tag2, drop
	bpf.LoadAbsolute{Off: 20, Size: 2},                                 // 8: tag2: ldh [20]
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: lldp.EtherType, SkipFalse: 1}, // 9: jeq #0x88cc, accept, drop
	bpf.RetConstant{Val: 0x40000},                                      // 10: accept: ret #262144
	bpf.RetConstant{Val: 0},                                            // 11: drop: ret #0
}

// readBufSize is the size of a receive buffer: no frame a packet socket
// can deliver is longer.
const readBufSize = 1 << 16

// readBufs holds the receive buffers. A socket takes one only while a
// frame is ready to be read, and copies the frame out of it: a thousand
// idle interfaces (a switch, a test) hold none, where a buffer each held
// 64 MB.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// writeTimeout bounds the wait of WriteFrame for room in the socket's send
// buffer (a stuck transmit queue).
const writeTimeout = time.Second

// downPoll is how often ReadFrame checks whether an interface that went
// down was removed.
const downPoll = 200 * time.Millisecond

// aLongTimeAgo is a deadline in the past, which wakes a pending read.
var aLongTimeAgo = time.Unix(1, 0)

// errPermission is OpenLive's error without CAP_NET_RAW.
var errPermission = fmt.Errorf("open packet socket: %w (run as root or grant CAP_NET_RAW)", fs.ErrPermission)

// liveSys is the Linux part of a Live.
type liveSys struct {
	c       *packet.Conn
	rc      syscall.RawConn
	ifindex int
	closed  atomic.Bool

	// prioErr is why the socket priority could not be set, if it could not.
	prioErr error
	// stampType is the control message type of the kernel receive
	// timestamps (SO_TIMESTAMPNS_NEW or SO_TIMESTAMPNS_OLD), or 0 if the
	// kernel refused both.
	stampType int32

	// Used by ReadFrame only.
	oob []byte
	// readFn is s.readOnce, the function the poller calls to read,
	// bound once at open: a closure made for each frame cost four
	// allocations of it and its variables.
	readFn func(fd uintptr) bool
	// rd is what the last readOnce read.
	rd      readResult
	down    bool  // the interface went down since the last frame
	readErr error // final error: the interface was removed
	// watch is the context whose end sets a read deadline in the past
	// (waking the read), watched from the first ReadFrame with it until
	// another context comes or the socket closes (unwatch, under
	// watchMu: close may come from another goroutine).
	watch   context.Context
	watchMu sync.Mutex
	unwatch func(wait bool)
	// deadline: a read deadline is set (the interface being down, or a
	// context that ended), cleared on the way into the next read.
	deadline bool

	writeMu sync.Mutex // serializes WriteFrame

	statsMu sync.Mutex
	total   LiveStats
}

func openLive(ifname string) (*liveSys, error) {
	// One RTM_GETLINK for the name, not a dump of every link (as
	// net.Interfaces and net.InterfaceByName do): opening 64 ports made
	// 64 dumps of 64 links, 40 MB of garbage and the screen's peak RSS.
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		if _, ok := errors.AsType[netlink.LinkNotFoundError](err); ok {
			ifis, _ := net.Interfaces()
			return nil, noInterface(ifis)
		}
		return nil, fmt.Errorf("look up interface: %w", errnoOf(err))
	}
	a := l.Attrs()
	ifi := &net.Interface{Index: a.Index, MTU: a.MTU, Name: a.Name, HardwareAddr: a.HardwareAddr, Flags: a.Flags}

	filter, err := bpf.Assemble(lldpFilter)
	if err != nil {
		return nil, fmt.Errorf("assemble BPF filter: %w", err) // unreachable: the program is valid
	}
	// ETH_P_ALL, not 0x88cc: the kernel shows this host's outgoing frames
	// only to packet sockets bound to every protocol. The filter, attached
	// before bind(2), keeps the rest out.
	c, err := packet.Listen(ifi, packet.Raw, unix.ETH_P_ALL, &packet.Config{Filter: filter})
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, errPermission
		}
		return nil, fmt.Errorf("open packet socket: %w", errnoOf(err))
	}
	s := &liveSys{
		c:       c,
		ifindex: ifi.Index,
		oob:     make([]byte, oobSize),
	}
	s.readFn = s.readOnce
	if err := s.setup(); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// setup joins the LLDP groups and sets the socket options.
func (s *liveSys) setup() error {
	for _, g := range lldpGroups {
		if err := s.c.JoinGroup(g); err != nil {
			return fmt.Errorf("join multicast group %s: %w", g, errnoOf(err))
		}
	}
	rc, err := s.c.SyscallConn()
	if err != nil {
		return fmt.Errorf("open packet socket: %w", errnoOf(err))
	}
	s.rc = rc
	err = rc.Control(func(fd uintptr) {
		if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PRIORITY, tcPrioControl); err != nil {
			s.prioErr = err
		}
		// Nanosecond receive timestamps, 64-bit on every architecture
		// since Linux 5.1; the old option before that.
		for _, opt := range []int{unix.SO_TIMESTAMPNS_NEW, unix.SO_TIMESTAMPNS_OLD} {
			if unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, opt, 1) == nil {
				s.stampType = int32(opt)
				break
			}
		}
		// Each frame's auxiliary data (struct tpacket_auxdata), for
		// the VLAN tag the kernel took out of it (see readOnce). Should
		// a kernel refuse it (every Linux dcbtop runs on has it), the
		// frames still come, without that tag.
		_ = unix.SetsockoptInt(int(fd), unix.SOL_PACKET, unix.PACKET_AUXDATA, 1)
	})
	if err != nil {
		return fmt.Errorf("open packet socket: %w", errnoOf(err))
	}
	return nil
}

func (s *liveSys) readFrame(ctx context.Context) (Frame, error) {
	if s.closed.Load() {
		return Frame{}, fmt.Errorf("read: %w", fs.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return Frame{}, err
	}
	if s.readErr != nil {
		return Frame{}, s.readErr
	}

	// A done ctx sets a deadline in the past, which wakes the read. A
	// capture reads with one context for the socket's life: it is
	// watched once, not for each frame (an AfterFunc, its channel and a
	// deadline reset each frame were a twentieth of a 64-port screen).
	// A deadline left by the last call is cleared first and ctx checked
	// after: should ctx end between the two, its deadline comes after
	// the clearing and wakes the read.
	if ctx != s.watch {
		s.stopWatching(true)
		s.watch = ctx
		if ctx.Done() != nil {
			fired := make(chan struct{})
			stop := context.AfterFunc(ctx, func() {
				_ = s.c.SetReadDeadline(aLongTimeAgo)
				close(fired)
			})
			s.watchMu.Lock()
			s.unwatch = func(wait bool) {
				if !stop() && wait {
					<-fired
				}
			}
			s.watchMu.Unlock()
		}
		s.deadline = true
	}
	if s.deadline {
		if err := s.c.SetReadDeadline(time.Time{}); err != nil {
			return Frame{}, s.readError(err)
		}
		s.deadline = false
		if err := ctx.Err(); err != nil {
			return Frame{}, err
		}
	}

	for {
		if s.down {
			// The interface went down. If it comes back up, frames
			// flow again; if it is removed, nothing says so but the
			// socket's address: poll it.
			if s.unbound() {
				s.readErr = fmt.Errorf("read: %w (the interface was removed)", ErrNoInterface)
				return Frame{}, s.readErr
			}
			if err := ctx.Err(); err != nil {
				return Frame{}, err
			}
			// Should ctx be done between the check above and this
			// deadline, the read ends at this deadline instead.
			if err := s.c.SetReadDeadline(time.Now().Add(downPoll)); err != nil {
				return Frame{}, s.readError(err)
			}
			s.deadline = true
		}
		err := s.recvmsg()
		if err != nil {
			switch {
			case s.closed.Load():
				return Frame{}, fmt.Errorf("read: %w", fs.ErrClosed)
			case errors.Is(err, os.ErrDeadlineExceeded):
				if err := ctx.Err(); err != nil {
					return Frame{}, err
				}
				if s.down {
					continue
				}
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.ENETDOWN):
				// The kernel unbinds the socket when the interface goes
				// down, reports ENETDOWN once, and binds it again when the
				// interface comes up.
				s.down = true
				continue
			}
			return Frame{}, s.readError(err)
		}
		s.down = false
		f := Frame{At: s.rd.at, Dir: DirectionIncoming, Data: s.rd.data}
		s.rd.data = nil
		if f.At.IsZero() {
			f.At = time.Now()
		}
		if s.rd.outgoing {
			f.Dir = DirectionOutgoing
		}
		return f, nil
	}
}

// A readResult is what one recvmsg(2) of a Live read.
type readResult struct {
	data     []byte    // a copy of the frame
	at       time.Time // the kernel's receive timestamp; zero without one
	outgoing bool      // the packet type is PACKET_OUTGOING
	err      error
}

// recvmsg reads one frame (a copy of its own), its timestamp and whether
// it is one this host sent (the packet type of its source address;
// packet.Conn.ReadFrom would drop it) into s.rd, waiting for it (or for
// the read deadline).
func (s *liveSys) recvmsg() error {
	err := s.rc.Read(s.readFn)
	if err == nil {
		err = s.rd.err
	}
	return err
}

// readOnce is the poller's read function (s.readFn): one recvmsg(2)
// into s.rd; false when the socket has nothing to read yet (EAGAIN). The
// copy of the frame has the VLAN tag the kernel took out of it back
// after the source address (withTag), as it was on the wire.
func (s *liveSys) readOnce(fd uintptr) bool {
	bp := readBufs.Get().(*[]byte)
	n, oobn, outgoing, err := rawRecvmsg(int(fd), *bp, s.oob)
	s.rd = readResult{outgoing: outgoing, err: err}
	if err == nil {
		var c control
		c, s.rd.at = s.control(s.oob[:oobn])
		s.rd.data = c.withTag((*bp)[:n])
	}
	readBufs.Put(bp)
	return err != unix.EAGAIN
}

// rawRecvmsg is recvmsg(2) with MSG_DONTWAIT on fd into p and oob, as a
// raw system call: the socket never blocks (the poller made it
// non-blocking, and MSG_DONTWAIT), and a raw call does not go through
// runtime.entersyscall, which wakes the runtime's sysmon thread from its
// sleep and has it poll again for a while: once for every frame on each
// of a switch's ports, a tenth of the screen's CPU. It returns the
// frame's length, the control messages' length, and whether the source
// address's packet type is PACKET_OUTGOING (linux/if_packet.h); without
// unix.Recvmsg's allocation of the address.
func rawRecvmsg(fd int, p, oob []byte) (n, oobn int, outgoing bool, err error) {
	var from unix.RawSockaddrLinklayer
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := unix.Msghdr{Name: (*byte)(unsafe.Pointer(&from)), Namelen: uint32(unsafe.Sizeof(from)), Iov: &iov}
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_DONTWAIT)
	if e != 0 {
		return 0, 0, false, e
	}
	return int(r), int(msg.Controllen), from.Pkttype == unix.PACKET_OUTGOING, nil
}

// sizeofAuxdata is the size of struct tpacket_auxdata
// (include/uapi/linux/if_packet.h).
const sizeofAuxdata = int(unsafe.Sizeof(unix.TpacketAuxdata{}))

// oobSize is the room for a frame's control messages: its timestamp (a
// 16-byte timespec at most), then its auxiliary data (packet_recvmsg
// puts them in that order).
var oobSize = unix.CmsgSpace(16) + unix.CmsgSpace(sizeofAuxdata)

// control is what a frame's PACKET_AUXDATA message says of its VLAN tag.
type control struct {
	tagged    bool   // the kernel took a tag out of the frame (TP_STATUS_VLAN_VALID)
	tpid, tci uint16 // that tag
}

// control reads the control messages oob of a frame: its auxiliary data
// (PACKET_AUXDATA) and the kernel's receive timestamp (SO_TIMESTAMPNS,
// the SCM_TIMESTAMPNS message of net/core/sock.c's
// __sock_recv_timestamp; the zero time if there is none). The messages
// are walked in place: unix.ParseSocketControlMessage allocated a slice
// of them for each frame.
//
// The auxiliary data is struct tpacket_auxdata
// (include/uapi/linux/if_packet.h), filled by packet_recvmsg
// (net/packet/af_packet.c): when the packet's metadata holds a VLAN tag
// (skb_vlan_tag_present), tp_vlan_tci is its TCI and tp_status has
// TP_STATUS_VLAN_VALID (which tells a TCI of 0 from no tag), and
// tp_vlan_tpid its TPID with TP_STATUS_VLAN_TPID_VALID (a kernel that
// does not set it took out 802.1Q tags only: 0x8100).
func (s *liveSys) control(oob []byte) (c control, at time.Time) {
	for len(oob) >= unix.CmsgLen(0) {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			break
		}
		oob = rest
		switch {
		case h.Level == unix.SOL_PACKET && h.Type == unix.PACKET_AUXDATA && len(data) >= sizeofAuxdata:
			status := binary.NativeEndian.Uint32(data[0:])
			if status&unix.TP_STATUS_VLAN_VALID == 0 {
				continue
			}
			c = control{tagged: true, tpid: 0x8100, tci: binary.NativeEndian.Uint16(data[16:])}
			if tpid := binary.NativeEndian.Uint16(data[18:]); status&unix.TP_STATUS_VLAN_TPID_VALID != 0 && tpid != 0 {
				c.tpid = tpid
			}
		case s.stampType != 0 && h.Level == unix.SOL_SOCKET && h.Type == s.stampType:
			switch len(data) {
			case 16: // struct __kernel_timespec, or a 64-bit struct timespec
				sec := int64(binary.NativeEndian.Uint64(data[0:]))
				nsec := int64(binary.NativeEndian.Uint64(data[8:]))
				at = time.Unix(sec, nsec)
			case 8: // a 32-bit struct timespec
				sec := int32(binary.NativeEndian.Uint32(data[0:]))
				nsec := int32(binary.NativeEndian.Uint32(data[4:]))
				at = time.Unix(int64(sec), int64(nsec))
			}
		}
	}
	return c, at
}

// withTag returns a copy of the frame f (one allocation), with c's tag,
// if any, inserted after the source address: the 802.1Q tag (IEEE Std
// 802.1Q-2018, 9.6: the TPID, then the TCI, big-endian) where it was on
// the wire, before any tag still in f (the inner one of two).
func (c control) withTag(f []byte) []byte {
	if !c.tagged || len(f) < 12 {
		return bytes.Clone(f)
	}
	b := make([]byte, len(f)+4)
	copy(b, f[:12])
	binary.BigEndian.PutUint16(b[12:], c.tpid)
	binary.BigEndian.PutUint16(b[14:], c.tci)
	copy(b[16:], f[12:])
	return b
}

// unbound reports whether the kernel unbound the socket from its
// interface, which it does when the interface is removed.
func (s *liveSys) unbound() bool {
	var sa unix.Sockaddr
	var err error
	if cerr := s.rc.Control(func(fd uintptr) { sa, err = unix.Getsockname(int(fd)) }); cerr != nil || err != nil {
		return false
	}
	sll, ok := sa.(*unix.SockaddrLinklayer)
	return ok && sll.Ifindex != s.ifindex
}

// readError turns an error of the socket into one of ReadFrame.
func (s *liveSys) readError(err error) error {
	if s.closed.Load() {
		return fmt.Errorf("read: %w", fs.ErrClosed)
	}
	return fmt.Errorf("read: %w", errnoOf(err))
}

func (s *liveSys) writeFrame(b []byte) error {
	if s.closed.Load() {
		return fmt.Errorf("write: %w", fs.ErrClosed)
	}
	if len(b) < 14 {
		return fmt.Errorf("write: a frame of %d bytes is shorter than an Ethernet header", len(b))
	}
	if s.prioErr != nil {
		return fmt.Errorf("write: cannot set socket priority %d (TC_PRIO_CONTROL): %w (grant CAP_NET_ADMIN)", tcPrioControl, s.prioErr)
	}
	// The frame's own EtherType goes into sll_protocol, which becomes
	// the packet's protocol for the traffic control layer.
	to := &unix.SockaddrLinklayer{
		Ifindex:  s.ifindex,
		Protocol: htons(binary.BigEndian.Uint16(b[12:14])),
		Halen:    6,
	}
	copy(to.Addr[:], b[:6])

	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.c.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return s.writeError(err)
	}
	var werr error
	err := s.rc.Write(func(fd uintptr) bool {
		werr = unix.Sendto(int(fd), b, 0, to)
		return werr != unix.EAGAIN
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return s.writeError(err)
	}
	return nil
}

// writeError turns an error of the socket into one of WriteFrame.
func (s *liveSys) writeError(err error) error {
	switch {
	case s.closed.Load():
		return fmt.Errorf("write: %w", fs.ErrClosed)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("write: timed out after %v: the interface does not transmit", writeTimeout)
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return fmt.Errorf("write: %w (the interface was removed)", ErrNoInterface)
	}
	return fmt.Errorf("write: %w", errnoOf(err))
}

func (s *liveSys) stats() (LiveStats, error) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if s.closed.Load() {
		return s.total, fmt.Errorf("stats: %w", fs.ErrClosed)
	}
	// Reading the kernel's counters resets them.
	st, err := s.c.Stats()
	if err != nil {
		if s.closed.Load() {
			return s.total, fmt.Errorf("stats: %w", fs.ErrClosed)
		}
		return s.total, fmt.Errorf("stats: %w", errnoOf(err))
	}
	s.total.Packets += uint64(st.Packets)
	s.total.Drops += uint64(st.Drops)
	return s.total, nil
}

// pending asks the kernel for the length of the next frame in the
// socket's receive queue (SIOCINQ; net/packet/af_packet.c packet_ioctl).
func (s *liveSys) pending() bool {
	if s.closed.Load() {
		return false
	}
	n := 0
	err := s.rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	return err == nil && n > 0
}

// stopWatching ends the watch on the context of the last read; wait:
// until its deadline is set, if it has just ended.
func (s *liveSys) stopWatching(wait bool) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.unwatch != nil {
		s.unwatch(wait)
	}
	s.unwatch = nil
}

func (s *liveSys) close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stopWatching(false) // a read under way ends with the socket
	if err := s.c.Close(); err != nil {
		return fmt.Errorf("close: %w", errnoOf(err))
	}
	return nil
}

// noInterface returns the error of OpenLive for an unknown interface.
func noInterface(ifis []net.Interface) error {
	names := make([]string, len(ifis))
	for i, ifi := range ifis {
		names[i] = ifi.Name
	}
	slices.Sort(names)
	list := strings.Join(names, ", ")
	if list == "" {
		list = "none"
	}
	return fmt.Errorf("%w (available: %s)", ErrNoInterface, list)
}

// errnoOf returns the system call error number that err wraps, so that
// messages say "network is down" instead of repeating every layer of
// net.OpError and os.SyscallError, or err itself if it wraps none.
func errnoOf(err error) error {
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return errno
	}
	return err
}

// htons converts v to network byte order, as a sockaddr field wants it.
func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}
