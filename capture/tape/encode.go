// SPDX-License-Identifier: Apache-2.0

package tape

// Host records to bytes (AppendHost): the format of record.go.

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/hostfs"
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
	case Tunable:
		b = field(b, tagTunIfname, []byte(r.Ifname))
		b = field(b, tagTunID, binary.LittleEndian.AppendUint32(nil, r.ID))
		if r.Err == nil {
			b = field(b, tagTunValue, binary.LittleEndian.AppendUint64(nil, r.Value))
		}
		b = errField(b, tagTunErr, r.Err)
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
