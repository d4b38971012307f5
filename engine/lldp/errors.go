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
	// shorter than 2, ETS other than 25, PFC other than 6, APP not 5+3N,
	// a CEE sub-TLV of the wrong size, an End TLV with a value.
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
type ParseError struct {
	Offset int     // byte offset of the TLV header within the LLDPDU
	Type   TLVType // TLV type found there (0 when the header itself is cut off)
	OUI    OUI     // for organizationally specific TLVs, when known
	Sub    uint8   // organizationally specific subtype, when OUI is set
	Detail string  // what exactly was wrong
	Err    error   // one of the sentinel errors
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
