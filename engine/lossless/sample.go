// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"encoding/json/v2"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
)

// An NDKCounter is one counter of NDIS_NDK_PERFORMANCE_COUNTERS, numbered
// by its bit in the MissingCounterMask of NDIS_NDK_CAPABILITIES (seed
// "NDIS_NDK_PERFORMANCE_COUNTERS": "In a bitmask of counters ... this is
// counter N"). Bits 5-24 are Reserved01-Reserved20.
type NDKCounter uint8

// The NDK counters with a meaning, by bit.
const (
	NDKConnect          NDKCounter = 0  // outbound connections established
	NDKAccept           NDKCounter = 1  // inbound connections established
	NDKConnectFailure   NDKCounter = 2  // connect attempts that failed, both ways
	NDKConnectionError  NDKCounter = 3  // established connections that ended in error
	NDKActiveConnection NDKCounter = 4  // connections now active (a gauge)
	NDKCQError          NDKCounter = 25 // completion queues that went into error
	NDKRDMAInOctets     NDKCounter = 26 // octets of incoming RDMA traffic, layer 2 included
	NDKRDMAOutOctets    NDKCounter = 27 // octets of outgoing RDMA traffic
	NDKRDMAInFrames     NDKCounter = 28 // layer-2 frames of incoming RDMA traffic
	NDKRDMAOutFrames    NDKCounter = 29 // layer-2 frames of outgoing RDMA traffic
	// NDKBits is the number of counters in the structure, reserved ones
	// included: the size of an NDK counter array.
	NDKBits = 30
)

// NDKReservedMask has the bits of Reserved01-Reserved20 (5-24), which no
// provider supplies: they are always set in a MissingCounterMask.
const NDKReservedMask uint32 = (1<<25 - 1) &^ (1<<5 - 1)

// NDKCounters lists the counters with a meaning, in bit order.
var NDKCounters = [...]NDKCounter{NDKConnect, NDKAccept, NDKConnectFailure, NDKConnectionError,
	NDKActiveConnection, NDKCQError, NDKRDMAInOctets, NDKRDMAOutOctets, NDKRDMAInFrames, NDKRDMAOutFrames}

var ndkKeys = map[NDKCounter]string{
	NDKConnect: "connect", NDKAccept: "accept", NDKConnectFailure: "connect_failure",
	NDKConnectionError: "connection_error", NDKActiveConnection: "active_connection", NDKCQError: "cq_error",
	NDKRDMAInOctets: "rdma_in_octets", NDKRDMAOutOctets: "rdma_out_octets",
	NDKRDMAInFrames: "rdma_in_frames", NDKRDMAOutFrames: "rdma_out_frames",
}

// Key is the counter's snake_case name in the snapshot JSON ("connect",
// "rdma_in_octets"); "reserved05".."reserved24" for reserved bits.
func (c NDKCounter) Key() string {
	if k, ok := ndkKeys[c]; ok {
		return k
	}
	return "reserved" + strconv.Itoa(int(c))
}

// Gauge reports whether the counter is a level, not a running count:
// ActiveConnection. A gauge has no rate.
func (c NDKCounter) Gauge() bool { return c == NDKActiveConnection }

// A CongestionCounter is an RoCE congestion-control counter (DCQCN),
// named as mlx5 names it; other drivers' equivalents map onto it.
type CongestionCounter uint8

// The congestion counters dcbtop reads.
const (
	CNPSent       CongestionCounter = iota // np_cnp_sent: CNPs this host sent as notification point
	CNPHandled                             // rp_cnp_handled: CNPs this host reacted to
	CNPIgnored                             // rp_cnp_ignored: CNPs this host received and ignored
	ECNMarked                              // np_ecn_marked_roce_packets: ECN-marked RoCE packets received
	OutOfSequence                          // out_of_sequence: packets received out of sequence (a loss)
	OutOfBuffer                            // out_of_buffer: packets dropped for want of receive WQEs
	NumCongestion                          // the number of congestion counters
)

var congestionKeys = [NumCongestion]string{"np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
	"np_ecn_marked_roce_packets", "out_of_sequence", "out_of_buffer"}

// Key is the counter's snake_case name in the snapshot JSON.
func (c CongestionCounter) Key() string {
	if c < NumCongestion {
		return congestionKeys[c]
	}
	return "congestion" + strconv.Itoa(int(c))
}

// A Reading is one counter's value as sampled and where it came from.
// The zero Reading is "no source": the counter is unknown, never 0.
type Reading struct {
	Value uint64
	// Source is the path under the sysfs root, the ethtool key or the
	// dcbnl attribute, with any arithmetic ("ports/1/counters/port_rcv_data
	// x4"); "" when nothing provides the counter.
	Source string
	// Derived marks an approximation of the counter's defined meaning
	// (NDK Connect from connection-manager RTU messages).
	Derived bool
}

// OK reports whether the counter has a source.
func (r Reading) OK() bool { return r.Source != "" }

// A PFCSource says where per-priority pause counts come from.
type PFCSource string

// The per-priority pause count sources, by preference.
const (
	// PFCSourceDCBNL is DCB netlink's ieee_pfc requests (pause frames
	// sent) and indications (received), where the driver fills them.
	PFCSourceDCBNL PFCSource = "dcbnl"
	// PFCSourceEthtool is the driver's ethtool statistics matched by name.
	PFCSourceEthtool PFCSource = "ethtool"
)

// A Sample carries one sample of an interface's lossless
// counters: RDMA (NDK and congestion), per-priority PFC pause counts and
// the host's ECN settings. Rates come from two successive samples.
type Sample struct {
	Interface string
	At        time.Time
	// Interval is the sampling interval in force.
	Interval time.Duration
	// RDMA has one entry per RDMA device port bound to the interface;
	// empty when it has none.
	RDMA []RDMAPortSample
	// PFC is nil when nothing provides per-priority pause counts.
	PFC *PFCSample
	// ECN is nil when the host's ECN (DCQCN) settings are unknown.
	ECN *ECNSample
	// RoCE has the RoCE identity (GID table, rdma_cm defaults) of each
	// RDMA port bound to the interface; empty when it has none.
	RoCE []RoCEPortSample
	// LinkPause is the interface's 802.3x link-wide PAUSE; nil when
	// nothing reports it.
	LinkPause *LinkPauseSample
	// QoS is how the NIC classifies and buffers received traffic (DCB
	// netlink); nil when nothing reports it.
	QoS *PortQoSSample
	// Driver is the netdev's driver (ethtool -i), "" when unknown: some
	// rules depend on what a driver does with the DCB settings.
	Driver string
	// Errors are the failures to read a source that exists, one per
	// counter source that failed (capture/counters' Source names), in
	// the order the sources were read; none when fine.
	Errors []SourceError
}

// A SourceError is a counter source's failure to read something that
// exists, in one sample.
type SourceError struct {
	// Source names the source ("sysfs", "rdma", "linkpause"...); ""
	// for a failure of the sample as a whole (an invalid interface
	// name).
	Source string
	// Err says what failed, one line.
	Err string
}

// String is the failure with its source: "SOURCE: ERR", or ERR alone
// without a source.
func (e SourceError) String() string {
	if e.Source == "" {
		return e.Err
	}
	return e.Source + ": " + e.Err
}

// errText joins the failures' messages, without their sources, in one
// line ("" when none): the counters' error in the snapshot.
func (s *Sample) errText() string {
	msgs := make([]string, len(s.Errors))
	for i, e := range s.Errors {
		msgs[i] = e.Err
	}
	return strings.Join(msgs, "; ")
}

// An RDMAPortSample is one RDMA device port's counters.
type RDMAPortSample struct {
	Device string
	Port   int
	// NDK is indexed by NDKCounter; a Reading without a source is missing.
	NDK [NDKBits]Reading
	// Congestion is indexed by CongestionCounter.
	Congestion [NumCongestion]Reading
}

// A PFCSample is an interface's per-priority pause counters.
type PFCSample struct {
	Source     PFCSource
	Priorities [8]PrioPauseSample
	// StormWarning and StormError are the NIC's pause-storm guard events
	// (mlx5 tx_pause_storm_warning_events / _error_events).
	StormWarning, StormError Reading
	// StormTimeout is the guard's timeout in ms: the ethtool tunable
	// ETHTOOL_PFC_PREVENTION_TOUT (include/uapi/linux/ethtool.h; 0
	// PFC_STORM_PREVENTION_DISABLE, 0xffff PFC_STORM_PREVENTION_AUTO),
	// how long the NIC keeps pausing its peer before the guard fires
	// (mlx5 en_ethtool.c mlx5e_get_pfc_prevention_tout), where the driver
	// has it.
	StormTimeout Reading
}

// A PrioPauseSample is one priority's pause counters. Durations are in
// microseconds.
type PrioPauseSample struct {
	RxPause, TxPause                 Reading
	RxPauseDuration, TxPauseDuration Reading
	// RxBytes and TxBytes are the priority's traffic (mlx5
	// rx_prio{p}_bytes, tx_prio{p}_bytes), where the driver counts it.
	RxBytes, TxBytes Reading
	// RxPauseTransitions counts the times the peer's pauses started on
	// the priority (mlx5 rx_prio{p}_pause_transition, bnxt_en
	// pfc_pri{p}_rx_transitions): with the pause time, how long each
	// pause lasted.
	RxPauseTransitions Reading
}

// An ECNSample is the host's DCQCN (RoCE congestion control) settings:
// which priorities have each role enabled, and how the CNPs this host
// sends are marked. Sources: the vendor driver's
// /sys/class/net/IF/ecn/roce_np|roce_rp tree, upstream mlx5's debugfs
// cc_params (no per-priority enables there: EnablesUnknown); with neither,
// Source is "" and Hint names the command that would tell.
type ECNSample struct {
	// Source names where the settings were read, "" when nothing could
	// be (Why says why).
	Source string
	// NotificationPoint has the priorities on which this host sends CNPs
	// for ECN-marked packets; ReactionPoint those on which it slows down
	// on receiving CNPs. Both mean nothing when EnablesUnknown.
	NotificationPoint, ReactionPoint dcb.PrioSet
	// EnablesUnknown reports that the source has no per-priority enables
	// (upstream mlx5's debugfs; the firmware's ROCE_CC_PRIO_MASK).
	EnablesUnknown bool
	// CNPDSCP and CNPPriority are the DSCP and the 802.1p priority of
	// the CNPs this host sends (vendor cnp_dscp / cnp_802p_prio, debugfs
	// np_cnp_dscp / np_cnp_prio); nil when unknown. CNPPriorityFromPacket
	// is set when the CNP takes the priority of the packet it answers
	// (debugfs np_cnp_prio_mode 1), nil when unknown.
	CNPDSCP, CNPPriority  *uint8
	CNPPriorityFromPacket *bool
	// Why says why nothing (or not everything) is known; Hint is the
	// command an operator can run to find out. "" when not needed.
	Why, Hint string
}

// equal reports whether two samples hold the same settings (by value:
// the CNP fields are pointers).
func (e *ECNSample) equal(o *ECNSample) bool {
	if e == nil || o == nil {
		return e == o
	}
	a, b := *e, *o
	if !ptrEqual(a.CNPDSCP, b.CNPDSCP) || !ptrEqual(a.CNPPriority, b.CNPPriority) || !ptrEqual(a.CNPPriorityFromPacket, b.CNPPriorityFromPacket) {
		return false
	}
	a.CNPDSCP, a.CNPPriority, a.CNPPriorityFromPacket = nil, nil, nil
	b.CNPDSCP, b.CNPPriority, b.CNPPriorityFromPacket = nil, nil, nil
	return a == b
}

// CNPWords says how the CNPs this host sends are marked, as far as known:
// "CNP DSCP 48", "CNP priority 6" or "CNP priority of the packet".
func (e *ECNSample) CNPWords() []string {
	var w []string
	if e.CNPDSCP != nil {
		w = append(w, fmt.Sprintf("CNP DSCP %d", *e.CNPDSCP))
	}
	switch {
	case e.CNPPriorityFromPacket != nil && *e.CNPPriorityFromPacket:
		w = append(w, "CNP priority of the packet")
	case e.CNPPriority != nil:
		w = append(w, fmt.Sprintf("CNP priority %d", *e.CNPPriority))
	}
	return w
}

// DSCPOfCNP is the CNP's DSCP, nil when unknown (or e is nil).
func (e *ECNSample) DSCPOfCNP() *uint8 {
	if e == nil {
		return nil
	}
	return e.CNPDSCP
}

// PriorityOfCNP is the CNP's fixed 802.1p priority, nil when unknown or
// when the CNP takes the priority of the packet it answers.
func (e *ECNSample) PriorityOfCNP() *uint8 {
	if e == nil || (e.CNPPriorityFromPacket != nil && *e.CNPPriorityFromPacket) {
		return nil
	}
	return e.CNPPriority
}

// ecnJSON is the JSON contract's "ecn" object.
type ecnJSON struct {
	Source        string       `json:"source"`
	NP            *dcb.PrioSet `json:"np_enabled"`
	RP            *dcb.PrioSet `json:"rp_enabled"`
	CNPDSCP       *uint8       `json:"cnp_dscp"`
	CNPPriority   *uint8       `json:"cnp_priority"`
	CNPFromPacket *bool        `json:"cnp_priority_from_packet"`
	Why           *string      `json:"why"`
	Hint          *string      `json:"hint"`
}

// MarshalJSON writes the ECN settings as the JSON contract's object:
// np_enabled and rp_enabled null when the enables are unknown, why and
// hint null when empty.
func (e ECNSample) MarshalJSON() ([]byte, error) {
	v := ecnJSON{Source: e.Source, CNPDSCP: e.CNPDSCP, CNPPriority: e.CNPPriority, CNPFromPacket: e.CNPPriorityFromPacket}
	if !e.EnablesUnknown {
		v.NP, v.RP = &e.NotificationPoint, &e.ReactionPoint
	}
	if e.Why != "" {
		v.Why = &e.Why
	}
	if e.Hint != "" {
		v.Hint = &e.Hint
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads the object MarshalJSON writes, so that a saved
// snapshot decodes back into the same settings; unknown fields are
// rejected as the rest of the contract's strict decoding does.
func (e *ECNSample) UnmarshalJSON(b []byte) error {
	var v ecnJSON
	if err := json.Unmarshal(b, &v, json.RejectUnknownMembers(true)); err != nil {
		return err
	}
	*e = ECNSample{Source: v.Source, CNPDSCP: v.CNPDSCP, CNPPriority: v.CNPPriority, CNPPriorityFromPacket: v.CNPFromPacket,
		EnablesUnknown: v.NP == nil || v.RP == nil, Why: deref(v.Why), Hint: deref(v.Hint)}
	if v.NP != nil && v.RP != nil {
		e.NotificationPoint, e.ReactionPoint = *v.NP, *v.RP
	}
	return nil
}
