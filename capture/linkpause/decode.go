// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// walkAttrs calls fn for each netlink attribute in b (host byte order, as
// netlink is), with its type without the NLA_F_NESTED and
// NLA_F_NET_BYTEORDER flags and its payload. An attribute shorter than its
// header or longer than what is left, or bytes left over that cannot hold
// a header, make b malformed; what names b in the error. The last
// attribute may lack its padding.
func walkAttrs(b []byte, what string, fn func(typ uint16, data []byte) error) error {
	for len(b) > 0 {
		if len(b) < nlaHdrLen {
			return nl.Malformed(what, "%d trailing bytes, shorter than an attribute header", len(b))
		}
		n := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4]) & nlaTypeMask
		if n < nlaHdrLen || n > len(b) {
			return nl.Malformed(what, "attribute %d has length %d with %d bytes left", typ, n, len(b))
		}
		if err := fn(typ, b[nlaHdrLen:n]); err != nil {
			return err
		}
		next := (n + nlaAlignTo - 1) &^ (nlaAlignTo - 1)
		b = b[min(next, len(b)):]
	}
	return nil
}

// seen records attributes already decoded, to refuse a repeated one: the
// kernel never repeats them, and two values for one setting have no
// meaning.
type seen map[uint16]bool

func (s seen) once(typ uint16, name string) error {
	if s[typ] {
		return nl.Malformed(name, "given twice")
	}
	s[typ] = true
	return nil
}

// u8 decodes a setting: one byte, any non-zero value On (the kernel puts 0
// or 1, and reads any non-zero u8 as true when setting).
func u8(name string, data []byte) (State, error) {
	if len(data) != 1 {
		return Unknown, nl.Malformed(name, "u8 of %d bytes", len(data))
	}
	return stateOf(data[0] != 0), nil
}

// u64 decodes a counter of 8 bytes.
func u64(name string, data []byte) (*uint64, error) {
	if len(data) != 8 {
		return nil, nl.Malformed(name, "u64 of %d bytes", len(data))
	}
	v := binary.NativeEndian.Uint64(data)
	return &v, nil
}

// A reply is a decoded ETHTOOL_MSG_PAUSE_GET_REPLY.
type reply struct {
	Ifindex  int    // ETHTOOL_A_HEADER_DEV_INDEX; 0 when absent
	Ifname   string // ETHTOOL_A_HEADER_DEV_NAME; "" when absent
	Settings Settings
	Stats    Stats
	HasStats bool // the reply has an ETHTOOL_A_PAUSE_STATS nest (maybe empty)
}

// decodeReply decodes the attributes of an ETHTOOL_MSG_PAUSE_GET_REPLY
// (what follows struct genlmsghdr). Attributes it does not know, at any
// level, are skipped; a malformed reply returns an error wrapping
// ErrMalformed and no values.
func decodeReply(b []byte) (*reply, error) {
	r := &reply{}
	top := seen{}
	err := walkAttrs(b, "PAUSE_GET reply", func(typ uint16, data []byte) error {
		var err error
		switch typ {
		case ethtoolAPauseHeader:
			if err = top.once(typ, "ETHTOOL_A_PAUSE_HEADER"); err == nil {
				err = r.decodeHeader(data)
			}
		case ethtoolAPauseAutoneg:
			if err = top.once(typ, "ETHTOOL_A_PAUSE_AUTONEG"); err == nil {
				r.Settings.Autoneg, err = u8("ETHTOOL_A_PAUSE_AUTONEG", data)
			}
		case ethtoolAPauseRX:
			if err = top.once(typ, "ETHTOOL_A_PAUSE_RX"); err == nil {
				r.Settings.RX, err = u8("ETHTOOL_A_PAUSE_RX", data)
			}
		case ethtoolAPauseTX:
			if err = top.once(typ, "ETHTOOL_A_PAUSE_TX"); err == nil {
				r.Settings.TX, err = u8("ETHTOOL_A_PAUSE_TX", data)
			}
		case ethtoolAPauseStats:
			if err = top.once(typ, "ETHTOOL_A_PAUSE_STATS"); err == nil {
				r.HasStats = true
				err = r.decodeStats(data)
			}
		}
		// ETHTOOL_A_PAUSE_STATS_SRC and anything newer: skipped.
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// decodeHeader decodes the reply header nest: the device's index and name.
func (r *reply) decodeHeader(b []byte) error {
	s := seen{}
	return walkAttrs(b, "ETHTOOL_A_PAUSE_HEADER", func(typ uint16, data []byte) error {
		switch typ {
		case ethtoolAHeaderDevIndex:
			if err := s.once(typ, "ETHTOOL_A_HEADER_DEV_INDEX"); err != nil {
				return err
			}
			if len(data) != 4 {
				return nl.Malformed("ETHTOOL_A_HEADER_DEV_INDEX", "u32 of %d bytes", len(data))
			}
			r.Ifindex = int(binary.NativeEndian.Uint32(data))
		case ethtoolAHeaderDevName:
			if err := s.once(typ, "ETHTOOL_A_HEADER_DEV_NAME"); err != nil {
				return err
			}
			r.Ifname = nlclient.CString(data)
		}
		return nil
	})
}

// decodeStats decodes the ETHTOOL_A_PAUSE_STATS nest.
func (r *reply) decodeStats(b []byte) error {
	s := seen{}
	return walkAttrs(b, "ETHTOOL_A_PAUSE_STATS", func(typ uint16, data []byte) error {
		var err error
		switch typ {
		case ethtoolAPauseStatTxFrames:
			if err = s.once(typ, "ETHTOOL_A_PAUSE_STAT_TX_FRAMES"); err == nil {
				r.Stats.TxFrames, err = u64("ETHTOOL_A_PAUSE_STAT_TX_FRAMES", data)
			}
		case ethtoolAPauseStatRxFrames:
			if err = s.once(typ, "ETHTOOL_A_PAUSE_STAT_RX_FRAMES"); err == nil {
				r.Stats.RxFrames, err = u64("ETHTOOL_A_PAUSE_STAT_RX_FRAMES", data)
			}
		}
		// ETHTOOL_A_PAUSE_STAT_PAD and newer counters: skipped.
		return err
	})
}

// decodeMessage checks a generic netlink message's header (struct
// genlmsghdr: cmd, version, reserved) for command cmd and returns its
// attributes.
func decodeMessage(data []byte, cmd uint8, what string) ([]byte, error) {
	if len(data) < genlHdrLen {
		return nil, nl.Malformed("", "%s of %d bytes is shorter than struct genlmsghdr", what, len(data))
	}
	if data[0] != cmd {
		return nil, nl.Malformed("", "%s has command %d, want %d", what, data[0], cmd)
	}
	return data[genlHdrLen:], nil
}

// pause turns a decoded reply for ifname into a Pause; statsAsked says
// whether the request carried ETHTOOL_FLAG_STATS.
func (r *reply) pause(ifname string, statsAsked bool) (*Pause, error) {
	if r.Ifname != "" && r.Ifname != ifname {
		return nil, nl.Malformed("ETHTOOL_A_HEADER_DEV_NAME", "reply about %q, asked about %q", r.Ifname, ifname)
	}
	p := &Pause{Ifname: ifname, Ifindex: r.Ifindex, Settings: r.Settings, Stats: r.Stats, Source: SourceNetlink}
	var why []string
	for _, s := range []struct {
		st   State
		name string
	}{{r.Settings.Autoneg, "ETHTOOL_A_PAUSE_AUTONEG"}, {r.Settings.RX, "ETHTOOL_A_PAUSE_RX"}, {r.Settings.TX, "ETHTOOL_A_PAUSE_TX"}} {
		if !s.st.Known() {
			why = append(why, fmt.Sprintf("kernel reply has no %s", s.name))
		}
	}
	switch {
	case !statsAsked:
		why = append(why, ReasonOldKernelStats)
	case !r.HasStats:
		why = append(why, ReasonNoStatsNest)
	case r.Stats.TxFrames == nil && r.Stats.RxFrames == nil:
		why = append(why, ReasonNoStatsOp)
	case r.Stats.TxFrames == nil:
		why = append(why, ReasonNoTxStat)
	case r.Stats.RxFrames == nil:
		why = append(why, ReasonNoRxStat)
	}
	p.Reason = strings.Join(why, "; ")
	return p, nil
}
