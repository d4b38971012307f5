// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json/v2"
	"fmt"
	"strconv"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
)

// A Status is the kind of an Indication, named after the NDIS status codes
// whose semantics dcbtop implements.
type Status uint8

// Indication statuses.
const (
	// StatusRemote is NDIS_STATUS_QOS_REMOTE_PARAMETERS_CHANGE: the peer's
	// parameters were received for the first time, changed, or were
	// invalidated ("Indicating Changes to the Remote NDIS QoS Parameters").
	StatusRemote Status = iota + 1
	// StatusOperational is NDIS_STATUS_QOS_OPERATIONAL_PARAMETERS_CHANGE:
	// the parameters in force changed.
	StatusOperational
	// StatusLocal reports a change of the local parameters or of the local
	// DCBX Willing state.
	StatusLocal
	// StatusNeighbor is not an NDIS indication but dcbtop's own record of
	// an LLDP neighbour event (Config.NeighborEvents): a peer appeared
	// (ReasonPeerNew), left (ReasonTTLExpired, ReasonShutdown,
	// ReasonLinkDown), was evicted (ReasonEvicted), or a multi-peer
	// hold-down started (ReasonMultiPeer) or ended (ReasonHoldDownEnd).
	// Its flags are empty and its parameters null.
	StatusNeighbor
)

var statusNames = [...]string{
	StatusRemote:      "QOS_REMOTE_PARAMETERS_CHANGE",
	StatusOperational: "QOS_OPERATIONAL_PARAMETERS_CHANGE",
	StatusLocal:       "QOS_LOCAL_PARAMETERS_CHANGE",
	StatusNeighbor:    "LLDP_NEIGHBOR_CHANGE",
}

// String returns the status name, e.g. "QOS_REMOTE_PARAMETERS_CHANGE".
func (s Status) String() string {
	if int(s) < len(statusNames) && statusNames[s] != "" {
		return statusNames[s]
	}
	return fmt.Sprintf("status-%d", uint8(s))
}

// MarshalText returns String.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// A Reason says why an Indication was issued.
type Reason string

// Reasons.
const (
	ReasonFirstReceipt Reason = "first-receipt" // first DCBX LLDPDU, or first after an invalidation
	ReasonChanged      Reason = "changed"       // a later LLDPDU changed the remote parameters
	ReasonTTLExpired   Reason = "ttl-expired"   // the peer's information aged out
	ReasonShutdown     Reason = "shutdown"      // the peer sent a shutdown LLDPDU (TTL 0)
	ReasonMultiPeer    Reason = "multi-peer"    // a second DCBX peer appeared
	ReasonLinkDown     Reason = "link-down"     // the port stopped being operational
	ReasonPeerNew      Reason = "peer-new"      // neighbour event: an MSAP's first LLDPDU
	ReasonEvicted      Reason = "evicted"       // neighbour event: dropped for a new one, the table full
	ReasonHoldDownEnd  Reason = "hold-down-end" // neighbour event: the multi-peer hold-down is over
	ReasonLocalChange  Reason = "local-change"  // local parameters or Willing changed
	// ReasonCEEHandshake: the CEE control handshake of dcbtop's agent
	// moved (the peer acknowledged the agent's sequence number, or a new
	// one awaits acknowledgement), so a CEE peer's configuration is
	// adopted or waits (CEE DCBX 1.01, Control sub-TLV).
	ReasonCEEHandshake Reason = "cee-handshake"
)

// Flags are the NDIS_QOS_PARAMETERS_*_CONFIGURED and *_CHANGED flags of an
// Indication. The values are those of ntddndis.h.
type Flags uint32

// Flag values (ntddndis.h).
const (
	FlagETSChanged               Flags = 0x00000001
	FlagETSConfigured            Flags = 0x00000002
	FlagPFCChanged               Flags = 0x00000100
	FlagPFCConfigured            Flags = 0x00000200
	FlagClassificationChanged    Flags = 0x00010000
	FlagClassificationConfigured Flags = 0x00020000
	FlagWilling                  Flags = 0x80000000
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{FlagETSConfigured, "ETS_CONFIGURED"}, {FlagETSChanged, "ETS_CHANGED"},
	{FlagPFCConfigured, "PFC_CONFIGURED"}, {FlagPFCChanged, "PFC_CHANGED"},
	{FlagClassificationConfigured, "CLASSIFICATION_CONFIGURED"}, {FlagClassificationChanged, "CLASSIFICATION_CHANGED"},
	{FlagWilling, "WILLING"},
}

// Names returns the names of the set flags in a fixed order.
func (f Flags) Names() []string {
	out := []string{}
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// StringLen is len(f.String()), without building it.
func (f Flags) StringLen() int {
	n := 0
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			n += len(fn.name) + 1
		}
	}
	return max(n-1, 0)
}

// String joins Names with "|".
func (f Flags) String() string {
	s := ""
	for i, n := range f.Names() {
		if i > 0 {
			s += "|"
		}
		s += n
	}
	return s
}

// MarshalJSON encodes the flags as a list of names (plain ASCII, so
// written directly: no reflection per indication).
func (f Flags) MarshalJSON() ([]byte, error) { return f.appendJSON(make([]byte, 0, 128)), nil }

// UnmarshalJSON decodes a list of names.
func (f *Flags) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	*f = 0
next:
	for _, s := range names {
		for _, n := range flagNames {
			if n.name == s {
				*f |= n.f
				continue next
			}
		}
		return fmt.Errorf("unknown flag %q", s)
	}
	return nil
}

// groupFlags are each group's *_CONFIGURED and *_CHANGED flags.
var groupFlags = [...]struct {
	g                   dcb.Group
	configured, changed Flags
}{
	{dcb.GroupETS, FlagETSConfigured, FlagETSChanged},
	{dcb.GroupPFC, FlagPFCConfigured, FlagPFCChanged},
	{dcb.GroupApp, FlagClassificationConfigured, FlagClassificationChanged},
}

// configured returns the *_CONFIGURED flags of groups g.
func configured(g dcb.Group) Flags {
	var f Flags
	for _, x := range groupFlags {
		if g&x.g != 0 {
			f |= x.configured
		}
	}
	return f
}

// changed returns the *_CHANGED flags of groups g.
func changed(g dcb.Group) Flags {
	var f Flags
	for _, x := range groupFlags {
		if g&x.g != 0 {
			f |= x.changed
		}
	}
	return f
}

// An Indication is one entry of the change log: the INDICATION object of
// the snapshot contract. Params is nil for an invalidation (the zeroed
// NDIS_QOS_PARAMETERS of the seed rules).
type Indication struct {
	Time      time.Time   `json:"time"`
	Interface string      `json:"interface"`
	Status    Status      `json:"status"`
	Reason    Reason      `json:"reason"`
	Flags     Flags       `json:"flags"`
	Params    *dcb.Params `json:"params"`
	// Peer names the MSAP the indication came from, when there is one;
	// PeerName is that peer's system name, when it sends one.
	Peer     string `json:"peer,omitempty"`
	PeerName string `json:"peer_name,omitempty"`
	// Host names the host the event happened on and ID identifies the
	// event, in --events' lines only (for log pipelines: Loki, Vector,
	// an OpenTelemetry collector); both are empty in the snapshot's log.
	// Stamp sets them.
	Host string  `json:"host,omitempty"`
	ID   EventID `json:"id,omitempty"`
}

// An EventID identifies one event: a hash of what the event is
// (interface, time to the nanosecond, status, reason, flags, peer), so
// the same event always has the same ID: a log pipeline that reads a
// line twice can drop the copy, a replay gives the same IDs every time,
// and the replay of a -w recording gives the live run's. Two events of
// one host differ in ID; across hosts, the host name goes with it. It is
// written as 16 hexadecimal digits; 0 means none.
type EventID uint64

// MarshalText writes the ID as 16 lower-case hexadecimal digits.
func (id EventID) MarshalText() ([]byte, error) { return id.appendText(make([]byte, 0, 16)), nil }

// UnmarshalText reads the 16 hexadecimal digits MarshalText writes.
func (id *EventID) UnmarshalText(b []byte) error {
	if len(b) != 16 {
		return fmt.Errorf("event id %q: want 16 hexadecimal digits", b)
	}
	v, err := strconv.ParseUint(string(b), 16, 64)
	if err != nil {
		return fmt.Errorf("event id %q: want 16 hexadecimal digits", b)
	}
	*id = EventID(v)
	return nil
}

// appendText appends the ID's 16 hexadecimal digits.
func (id EventID) appendText(b []byte) []byte {
	const hex = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hex[(id>>uint(shift))&0xf])
	}
	return b
}

// Stamp sets the indication's Host to host and its ID to the hash of the
// event (EventID): FNV-1a, 64 bits (a stable, non-cryptographic hash: the
// ID names an event, it does not protect anything), over the fields, a
// zero byte after each string. It allocates nothing.
func (in *Indication) Stamp(host string) {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	str := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime64
		}
		h *= prime64 // the separator, a zero byte
	}
	num := func(v uint64) {
		for range 8 {
			h = (h ^ (v & 0xff)) * prime64
			v >>= 8
		}
	}
	str(in.Interface)
	num(uint64(in.Time.UnixNano()))
	num(uint64(in.Status))
	str(string(in.Reason))
	num(uint64(in.Flags))
	str(in.Peer)
	in.Host = host
	in.ID = EventID(h)
	if in.ID == 0 {
		in.ID = 1 // 0 means none
	}
}

// UnmarshalText accepts what String returns.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n != "" && n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}
