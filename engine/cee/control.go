// SPDX-License-Identifier: Apache-2.0

package cee

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Feature names a CEE feature whose changes the control state machine
// tracks: the Priority Groups (type 2), PFC (type 3) and Application
// (type 4) sub-TLVs of CEE DCBX 1.01 (DCBX Base Specification 1.01, the Control and feature sub-TLVs).
type Feature uint8

// CEE features.
const (
	FeaturePG  Feature = iota // Priority Groups sub-TLV
	FeaturePFC                // PFC sub-TLV
	FeatureApp                // Application sub-TLV

	numFeatures = 3
)

// String returns "PG", "PFC", "App", or "feature N" for a value that is
// none of the constants.
func (f Feature) String() string {
	switch f {
	case FeaturePG:
		return "PG"
	case FeaturePFC:
		return "PFC"
	case FeatureApp:
		return "App"
	}
	return fmt.Sprintf("feature %d", uint8(f))
}

// MaxVersion is the Max_Version this host sends in the Control sub-TLV:
// lldpad's DCB_MAX_VERSION, 0 (DCBX Base Specification 1.01, the Control and feature sub-TLVs).
const MaxVersion uint8 = 0

// featState is where a feature's last local change is in the handshake.
type featState uint8

const (
	// featIdle: never changed since New (nothing advertised), or
	// Expired found it so. Counts as synced, as lldpad's
	// update_feature_syncd marks features that are not advertised.
	featIdle featState = iota
	// featPending: changed, and the change has not gone out under a
	// SeqNo of its own yet because an earlier SeqNo is unacknowledged.
	featPending
	// featSent: the change went out with SeqNo seq; waiting for the
	// peer's AckNo to reach it (lldpad: Syncd false, FeatureSeqNo).
	featSent
	// featSynced: the peer acknowledged seq (lldpad: Syncd true).
	featSynced
)

type feature struct {
	state featState
	seq   uint32 // the SeqNo the change went out with (featSent, featSynced)
}

// A Control is one port's CEE DCBX control state machine (DCBX 1.01
// control state machine; lldpad dcb_protocol.c run_control_protocol). Its
// state is lldpad's control_protocol_attribs: SeqNo (ours), AckNo (the
// peer SeqNo we acknowledge) and MyAckNo (the peer's AckNo: how far the
// peer has acknowledged us), plus the per-feature FeatureSeqNo and Syncd.
//
// The zero value is not ready for use; call New.
type Control struct {
	seq   uint32 // SeqNo
	ack   uint32 // AckNo
	myAck uint32 // MyAckNo
	max   uint8  // our Max_Version
	oper  uint8  // our Oper_Version

	feat [numFeatures]feature

	havePeer  bool            // a Control sub-TLV was received since New or Expired
	peer      lldp.CEEControl // the last one
	noControl bool            // the peer's last CEE TLV had no Control sub-TLV
}

// New returns a Control in lldpad's initial state (docs/dcbx.md, "The CEE control
// handshake", rule 1; DCB_START_SEQ_NUMBER): SeqNo, AckNo and MyAckNo 0, Oper_Version
// = Max_Version = MaxVersion, and every feature synced because nothing is
// advertised yet. Call LocalChange for the features the host advertises
// before sending the first CEE LLDPDU.
func New() *Control { return newControl(MaxVersion) }

// newControl returns a Control with Max_Version max; New uses MaxVersion.
// Tests use other values to exercise the version rules.
func newControl(max uint8) *Control { return &Control{max: max, oper: max} }

// nextSeq returns the SeqNo after s. The spec's numbers are 32 bits and
// wrap; after 0xffffffff comes 1, never 0. 0 is DCB_START_SEQ_NUMBER, the
// value before anything was announced, and a peer AckNo of 0 is how the
// handshake says "nothing acknowledged" (lldpad reads MyAckNo == 0 as "the
// peer has started over"). Were SeqNo 0 sent after a wrap, the peer's
// acknowledgement of it would look like a peer restart. lldpad itself
// increments a u32 and so would send 0 there; skipping it costs nothing,
// since a peer only compares our SeqNo with its AckNo for equality.
func nextSeq(s uint32) uint32 {
	s++
	if s == 0 {
		s = 1
	}
	return s
}

// acked reports whether a peer AckNo a acknowledges the SeqNo s a feature
// went out with: a lies in [s, c.seq] in serial-number order, so an AckNo
// that passed s also counts across a 32-bit wrap, while an AckNo we never
// sent (stale from an earlier session, or garbage) does not. lldpad tests
// peer AckNo == FeatureSeqNo; the two agree whenever the peer acknowledges
// only SeqNos we sent. An AckNo of 0 acknowledges nothing.
func (c *Control) acked(a, s uint32) bool {
	return a != 0 && a-s <= c.seq-s
}

// announce takes a new SeqNo for the pending local changes when the peer
// has acknowledged everything sent so far (docs/dcbx.md, "The CEE control handshake", rules 2
// and 3: "if SeqNo == MyAckNo and features are unsynced, increment SeqNo
// and send"; lldpad run_control_protocol). It reports whether it did.
func (c *Control) announce() bool {
	if c.seq != c.myAck {
		return false
	}
	pending := false
	for i := range c.feat {
		pending = pending || c.feat[i].state == featPending
	}
	if !pending {
		return false
	}
	c.seq = nextSeq(c.seq)
	for i := range c.feat {
		if c.feat[i].state == featPending {
			c.feat[i] = feature{state: featSent, seq: c.seq}
		}
	}
	return true
}

// LocalChange records that what this host advertises for the features fs
// changed; the caller compares its own old and new advertisement. Values
// of fs that are not Feature constants are ignored.
//
// A change takes SeqNo+1 at once if the peer has acknowledged our current
// SeqNo (SeqNo == MyAckNo), and LocalChange returns true: send an LLDPDU
// now. Otherwise no second change is announced while one is
// unacknowledged, and LocalChange returns false: the change waits, and
// Received announces it under the next SeqNo, together with any other
// change made meanwhile, once the peer acknowledges the outstanding one
// (docs/dcbx.md, "The CEE control handshake", rules 2 and 4; lldpad run_control_protocol and
// run_feature_protocol).
//
// Unlike lldpad, a feature changed again while its previous change is
// unacknowledged waits for a new SeqNo too: lldpad keeps its old
// FeatureSeqNo, so it would count the feature as synced on an
// acknowledgement the peer may have given before it saw the second
// change.
func (c *Control) LocalChange(fs ...Feature) (send bool) {
	for _, f := range fs {
		if f < numFeatures {
			c.feat[f].state = featPending
		}
	}
	return c.announce()
}

// Received processes the Control sub-TLV of a peer's CEE LLDPDU and
// reports whether an LLDPDU should be sent now: an acknowledgement to
// give, a version change, or a pending local change that took a new SeqNo.
// It implements the remote-change half of lldpad's run_control_protocol
// and the feature sync check of run_feature_protocol (docs/dcbx.md,
// "The CEE control handshake", rule 3):
//
//   - Oper_Version = min(peer Max_Version, ours); a change is sent. While
//     the peer's Oper_Version differs from ours, nothing else is taken
//     from its Control sub-TLV ("wait for the peer to synch") and no
//     feature is Synced. (lldpad also ignores the peer's numbers in the
//     LLDPDU that changed our Oper_Version; Received takes them when the
//     peer's Oper_Version already equals the new one, since a repeat of
//     that LLDPDU would be dropped as identical and never acknowledged.
//     With Max_Version 0 ours never changes.)
//   - MyAckNo = peer AckNo. A feature whose SeqNo the peer's AckNo reached
//     (or passed, see acked) is synced.
//   - If the peer's SeqNo differs from AckNo, or the peer's AckNo is 0,
//     AckNo = peer SeqNo and an acknowledgement is sent.
//   - If the peer has acknowledged our SeqNo and a local change is
//     pending, SeqNo+1 is taken and sent.
//
// A peer AckNo of 0 after it had acknowledged something means the peer
// started over: besides being acknowledged again, the features it had
// acknowledged are announced again, at our current SeqNo, and are not
// Synced until the peer acknowledges that SeqNo. lldpad keeps them synced;
// but the restarted peer has not seen our configuration yet.
//
// peer == nil means the peer's CEE TLV had no Control sub-TLV, which
// lldpad treats as an error: nothing is acknowledged, the numbers do not
// change (Waiting mentions the missing sub-TLV), and Received returns
// false.
//
// A Control equal to the last one received changes nothing either, and
// Received returns false without allocating: lldpad's rxReceiveFrame
// drops an LLDPDU identical to the last one before the DCBX machines run.
// So unlike lldpad, an unchanged peer AckNo of 0 is answered once, not on
// every LLDPDU that differs elsewhere; the periodic LLDPDUs carry AckNo
// anyway.
func (c *Control) Received(peer *lldp.CEEControl) (send bool) {
	if peer == nil {
		c.noControl = true
		return false
	}
	c.noControl = false
	if c.havePeer && *peer == c.peer {
		return false
	}
	c.havePeer, c.peer = true, *peer

	if oper := min(peer.MaxVersion, c.max); oper != c.oper {
		c.oper = oper
		send = true
	}
	if peer.OperVersion != c.oper {
		return c.announce() || send
	}

	restarted := peer.AckNo == 0 && c.myAck != 0
	c.myAck = peer.AckNo
	for i := range c.feat {
		f := &c.feat[i]
		switch {
		case restarted && f.state == featSynced:
			*f = feature{state: featSent, seq: c.seq}
		case f.state == featSent && c.acked(peer.AckNo, f.seq):
			f.state = featSynced
		}
	}
	if c.ack != peer.SeqNo || peer.AckNo == 0 {
		c.ack = peer.SeqNo
		send = true
	}
	return c.announce() || send
}

// Expired resets the machine when the peer's information expired
// (rxInfoAge) or the peer changed (a new MSAP): SeqNo, AckNo and MyAckNo
// to 0 and Oper_Version to Max_Version (docs/dcbx.md, "The CEE control handshake", rule 5;
// lldpad run_control_protocol on DCB_PEER_EXPIRED). Every feature that
// was advertised must be acknowledged again, from SeqNo 1 (lldpad sets
// Syncd false and FeatureSeqNo 1): Sent carries SeqNo 1 from now on, as
// in the first LLDPDU after New. Nothing needs sending at once: there is
// no peer to tell.
func (c *Control) Expired() {
	c.seq, c.ack, c.myAck, c.oper = 0, 0, 0, c.max
	c.havePeer, c.peer, c.noControl = false, lldp.CEEControl{}, false
	for i := range c.feat {
		if c.feat[i].state != featIdle {
			c.feat[i] = feature{state: featPending}
		}
	}
	c.announce()
}

// Sent returns the Control sub-TLV to put in the next CEE LLDPDU (lldpad
// tlv_dcbx.c bld_dcbx_ctrl_tlv).
func (c *Control) Sent() lldp.CEEControl {
	return lldp.CEEControl{OperVersion: c.oper, MaxVersion: c.max, SeqNo: c.seq, AckNo: c.ack}
}

// versionWait reports whether the peer's Oper_Version differs from ours,
// so that the handshake waits for the peer to synch its version.
func (c *Control) versionWait() bool {
	return c.havePeer && c.peer.OperVersion != c.oper
}

// Synced reports whether feature f's last local change has been
// acknowledged by the peer: its AckNo reached the SeqNo the change went
// out with (lldpad run_feature_protocol: Syncd, or peer AckNo ==
// FeatureSeqNo). A feature never changed since New counts as synced.
// While the peer's Oper_Version differs from ours no feature is synced
// (lldpad: cmd_ctrl_vers_not_compatible, operational unchanged). Synced
// is false for a value that is not a Feature constant.
//
// A willing agent adopts the peer's configuration for f only while Synced
// is true; otherwise the operational configuration stays as it was.
func (c *Control) Synced(f Feature) bool {
	if f >= numFeatures || c.versionWait() {
		return false
	}
	s := c.feat[f].state
	return s == featIdle || s == featSynced
}

// Waiting returns why feature f is not Synced, in one line for the screen,
// such as "waiting for the peer to acknowledge sequence 3 (peer
// acknowledged 2)"; it returns "" when f is Synced.
func (c *Control) Waiting(f Feature) string {
	if f >= numFeatures {
		return fmt.Sprintf("unknown CEE %v", f)
	}
	if c.Synced(f) {
		return ""
	}
	if c.versionWait() {
		return fmt.Sprintf("waiting for the peer to use Oper_Version %d (peer sends Oper_Version %d)",
			c.oper, c.peer.OperVersion)
	}
	var peer string
	switch {
	case !c.havePeer:
		peer = "no CEE peer yet"
	case c.noControl:
		peer = fmt.Sprintf("peer acknowledged %d; its last CEE TLV had no Control sub-TLV", c.myAck)
	default:
		peer = fmt.Sprintf("peer acknowledged %d", c.myAck)
	}
	if c.feat[f].state == featPending {
		return fmt.Sprintf("change waits for the peer to acknowledge sequence %d first (%s)", c.seq, peer)
	}
	return fmt.Sprintf("waiting for the peer to acknowledge sequence %d (%s)", c.feat[f].seq, peer)
}

// PeerAck returns the peer's last AckNo (lldpad's MyAckNo): how far the
// peer has acknowledged this host's sequence numbers; 0 before any.
func (c *Control) PeerAck() uint32 { return c.myAck }
