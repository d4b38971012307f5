// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// Magic starts every host record ("DCBT").
var Magic = [4]byte{'D', 'C', 'B', 'T'}

// Version is the host records' format version this package writes. A
// record of a later version is read as far as its kinds and tags are
// known; one of version 0 is corrupt.
const Version = 1

// Limits of a host record: what a reader refuses as corrupt rather than
// allocate (docs/recording.md).
const (
	// MaxRecord bounds a record's payload: the largest input is a file
	// of a few KiB or an `ethtool -S` of a few thousand statistics.
	MaxRecord = 1 << 20
	// MaxItems bounds the names of a directory, the statistics of an
	// ethtool record or the agents observed.
	MaxItems = 1 << 16
	// maxString bounds a name or a message.
	maxString = 4096
)

// A Kind is the kind of a host record.
type Kind uint8

// The kinds of host records (docs/recording.md).
const (
	KindBegin    Kind = 1
	KindEnd      Kind = 2
	KindFile     Kind = 3
	KindEthtool  Kind = 4
	KindObserved Kind = 5
	KindLink     Kind = 6
	KindSources  Kind = 7
	// KindNetlinkError ends a netlink exchange whose request got no
	// kernel's answer but an error of the client's side (a socket error,
	// a reply that could not be read): it follows the request, instead
	// of a reply packet.
	KindNetlinkError Kind = 8
	// KindLocal is what the run learnt of an interface's local
	// parameters from outside the host's other inputs: a dcbtop agent of
	// another process, through its control socket.
	KindLocal Kind = 9
)

// A Round is what a round of reads is for.
type Round uint8

// The rounds.
const (
	// RoundOpen: the host's readers opened (counters.Open): the sources
	// there are and what resolving their netlink families asked.
	RoundOpen Round = 1
	// RoundCounters: one counters sample of Begin.Ifname.
	RoundCounters Round = 2
	// RoundDCB: one reading of Begin.Ifname's local DCB parameters.
	RoundDCB Round = 3
)

// String names the round in errors.
func (r Round) String() string {
	switch r {
	case RoundOpen:
		return "open"
	case RoundCounters:
		return "counters"
	case RoundDCB:
		return "dcb"
	}
	return fmt.Sprintf("round %d", uint8(r))
}

// A Record is one host record.
type Record interface{ Kind() Kind }

// Begin starts a round of reads.
type Begin struct {
	Round    Round
	Ifname   string        // the interface read ("" for RoundOpen)
	Interval time.Duration // a counters sample's interval
}

// End ends the round begun last.
type End struct{}

// File is one operation on the tree that stands for /sys.
type File struct{ Op hostfs.Op }

// An EthtoolOp is what an Ethtool record answers.
type EthtoolOp uint8

// The ethtool operations (the ETHTOOL_GDRVINFO and ETHTOOL_GSTATS ioctls,
// or a recorded `ethtool -i` / `ethtool -S`).
const (
	EthtoolDriver EthtoolOp = 1
	EthtoolStats  EthtoolOp = 2
)

// Ethtool is one answer of the driver's ethtool operations.
type Ethtool struct {
	Ifname string
	Op     EthtoolOp
	Driver string
	Stats  []Stat // in the driver's order
	Err    error
}

// A Stat is one driver statistic.
type Stat struct {
	Name  string
	Value uint64
}

// Observed is what a scan of the host found: whether the run may
// administer the network (CAP_NET_ADMIN) and the LLDP agent processes.
type Observed struct {
	NetAdmin bool
	Agents   []Agent
}

// An Agent is an LLDP agent process.
type Agent struct {
	Name      string
	PID       int
	Transmits bool
}

// Link is a link change the kernel announced.
type Link struct {
	Name    string
	Index   int
	MAC     [6]byte
	Up      bool
	Removed bool
	// Was is the name before a rename ("" when none).
	Was string
	// MTU is the interface's MTU (0: not recorded, as in tapes of
	// before it was).
	MTU int
	// VLANs are the VLAN IDs of the VLAN interfaces on it; nil when not
	// recorded (tapes of before they were), empty when none.
	VLANs []uint16
}

// Sources says which counter sources the run had (counters.Sampler):
// their names in order, and why RDMA netlink could not be read
// ("" when it could, or when the host has no RDMA).
type Sources struct {
	Names        []string
	RDMAStatsErr string
}

// Local is what a run learnt, and when (the record's time), of an
// interface's local parameters from a source none of the host's other
// records stands for: the dcbtop agent of another process on the
// interface, whose control socket answered its local parameters and
// Willing state (Source "agent", engine.SourceAgent; control.OtherAgents)
// or stopped answering (Withdrawn). A replay hands the engine the same
// engine.LocalChanged at the same time.
type Local struct {
	Ifname string
	// Source is the engine's name of the source (engine.LocalSource).
	Source    string
	Willing   bool
	Withdrawn bool
	// Params are the local parameters as JSON, as the control socket
	// carries them (the snapshot contract's PARAMS, encoding/json's
	// form of dcb.Params); nil when there are none (withdrawn).
	Params []byte
}

// Kind is KindLocal.
func (Local) Kind() Kind { return KindLocal }

// NetlinkError is the error a netlink exchange got instead of a kernel's
// answer (KindNetlinkError): its text, without the "netlink receive:" of
// netlink.OpError, which the replayed connection adds again.
type NetlinkError struct{ Text string }

// Kind is KindNetlinkError.
func (NetlinkError) Kind() Kind { return KindNetlinkError }

// Kind is KindBegin.
func (Begin) Kind() Kind { return KindBegin }

// Kind is KindEnd.
func (End) Kind() Kind { return KindEnd }

// Kind is KindFile.
func (File) Kind() Kind { return KindFile }

// Kind is KindEthtool.
func (Ethtool) Kind() Kind { return KindEthtool }

// Kind is KindObserved.
func (Observed) Kind() Kind { return KindObserved }

// Kind is KindLink.
func (Link) Kind() Kind { return KindLink }

// Kind is KindSources.
func (Sources) Kind() Kind { return KindSources }

// Field tags. Each kind numbers its own from 1.
const (
	tagRound    = 1
	tagIfname   = 2
	tagInterval = 3

	tagOp    = 1
	tagName  = 2
	tagInfo  = 3
	tagEntry = 4
	tagData  = 5
	tagErr   = 6

	tagEthIfname = 1
	tagEthOp     = 2
	tagDriver    = 3
	tagStat      = 4
	tagEthErr    = 6

	tagNetAdmin = 1
	tagAgent    = 2

	tagLinkName    = 1
	tagLinkIndex   = 2
	tagLinkMAC     = 3
	tagLinkFlags   = 4
	tagLinkWas     = 5
	tagLinkMTU     = 6
	tagLinkVLANs   = 7 // 2 bytes each, little-endian; present and empty for none
	tagSourceName  = 1
	tagRDMAStatErr = 2

	tagNetlinkErr = 1

	tagLocalIfname = 1
	tagLocalSource = 2
	tagLocalFlags  = 3 // 1 willing, 2 withdrawn
	tagLocalParams = 4 // PARAMS JSON; absent for none
)

// Error classes of a recorded error (the first byte of an error field).
const (
	errErrno      = 1 // u32 errno, then the operation's name
	errIsDir      = 2
	errNotRegular = 3
	errText       = 4 // the message
)

// AppendHost appends r's payload (magic, version, kind, fields) to b.
func AppendHost(b []byte, r Record) []byte {
	b = append(b, Magic[:]...)
	b = append(b, Version, byte(r.Kind()), 0, 0)
	switch r := r.(type) {
	case Begin:
		b = field(b, tagRound, []byte{byte(r.Round)})
		if r.Ifname != "" {
			b = field(b, tagIfname, []byte(r.Ifname))
		}
		if r.Interval != 0 {
			b = field(b, tagInterval, binary.LittleEndian.AppendUint64(nil, uint64(r.Interval)))
		}
	case End:
	case File:
		b = field(b, tagOp, []byte{byte(r.Op.Kind)})
		b = field(b, tagName, []byte(r.Op.Name))
		var info byte
		if r.Op.Info.Dir {
			info |= 1
		}
		if r.Op.Info.Regular {
			info |= 2
		}
		if info != 0 {
			b = field(b, tagInfo, []byte{info})
		}
		for _, n := range r.Op.Names {
			b = field(b, tagEntry, []byte(n))
		}
		if r.Op.Data != nil {
			b = field(b, tagData, r.Op.Data)
		}
		b = errField(b, tagErr, r.Op.Err)
	case Ethtool:
		b = field(b, tagEthIfname, []byte(r.Ifname))
		b = field(b, tagEthOp, []byte{byte(r.Op)})
		if r.Driver != "" {
			b = field(b, tagDriver, []byte(r.Driver))
		}
		for _, s := range r.Stats {
			b = field(b, tagStat, append(binary.LittleEndian.AppendUint64(nil, s.Value), s.Name...))
		}
		b = errField(b, tagEthErr, r.Err)
	case Observed:
		if r.NetAdmin {
			b = field(b, tagNetAdmin, []byte{1})
		}
		for _, a := range r.Agents {
			v := binary.LittleEndian.AppendUint32(nil, uint32(a.PID))
			t := byte(0)
			if a.Transmits {
				t = 1
			}
			b = field(b, tagAgent, append(append(v, t), a.Name...))
		}
	case Link:
		b = field(b, tagLinkName, []byte(r.Name))
		b = field(b, tagLinkIndex, binary.LittleEndian.AppendUint32(nil, uint32(r.Index)))
		b = field(b, tagLinkMAC, r.MAC[:])
		var f byte
		if r.Up {
			f |= 1
		}
		if r.Removed {
			f |= 2
		}
		b = field(b, tagLinkFlags, []byte{f})
		if r.Was != "" {
			b = field(b, tagLinkWas, []byte(r.Was))
		}
		if r.MTU > 0 {
			b = field(b, tagLinkMTU, binary.LittleEndian.AppendUint32(nil, uint32(r.MTU)))
		}
		if r.VLANs != nil {
			v := make([]byte, 0, 2*len(r.VLANs))
			for _, id := range r.VLANs {
				v = binary.LittleEndian.AppendUint16(v, id)
			}
			b = field(b, tagLinkVLANs, v)
		}
	case NetlinkError:
		b = field(b, tagNetlinkErr, []byte(r.Text))
	case Local:
		b = field(b, tagLocalIfname, []byte(r.Ifname))
		b = field(b, tagLocalSource, []byte(r.Source))
		var f byte
		if r.Willing {
			f |= 1
		}
		if r.Withdrawn {
			f |= 2
		}
		b = field(b, tagLocalFlags, []byte{f})
		if r.Params != nil {
			b = field(b, tagLocalParams, r.Params)
		}
	case Sources:
		for _, n := range r.Names {
			b = field(b, tagSourceName, []byte(n))
		}
		if r.RDMAStatsErr != "" {
			b = field(b, tagRDMAStatErr, []byte(r.RDMAStatsErr))
		}
	}
	return b
}

// field appends a tagged field: u16 tag, u32 length, the value.
func field(b []byte, tag uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, tag)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// errField appends err, if any, as an error field.
func errField(b []byte, tag uint16, err error) []byte {
	if err == nil {
		return b
	}
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.Is(err, hostfs.ErrIsDir):
		return field(b, tag, []byte{errIsDir})
	case errors.Is(err, hostfs.ErrNotRegular):
		return field(b, tag, []byte{errNotRegular})
	case errors.As(err, &pe) && errors.As(pe.Err, &errno):
		v := binary.LittleEndian.AppendUint32([]byte{errErrno}, uint32(errno))
		return field(b, tag, append(v, pe.Op...))
	case errors.As(err, &errno):
		return field(b, tag, binary.LittleEndian.AppendUint32([]byte{errErrno}, uint32(errno)))
	}
	return field(b, tag, append([]byte{errText}, err.Error()...))
}

// ErrUnknownKind is DecodeHost's error for a record of a kind this
// version does not know: the caller skips it.
var ErrUnknownKind = errors.New("unknown record kind")

// ErrMalformed is the error of a host record that cannot be read.
var ErrMalformed = errors.New("malformed dcbtop record")

// DecodeHost reads a host record's payload. A kind it does not know is
// ErrUnknownKind (skip it); a tag it does not know is skipped. Anything
// else wrong is an error matching ErrMalformed that says what.
func DecodeHost(b []byte) (Record, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header", ErrMalformed, len(b))
	}
	if [4]byte(b[:4]) != Magic {
		return nil, fmt.Errorf("%w: magic %x, want %x", ErrMalformed, b[:4], Magic[:])
	}
	if b[4] == 0 {
		return nil, fmt.Errorf("%w: version 0", ErrMalformed)
	}
	if len(b) > MaxRecord {
		return nil, fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrMalformed, len(b), MaxRecord)
	}
	kind := Kind(b[5])
	d := decoder{b: b[8:], kind: kind}
	var rec Record
	switch kind {
	case KindBegin:
		var r Begin
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagRound:
				r.Round = Round(d.u8(v))
			case tagIfname:
				r.Ifname = d.str(v)
			case tagInterval:
				r.Interval = time.Duration(d.u64(v))
			}
		})
		if d.err == nil && r.Round == 0 {
			d.fail("no round")
		}
		rec = r
	case KindEnd:
		d.each(func(uint16, []byte) {})
		rec = End{}
	case KindFile:
		var r File
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagOp:
				r.Op.Kind = hostfs.OpKind(d.u8(v))
			case tagName:
				r.Op.Name = d.str(v)
			case tagInfo:
				i := d.u8(v)
				r.Op.Info = hostfs.Info{Dir: i&1 != 0, Regular: i&2 != 0}
			case tagEntry:
				if d.items++; d.items > MaxItems {
					d.fail("over %d directory entries", MaxItems)
					return
				}
				r.Op.Names = append(r.Op.Names, d.str(v))
			case tagData:
				r.Op.Data = append([]byte{}, v...)
			case tagErr:
				r.Op.Err = d.error(v, r.Op.Name)
			}
		})
		if d.err == nil && (r.Op.Kind < hostfs.OpStat || r.Op.Kind > hostfs.OpReadFile || r.Op.Name == "") {
			d.fail("file operation %d on %q", r.Op.Kind, r.Op.Name)
		}
		rec = r
	case KindEthtool:
		var r Ethtool
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagEthIfname:
				r.Ifname = d.str(v)
			case tagEthOp:
				r.Op = EthtoolOp(d.u8(v))
			case tagDriver:
				r.Driver = d.str(v)
			case tagStat:
				if d.items++; d.items > MaxItems {
					d.fail("over %d statistics", MaxItems)
					return
				}
				if len(v) < 8 {
					d.fail("statistic of %d bytes", len(v))
					return
				}
				r.Stats = append(r.Stats, Stat{Value: binary.LittleEndian.Uint64(v), Name: d.str(v[8:])})
			case tagEthErr:
				r.Err = d.error(v, r.Ifname)
			}
		})
		if d.err == nil && (r.Ifname == "" || (r.Op != EthtoolDriver && r.Op != EthtoolStats)) {
			d.fail("ethtool operation %d on %q", r.Op, r.Ifname)
		}
		rec = r
	case KindObserved:
		var r Observed
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagNetAdmin:
				r.NetAdmin = d.u8(v) != 0
			case tagAgent:
				if d.items++; d.items > MaxItems {
					d.fail("over %d agents", MaxItems)
					return
				}
				if len(v) < 5 {
					d.fail("agent of %d bytes", len(v))
					return
				}
				r.Agents = append(r.Agents, Agent{PID: int(binary.LittleEndian.Uint32(v)), Transmits: v[4] != 0, Name: d.str(v[5:])})
			}
		})
		rec = r
	case KindLink:
		var r Link
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagLinkName:
				r.Name = d.str(v)
			case tagLinkIndex:
				r.Index = int(d.u32(v))
			case tagLinkMAC:
				if len(v) != 6 {
					d.fail("MAC of %d bytes", len(v))
					return
				}
				r.MAC = [6]byte(v)
			case tagLinkFlags:
				f := d.u8(v)
				r.Up, r.Removed = f&1 != 0, f&2 != 0
			case tagLinkWas:
				r.Was = d.str(v)
			case tagLinkMTU:
				r.MTU = int(d.u32(v))
			case tagLinkVLANs:
				if len(v)%2 != 0 {
					d.fail("VLAN list of %d bytes", len(v))
					return
				}
				r.VLANs = make([]uint16, 0, len(v)/2)
				for i := 0; i < len(v); i += 2 {
					r.VLANs = append(r.VLANs, binary.LittleEndian.Uint16(v[i:]))
				}
			}
		})
		if d.err == nil && r.Name == "" {
			d.fail("link without a name")
		}
		rec = r
	case KindSources:
		var r Sources
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagSourceName:
				if d.items++; d.items > 64 {
					d.fail("over 64 sources")
					return
				}
				r.Names = append(r.Names, d.str(v))
			case tagRDMAStatErr:
				r.RDMAStatsErr = d.str(v)
			}
		})
		rec = r
	case KindNetlinkError:
		var r NetlinkError
		d.each(func(tag uint16, v []byte) {
			if tag == tagNetlinkErr {
				r.Text = d.str(v)
			}
		})
		if d.err == nil && r.Text == "" {
			d.fail("netlink error without its text")
		}
		rec = r
	case KindLocal:
		var r Local
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagLocalIfname:
				r.Ifname = d.str(v)
			case tagLocalSource:
				r.Source = d.str(v)
			case tagLocalFlags:
				f := d.u8(v)
				r.Willing, r.Withdrawn = f&1 != 0, f&2 != 0
			case tagLocalParams:
				r.Params = append([]byte{}, v...)
			}
		})
		if d.err == nil && (r.Ifname == "" || r.Source == "") {
			d.fail("local parameters of %q from source %q", r.Ifname, r.Source)
		}
		rec = r
	default:
		return nil, fmt.Errorf("%w %d", ErrUnknownKind, kind)
	}
	if d.err != nil {
		return nil, d.err
	}
	return rec, nil
}

// A decoder reads the tagged fields of one record, keeping the first
// problem.
type decoder struct {
	b     []byte
	kind  Kind
	items int
	err   error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: kind %d: %s", ErrMalformed, d.kind, fmt.Sprintf(format, args...))
	}
}

// each calls fn with each field, in order, until a problem.
func (d *decoder) each(fn func(tag uint16, v []byte)) {
	b := d.b
	for len(b) > 0 && d.err == nil {
		if len(b) < 6 {
			d.fail("field header cut short (%d bytes)", len(b))
			return
		}
		tag, n := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint32(b[2:])
		if uint64(n) > uint64(len(b)-6) {
			d.fail("field %d of %d bytes in %d", tag, n, len(b)-6)
			return
		}
		fn(tag, b[6:6+n])
		b = b[6+n:]
	}
}

func (d *decoder) u8(v []byte) uint8 {
	if len(v) != 1 {
		d.fail("a 1-byte field of %d bytes", len(v))
		return 0
	}
	return v[0]
}

func (d *decoder) u32(v []byte) uint32 {
	if len(v) != 4 {
		d.fail("a 4-byte field of %d bytes", len(v))
		return 0
	}
	return binary.LittleEndian.Uint32(v)
}

func (d *decoder) u64(v []byte) uint64 {
	if len(v) != 8 {
		d.fail("an 8-byte field of %d bytes", len(v))
		return 0
	}
	u := binary.LittleEndian.Uint64(v)
	if u > math.MaxInt64 {
		d.fail("value %d out of range", u)
		return 0
	}
	return u
}

func (d *decoder) str(v []byte) string {
	if len(v) > maxString {
		d.fail("a string of %d bytes, over %d", len(v), maxString)
		return ""
	}
	return string(v)
}

// error reads an error field of an operation on name.
func (d *decoder) error(v []byte, name string) error {
	if len(v) == 0 {
		d.fail("empty error")
		return nil
	}
	switch v[0] {
	case errIsDir:
		return hostfs.ErrIsDir
	case errNotRegular:
		return hostfs.ErrNotRegular
	case errErrno:
		if len(v) < 5 {
			d.fail("errno of %d bytes", len(v)-1)
			return nil
		}
		errno := syscall.Errno(binary.LittleEndian.Uint32(v[1:]))
		if errno == 0 {
			d.fail("errno 0")
			return nil
		}
		if len(v) == 5 {
			return errno // not an operation on a path
		}
		return &fs.PathError{Op: d.str(v[5:]), Path: name, Err: errno}
	case errText:
		return errors.New(d.str(v[1:]))
	}
	d.fail("error class %d", v[0])
	return nil
}

// Netlink protocols of the exchanges a recording holds
// (include/uapi/linux/netlink.h; NETLINK_RDMA is 20).
const (
	ProtoRoute   = 0
	ProtoGeneric = 16
	ProtoRDMA    = 20
)

// NumericPrefix returns how many bytes at the start of the value v of
// field tag of a host record of kind k are binary numbers as AppendHost
// writes them (a round, an interval, an operation, flags, an ifindex, a
// statistic's value, an agent's PID, an error's class and errno), or
// words of the format's own (a local source's name, PARAMS JSON: numbers
// and the PARAMS keys, nothing that names a host): all of v for such a
// field, 0 for one that is text or raw bytes (names, paths, file
// contents, messages). capture/redact replaces values in the rest only.
func NumericPrefix(k Kind, tag uint16, v []byte) int {
	switch {
	case k == KindBegin && (tag == tagRound || tag == tagInterval),
		k == KindFile && (tag == tagOp || tag == tagInfo),
		k == KindEthtool && tag == tagEthOp,
		k == KindObserved && tag == tagNetAdmin,
		k == KindLink && (tag == tagLinkIndex || tag == tagLinkFlags),
		k == KindLocal && (tag == tagLocalSource || tag == tagLocalFlags || tag == tagLocalParams):
		return len(v)
	case k == KindEthtool && tag == tagStat: // u64 value, then the name
		return min(len(v), 8)
	case k == KindObserved && tag == tagAgent: // u32 PID, transmits, then the name
		return min(len(v), 5)
	case k == KindFile && tag == tagErr, k == KindEthtool && tag == tagEthErr:
		// The class, then for an errno the u32 and the operation's name,
		// for a message the text.
		if len(v) > 0 && v[0] == errErrno {
			return min(len(v), 5)
		}
		return min(len(v), 1)
	}
	return 0
}
