package lldp

// A DiscardedTLV is an optional TLV dropped for an error in its
// information string while the rest of its LLDPDU was used (IEEE Std
// 802.1AB-2016, 9.2.7.7.2: an error in an optional TLV discards that TLV
// and increments statsTLVsDiscardedTotal).
type DiscardedTLV struct {
	Offset int     // byte offset of the TLV header in the LLDPDU
	Type   TLVType // the TLV's type
	OUI    OUI     // organizationally specific TLVs, when known
	Sub    uint8   // organizationally specific subtype, when OUI is set
	Err    *ParseError
}

// CodeTLVDiscarded is the diagnostic of a DiscardedTLV.
const CodeTLVDiscarded Code = "tlv-discarded"
