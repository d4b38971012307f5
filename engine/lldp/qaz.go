// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// IEEE 802.1Qaz TLV subtypes under OUI 00-80-C2
// (IEEE Std 802.1Q-2018, Table D-1).
const (
	SubtypeETSConfig          uint8 = 9
	SubtypeETSReco            uint8 = 10
	SubtypePFC                uint8 = 11
	SubtypeAppPriority        uint8 = 12
	etsLen                          = 25 // OUI, subtype and 21 bytes
	pfcLen                          = 6
	appHeaderLen                    = 5
	appEntryLen                     = 3
	numPrios                        = 8
	maxTCs                          = 8
	tsaStrict, tsaCBS, tsaETS       = 0, 1, 2
	tsaVendor                       = 255
)

// MaxAppEntries is the most entries one Application Priority TLV holds:
// its information string (OUI, subtype, reserved byte and 3 bytes per
// entry) is limited to the 511 bytes of the TLV length field (IEEE Std
// 802.1AB-2016, 8.4.1; IEEE Std 802.1Q-2018, D.2.12).
const MaxAppEntries = (maxValueLen - appHeaderLen) / appEntryLen

// A TSA is a Transmission Selection Algorithm
// (IEEE Std 802.1Q-2018, Table 8-6; D.2.9.8).
type TSA uint8

// Transmission Selection Algorithms. 3 to 254 are reserved.
const (
	TSAStrict TSA = tsaStrict // strict priority
	TSACBS    TSA = tsaCBS    // credit-based shaper
	TSAETS    TSA = tsaETS    // enhanced transmission selection
	TSAVendor TSA = tsaVendor // vendor specific
)

// String returns "strict", "cbs", "ets", "vendor" or "unknown-N".
func (t TSA) String() string {
	switch t {
	case TSAStrict:
		return "strict"
	case TSACBS:
		return "cbs"
	case TSAETS:
		return "ets"
	case TSAVendor:
		return "vendor"
	}
	return "unknown-" + strconv.Itoa(int(t))
}

// MarshalText returns String.
func (t TSA) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText accepts what String returns.
func (t *TSA) UnmarshalText(b []byte) error {
	s := string(b)
	switch s {
	case "strict":
		*t = TSAStrict
	case "cbs":
		*t = TSACBS
	case "ets":
		*t = TSAETS
	case "vendor":
		*t = TSAVendor
	default:
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "unknown-"), 10, 8)
		if err != nil || !strings.HasPrefix(s, "unknown-") {
			return fmt.Errorf("unknown TSA %q (want strict, cbs, ets, vendor or unknown-N)", s)
		}
		*t = TSA(n)
	}
	return nil
}

// An ETS is an IEEE 802.1Qaz ETS Configuration or ETS Recommendation TLV
// (OUI 00-80-C2, subtypes 9 and 10; IEEE Std 802.1Q-2018, D.2.9 and D.2.10).
//
//	byte 4:      bit 7 Willing, bit 6 CBS, bits 2-0 Max TCs (0 means 8);
//	             reserved in the Recommendation TLV
//	bytes 5-8:   priority assignment table, 4 bits per priority, priority 0
//	             in the high nibble of byte 5
//	bytes 9-16:  TC bandwidth table, percent per traffic class
//	bytes 17-24: TSA assignment table, one byte per traffic class
type ETS struct {
	Recommendation bool     // subtype 10 instead of 9
	Willing        bool     // configuration TLV only
	CBS            bool     // configuration TLV only
	MaxTCs         uint8    // configuration TLV only; 1..8 (wire value 0 means 8)
	PrioTC         [8]uint8 // priority to traffic class, each 0..15 on the wire
	Bandwidth      [8]uint8 // percent per traffic class
	TSA            [8]TSA   // per traffic class
}

// Type returns TLVTypeOrg.
func (*ETS) Type() TLVType { return TLVTypeOrg }

// Subtype returns 9 (configuration) or 10 (recommendation).
func (e *ETS) Subtype() uint8 {
	if e.Recommendation {
		return SubtypeETSReco
	}
	return SubtypeETSConfig
}

func (e *ETS) appendValue(b []byte) ([]byte, error) {
	b = append(b, OUIIEEE8021[:]...)
	b = append(b, e.Subtype())
	var flags uint8
	if !e.Recommendation {
		if e.MaxTCs > 8 {
			return b, fmt.Errorf("lldp: ETS: %w: max TCs %d > 8", ErrInvalidValue, e.MaxTCs)
		}
		flags = e.MaxTCs & 7 // 8 encodes as 0
		if e.Willing {
			flags |= 0x80
		}
		if e.CBS {
			flags |= 0x40
		}
	}
	b = append(b, flags)
	var pt uint32
	for p, tc := range e.PrioTC {
		if tc > 15 {
			return b, fmt.Errorf("lldp: ETS: %w: priority %d maps to TC %d > 15", ErrInvalidValue, p, tc)
		}
		pt |= uint32(tc) << (4 * (7 - p))
	}
	b = binary.BigEndian.AppendUint32(b, pt)
	b = append(b, e.Bandwidth[:]...)
	for _, t := range e.TSA {
		b = append(b, uint8(t))
	}
	return b, nil
}

// unmarshal decodes the information string v (OUI and subtype included).
func (e *ETS) unmarshal(v []byte) error {
	if len(v) != etsLen {
		return errorf(ErrInvalidLength, "%d, want %d", len(v), etsLen)
	}
	*e = ETS{Recommendation: v[3] == SubtypeETSReco}
	if !e.Recommendation {
		e.Willing = v[4]&0x80 != 0
		e.CBS = v[4]&0x40 != 0
		e.MaxTCs = v[4] & 7
		if e.MaxTCs == 0 {
			e.MaxTCs = 8
		}
	}
	pt := binary.BigEndian.Uint32(v[5:9])
	for p := range e.PrioTC {
		e.PrioTC[p] = uint8(pt>>(4*(7-p))) & 0xf
	}
	copy(e.Bandwidth[:], v[9:17])
	for i := range e.TSA {
		e.TSA[i] = TSA(v[17+i])
	}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (e *ETS) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, e) }

// MarshalBinary returns the TLV, header included.
func (e *ETS) MarshalBinary() ([]byte, error) { return AppendTLV(nil, e) }

// UnmarshalBinary decodes b, which must hold exactly one TLV, header
// included. Errors are *ParseError with Offset 0.
func (e *ETS) UnmarshalBinary(b []byte) error {
	return unmarshalOrg(b, func(v []byte) error {
		if v[3] != SubtypeETSConfig && v[3] != SubtypeETSReco {
			return errorf(ErrInvalidValue, "subtype %d is not ETS", v[3])
		}
		return e.unmarshal(v)
	})
}

// A PFC is the IEEE 802.1Qaz PFC Configuration TLV (OUI 00-80-C2, subtype
// 11; IEEE Std 802.1Q-2018, D.2.11).
//
//	byte 4: bit 7 Willing, bit 6 MBC, bits 3-0 PFC capability
//	byte 5: PFC enable, bit n = priority n
type PFC struct {
	Willing bool
	MBC     bool  // MACsec bypass capability
	Cap     uint8 // number of traffic classes that can have PFC enabled at once, 0..15 on the wire
	Enabled uint8 // bit n set: PFC enabled on priority n
}

// Type returns TLVTypeOrg.
func (*PFC) Type() TLVType { return TLVTypeOrg }

// Subtype returns 11.
func (*PFC) Subtype() uint8 { return SubtypePFC }

// Priorities lists the priorities with PFC enabled, ascending.
func (p *PFC) Priorities() []uint8 { return priorities(p.Enabled) }

func (p *PFC) appendValue(b []byte) ([]byte, error) {
	if p.Cap > 15 {
		return b, fmt.Errorf("lldp: PFC: %w: capability %d > 15", ErrInvalidValue, p.Cap)
	}
	b = append(b, OUIIEEE8021[:]...)
	flags := p.Cap
	if p.Willing {
		flags |= 0x80
	}
	if p.MBC {
		flags |= 0x40
	}
	return append(b, SubtypePFC, flags, p.Enabled), nil
}

func (p *PFC) unmarshal(v []byte) error {
	if len(v) != pfcLen {
		return errorf(ErrInvalidLength, "%d, want %d", len(v), pfcLen)
	}
	*p = PFC{Willing: v[4]&0x80 != 0, MBC: v[4]&0x40 != 0, Cap: v[4] & 0xf, Enabled: v[5]}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (p *PFC) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, p) }

// MarshalBinary returns the TLV, header included.
func (p *PFC) MarshalBinary() ([]byte, error) { return AppendTLV(nil, p) }

// UnmarshalBinary decodes b, which must hold exactly one TLV, header
// included. Errors are *ParseError with Offset 0.
func (p *PFC) UnmarshalBinary(b []byte) error {
	return unmarshalOrg(b, func(v []byte) error {
		if v[3] != SubtypePFC {
			return errorf(ErrInvalidValue, "subtype %d is not PFC", v[3])
		}
		return p.unmarshal(v)
	})
}

// An AppSelector says what the protocol field of an application priority
// entry holds (IEEE Std 802.1Q-2018, Table D-9).
type AppSelector uint8

// Application priority selectors. 0, 6 and 7 are reserved.
const (
	AppSelEthertype AppSelector = 1 // EtherType; protocol 0 means the default priority
	AppSelTCP       AppSelector = 2 // well-known port over TCP or SCTP
	AppSelUDP       AppSelector = 3 // well-known port over UDP or DCCP
	AppSelPort      AppSelector = 4 // port over TCP, SCTP, UDP or DCCP
	AppSelDSCP      AppSelector = 5 // DSCP value, 0..63 (802.1Qcd)
)

var selNames = [...]string{"reserved-0", "ethertype", "tcp-port", "udp-port", "port", "dscp"}

// String returns "ethertype", "tcp-port", "udp-port", "port", "dscp" or
// "reserved-N".
func (s AppSelector) String() string {
	if int(s) < len(selNames) {
		return selNames[s]
	}
	return "reserved-" + strconv.Itoa(int(s))
}

// MarshalText returns String.
func (s AppSelector) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts what String returns.
func (s *AppSelector) UnmarshalText(b []byte) error {
	for i, n := range selNames {
		if i > 0 && n == string(b) {
			*s = AppSelector(i)
			return nil
		}
	}
	if v, ok := strings.CutPrefix(string(b), "reserved-"); ok {
		if n, err := strconv.ParseUint(v, 10, 8); err == nil {
			*s = AppSelector(n)
			return nil
		}
	}
	return fmt.Errorf("unknown APP selector %q (want ethertype, tcp-port, udp-port, port or dscp)", b)
}

// An AppEntry maps a protocol to a priority.
//
//	byte 0:    bits 7-5 priority, bits 2-0 selector
//	bytes 1-2: protocol ID
type AppEntry struct {
	Priority uint8 // 0..7
	Selector AppSelector
	Protocol uint16
}

// An AppPriority is the IEEE 802.1Qaz Application Priority TLV (OUI
// 00-80-C2, subtype 12; IEEE Std 802.1Q-2018, D.2.12): a reserved byte and
// 3-byte entries.
type AppPriority struct {
	Entries []AppEntry
}

// Type returns TLVTypeOrg.
func (*AppPriority) Type() TLVType { return TLVTypeOrg }

// Subtype returns 12.
func (*AppPriority) Subtype() uint8 { return SubtypeAppPriority }

func (a *AppPriority) appendValue(b []byte) ([]byte, error) {
	b = append(b, OUIIEEE8021[:]...)
	b = append(b, SubtypeAppPriority, 0)
	for _, e := range a.Entries {
		if e.Priority > 7 || e.Selector > 7 {
			return b, fmt.Errorf("lldp: APP: %w: priority %d or selector %d out of range", ErrInvalidValue, e.Priority, e.Selector)
		}
		b = append(b, e.Priority<<5|uint8(e.Selector))
		b = binary.BigEndian.AppendUint16(b, e.Protocol)
	}
	return b, nil
}

func (a *AppPriority) unmarshal(v []byte) error {
	if len(v) < appHeaderLen || (len(v)-appHeaderLen)%appEntryLen != 0 {
		return errorf(ErrInvalidLength, "%d, want 5+3N", len(v))
	}
	n := (len(v) - appHeaderLen) / appEntryLen
	a.Entries = nil
	if n > 0 {
		a.Entries = make([]AppEntry, n)
	}
	for i := range a.Entries {
		e := v[appHeaderLen+appEntryLen*i:]
		a.Entries[i] = AppEntry{Priority: e[0] >> 5, Selector: AppSelector(e[0] & 7), Protocol: binary.BigEndian.Uint16(e[1:3])}
	}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (a *AppPriority) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, a) }

// MarshalBinary returns the TLV, header included.
func (a *AppPriority) MarshalBinary() ([]byte, error) { return AppendTLV(nil, a) }

// UnmarshalBinary decodes b, which must hold exactly one TLV, header
// included. Errors are *ParseError with Offset 0.
func (a *AppPriority) UnmarshalBinary(b []byte) error {
	return unmarshalOrg(b, func(v []byte) error {
		if v[3] != SubtypeAppPriority {
			return errorf(ErrInvalidValue, "subtype %d is not APP", v[3])
		}
		return a.unmarshal(v)
	})
}

// unmarshalOrg checks that b is exactly one organizationally specific TLV
// of the 802.1 OUI and hands its information string to fn. Errors are
// *ParseError with offset 0.
func unmarshalOrg(b []byte, fn func(v []byte) error) error {
	if len(b) < 2 {
		return &ParseError{Err: ErrTruncated, Detail: "TLV header cut off"}
	}
	h := binary.BigEndian.Uint16(b)
	typ, n := TLVType(h>>9), int(h&0x1ff)
	var err error
	switch {
	case typ != TLVTypeOrg || n < 4:
		err = errorf(ErrInvalidValue, "length %d, not an organizationally specific TLV", n)
	case len(b)-2 < n:
		err = errorf(ErrTruncated, "length %d but %d bytes left", n, len(b)-2)
	case len(b)-2 > n:
		err = errorf(ErrInvalidLength, "%d bytes after the TLV", len(b)-2-n)
	case OUI(b[2:5]) != OUIIEEE8021:
		err = errorf(ErrInvalidValue, "OUI %s is not IEEE 802.1", OUI(b[2:5]))
	default:
		if err = fn(b[2 : 2+n]); err == nil {
			return nil
		}
	}
	detail, sentinel := split(err)
	return newParseError(b, 0, sentinel, "%s", detail)
}
