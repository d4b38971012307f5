// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by *ParseError and by marshalling errors; test
// for them with errors.Is.
var (
	// ErrTruncated means a TLV header or value runs past the end of the
	// LLDPDU or frame.
	ErrTruncated = errors.New("truncated")
	// ErrInvalidLength means a TLV has a length its type does not allow:
	// TTL other than 2, System Capabilities other than 4, Chassis or Port ID
	// outside 2..256, ETS other than 25, PFC other than 6, APP not 5+3N,
	// a CEE sub-TLV of the wrong size, a Management Address whose inner
	// lengths do not fit, a basic IEEE 802.1 or 802.3 TLV of another
	// length than its kind's (Port VLAN ID 6, Port And Protocol VLAN ID
	// 7, Link Aggregation 9, Congestion Notification 6, MAC/PHY 9, Power
	// via MDI 7, 12 or 29, Maximum Frame Size 6; a VLAN Name or Protocol
	// Identity whose length byte does not fill the TLV), an End TLV with
	// a value; or bytes after the TLV given to an UnmarshalBinary.
	ErrInvalidLength = errors.New("invalid length")
	// ErrMandatory means the Chassis ID, Port ID and TTL TLVs are not the
	// first three TLVs in that order, or one of them appears again later
	// (IEEE Std 802.1AB-2016, 8.2).
	ErrMandatory = errors.New("mandatory TLV missing or out of order")
	// ErrNotLLDP means an Ethernet frame does not carry EtherType 0x88cc.
	ErrNotLLDP = errors.New("not an LLDP frame")
	// ErrInvalidValue means a value cannot be encoded: a string or ID too
	// long for its TLV, a field out of its bit range.
	ErrInvalidValue = errors.New("invalid value")
)

// A ParseError describes a structural problem in an LLDPDU: which TLV, at
// which byte offset of the LLDPDU, and what was wrong with it.
//
// Err is always one of the sentinel errors itself, never an error wrapping
// one, so that callers can switch on it; Detail says the rest.
type ParseError struct {
	Offset int // byte offset of the TLV header within the LLDPDU
	// Type is the TLV type found at Offset. When the LLDPDU ends before a
	// mandatory TLV it is the type expected there; when only one byte of
	// a header is left it is the type that byte announces.
	Type   TLVType
	OUI    OUI    // for organizationally specific TLVs, when known
	Sub    uint8  // organizationally specific subtype, when OUI is set
	Detail string // what exactly was wrong
	Err    error  // one of the sentinel errors
}

// Error returns, for example,
// "lldp: TLV Org 00-80-c2/9 at offset 42: invalid length: 24, want 25".
func (e *ParseError) Error() string {
	name := e.Type.String()
	if e.Type == TLVTypeOrg && e.OUI != (OUI{}) {
		name = fmt.Sprintf("Org %s/%d", e.OUI, e.Sub)
	}
	s := fmt.Sprintf("lldp: TLV %s at offset %d: %v", name, e.Offset, e.Err)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// A fieldError is a sentinel error plus what exactly was wrong. The TLV
// decoders return it so that Parse can split it into ParseError.Err and
// ParseError.Detail.
type fieldError struct {
	err    error
	detail string
}

func errorf(sentinel error, format string, a ...any) error {
	return &fieldError{err: sentinel, detail: fmt.Sprintf(format, a...)}
}

func (e *fieldError) Error() string { return e.err.Error() + ": " + e.detail }

func (e *fieldError) Unwrap() error { return e.err }

// split returns the detail and the sentinel of err.
func split(err error) (detail string, sentinel error) {
	if fe, ok := err.(*fieldError); ok {
		return fe.detail, fe.err
	}
	return "", err
}
