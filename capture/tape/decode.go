// SPDX-License-Identifier: Apache-2.0

package tape

// Host records from bytes (DecodeHost), each field checked.

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
	case KindTunable:
		var r Tunable
		d.each(func(tag uint16, v []byte) {
			switch tag {
			case tagTunIfname:
				r.Ifname = d.str(v)
			case tagTunID:
				if len(v) != 4 {
					d.fail("tunable ID of %d bytes", len(v))
					return
				}
				r.ID = binary.LittleEndian.Uint32(v)
			case tagTunValue:
				if len(v) != 8 {
					d.fail("tunable value of %d bytes", len(v))
					return
				}
				r.Value = binary.LittleEndian.Uint64(v)
			case tagTunErr:
				r.Err = d.error(v, r.Ifname)
			}
		})
		if d.err == nil && r.Ifname == "" {
			d.fail("tunable %d of no interface", r.ID)
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
		k == KindLocal && (tag == tagLocalSource || tag == tagLocalFlags || tag == tagLocalParams),
		k == KindTunable && (tag == tagTunID || tag == tagTunValue):
		return len(v)
	case k == KindEthtool && tag == tagStat: // u64 value, then the name
		return min(len(v), 8)
	case k == KindObserved && tag == tagAgent: // u32 PID, transmits, then the name
		return min(len(v), 5)
	case k == KindFile && tag == tagErr, k == KindEthtool && tag == tagEthErr, k == KindTunable && tag == tagTunErr:
		// The class, then for an errno the u32 and the operation's name,
		// for a message the text.
		if len(v) > 0 && v[0] == errErrno {
			return min(len(v), 5)
		}
		return min(len(v), 1)
	}
	return 0
}
