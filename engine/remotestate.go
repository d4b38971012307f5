// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json/v2"
	"fmt"
)

// A RemoteState says, in one word, what state an interface's remote
// parameters are in: the one rule the screen, the overview, dcbtop check
// and the JSON consumers share.
type RemoteState uint8

// The states of RemoteState.
const (
	// RemoteNoPeer: no LLDP peer is heard and none was lost.
	RemoteNoPeer RemoteState = iota
	// RemoteValid: a single live DCBX peer's parameters are in force.
	RemoteValid
	// RemoteNoDCBX: LLDP peers are heard, but none sends DCBX TLVs.
	RemoteNoDCBX
	// RemoteMultiPeer: more than one DCBX peer; the remote parameters are
	// invalid until the hold-down ends.
	RemoteMultiPeer
	// RemoteExpired: the peer's information expired (its TTL ran out).
	RemoteExpired
	// RemoteShutdown: the peer withdrew its information (a shutdown
	// LLDPDU, TTL 0).
	RemoteShutdown
	// RemoteInvalid: invalid for another reason.
	RemoteInvalid
	// RemoteLinkDown: the link went down; the port's remote information
	// was discarded.
	RemoteLinkDown
)

var remoteStateNames = [...]string{"no-peer", "valid", "no-dcbx", "multi-peer", "expired", "shutdown", "invalid", "link-down"}

// String returns the state's name: no-peer, valid, no-dcbx, multi-peer,
// expired, shutdown, link-down or invalid.
func (s RemoteState) String() string {
	if int(s) < len(remoteStateNames) {
		return remoteStateNames[s]
	}
	return "invalid"
}

// MarshalJSON writes the state's name.
func (s RemoteState) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a state's name.
func (s *RemoteState) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	for i, n := range remoteStateNames {
		if n == name {
			*s = RemoteState(i)
			return nil
		}
	}
	if name == "invalid" {
		*s = RemoteInvalid
		return nil
	}
	return fmt.Errorf("unknown remote state %q", name)
}

// RemoteState returns the state of the interface's remote parameters
// ("Indicating Changes to the Remote NDIS QoS Parameters": valid from the
// first receipt until expiry, shutdown or a second DCBX peer).
func (in *Interface) RemoteState() RemoteState {
	switch {
	case in.MultiPeer != nil:
		return RemoteMultiPeer
	case in.RemoteValid:
		return RemoteValid
	case in.RemoteInvalidReason != nil:
		switch *in.RemoteInvalidReason {
		case ReasonTTLExpired:
			return RemoteExpired
		case ReasonShutdown:
			return RemoteShutdown
		case ReasonMultiPeer:
			return RemoteMultiPeer
		case ReasonLinkDown:
			return RemoteLinkDown
		}
		return RemoteInvalid
	case len(in.Peers) == 0:
		return RemoteNoPeer
	}
	return RemoteNoDCBX
}

// RemoteSettled reports whether the interface's remote side has said what
// it has to say: a DCBX peer's parameters are in force, or they were
// invalidated for a reason (a second peer, expiry, shutdown). No peer yet,
// or only peers without DCBX TLVs, is not settled: a DCBX peer may still
// come within its transmit interval (what dcbtop check waits for).
func (in *Interface) RemoteSettled() bool {
	s := in.RemoteState()
	return s != RemoteNoPeer && s != RemoteNoDCBX
}
