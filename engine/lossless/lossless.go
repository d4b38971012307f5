package lossless

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
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

// PauseStormRate is the pause frame rate, per second and per priority in
// either direction, at or above which dcbtop reports a pause storm: a
// receiver pausing continuously refreshes XOFF about every half quanta
// (about 1,500 frames/s at 25 Gb/s with quanta 0xFFFF, 6,000 at 100 Gb/s).
const PauseStormRate = 1000.0

// HistoryWindow is how far back the pause-rate history reaches.
const HistoryWindow = 60 * time.Second

// State is what the engine keeps of an interface's counters: the
// last two samples and the pause-rate history.
type State struct {
	prev, cur *Sample
	// history is a ring of one historyRow per sample; next is where the
	// next entry goes, n how many are set.
	history []historyRow
	next, n int
	// made is the counters as snapshot made them after the last sample:
	// they change only with a sample, so every snapshot until the next
	// shares them (the slices, maps and series are never written to
	// after), and a switch of 64 ports copies no sparkline a second.
	made *Counters
}

// A historyRow is what one sample adds to the sparklines, per priority:
// the summed (rx+tx) pause rate, the summed traffic in bytes per second,
// and the share of the interval paused by the peer (0 where unknown).
type historyRow struct {
	pause, traffic, paused [8]float64
}

// Sample records a sample, keeping the previous one for rates, and
// reports whether what a snapshot shows changed: a reading, the interval
// or the error differs, a rate or the pause history is not at rest (the
// history still filling, or a pause rate in the window).
func (ls *State) Sample(ev Sample) bool {
	ls.made = nil
	rest := ls.cur != nil && ls.prev != nil && sameReadings(&ev, ls.cur) && sameReadings(ls.cur, ls.prev) && ls.historyQuiet()
	c := ev
	c.RDMA = append([]RDMAPortSample(nil), ev.RDMA...)
	if ev.PFC != nil {
		pfc := *ev.PFC
		c.PFC = &pfc
	}
	if ev.ECN != nil {
		ecn := *ev.ECN
		c.ECN = &ecn
	}
	c.RoCE, c.LinkPause, c.QoS = cloneRoCE(ev.RoCE), copyPtr(ev.LinkPause), ev.QoS.clone()
	ls.prev, ls.cur = ls.cur, &c
	size := HistorySize(ev.Interval)
	if len(ls.history) != size {
		ls.history, ls.next, ls.n = make([]historyRow, size), 0, 0
	}
	if ls.prev == nil || ls.cur.PFC == nil || ls.prev.PFC == nil {
		return !rest
	}
	dt := ls.cur.At.Sub(ls.prev.At)
	var row historyRow
	for p := range 8 {
		c, pr := &ls.cur.PFC.Priorities[p], &ls.prev.PFC.Priorities[p]
		for _, r := range [...][2]Reading{{pr.RxPause, c.RxPause}, {pr.TxPause, c.TxPause}} {
			if v, ok := readingRate(r[0], r[1], dt); ok {
				row.pause[p] += v
			}
		}
		for _, r := range [...][2]Reading{{pr.RxBytes, c.RxBytes}, {pr.TxBytes, c.TxBytes}} {
			if v, ok := readingRate(r[0], r[1], dt); ok {
				row.traffic[p] += v
			}
		}
		if f, ok := pausedFraction(pr.RxPauseDuration, c.RxPauseDuration, dt); ok {
			row.paused[p] = f
		}
	}
	ls.history[ls.next] = row
	ls.next = (ls.next + 1) % size
	ls.n = min(ls.n+1, size)
	return !rest
}

// historyQuiet reports that another sample without pauses leaves the
// pause history as it shows: the ring is full (or unused: no pause
// counters) and every rate in it is zero.
func (ls *State) historyQuiet() bool {
	if ls.cur.PFC == nil {
		return true
	}
	if ls.n < len(ls.history) {
		return false
	}
	for _, row := range ls.history {
		if row != (historyRow{}) {
			return false
		}
	}
	return true
}

// sameReadings reports whether two samples read the same values from the
// same sources at the same interval (their times aside).
func sameReadings(a, b *Sample) bool {
	return a.Interval == b.Interval && slices.Equal(a.Errors, b.Errors) && a.Driver == b.Driver && slices.Equal(a.RDMA, b.RDMA) &&
		ptrEqual(a.PFC, b.PFC) && a.ECN.equal(b.ECN) && sameRoCE(a, b)
}

// ptrEqual reports whether two pointers are both nil or point to equal
// values.
// copyPtr returns a pointer to a copy of *p, nil for nil.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// historySize is the number of samples that cover HistoryWindow at the
// interval, from 2 to 600.
func HistorySize(interval time.Duration) int {
	if interval <= 0 {
		interval = time.Second
	}
	return int(min(600, max(2, (HistoryWindow+interval-1)/interval)))
}

// Rate returns the per-second rate of a counter that went from prev to
// cur in dt. A decrease is a reset (or a wrap): the counter restarted
// from zero, so cur is what was counted since; never a negative rate.
func Rate(prev, cur uint64, dt time.Duration) float64 {
	if dt <= 0 {
		return 0
	}
	d := cur - prev
	if cur < prev {
		d = cur
	}
	return float64(d) / dt.Seconds()
}

// readingRate is Rate of two readings from the same source, and false
// when either is missing or they come from different sources.
func readingRate(prev, cur Reading, dt time.Duration) (float64, bool) {
	if !prev.OK() || !cur.OK() || prev.Source != cur.Source || dt <= 0 {
		return 0, false
	}
	return Rate(prev.Value, cur.Value, dt), true
}

// Counters is the snapshot JSON "counters" object: an interface's
// lossless-Ethernet counters as last sampled.
type Counters struct {
	SampledAt  time.Time `json:"sampled_at"`
	IntervalMs int64     `json:"interval_ms"`
	// Driver is the netdev's driver as ethtool -i names it, null when
	// unknown.
	Driver *string `json:"driver"`
	// RDMA is [] on an interface without an RDMA device.
	RDMA []RDMAPortCounters `json:"rdma"`
	PFC  PFCCounters        `json:"pfc"`
	// ECN is null when the host's DCQCN settings are unknown.
	ECN *ECNSample `json:"ecn"`
	// RoCE is the RoCE identity of each RDMA port bound to the
	// interface (GID table, rdma_cm defaults); [] without one.
	RoCE []RoCEPortSample `json:"roce"`
	// LinkPause is the 802.3x link-wide PAUSE, null when nothing reports
	// it.
	LinkPause *LinkPauseSample `json:"link_pause"`
	// QoS is how the NIC classifies and buffers received traffic (trust,
	// PFC delay, buffers, rate limits), null when nothing reports it.
	QoS *PortQoSSample `json:"qos"`
	// RoCEPaths judges, per RoCE port, the way of its traffic through
	// this host hop by hop (Interface.RoCEPaths); [] without one.
	RoCEPaths []RoCEPath `json:"roce_paths"`
	// Error is the last sample's failures to read a source, their
	// messages joined with "; " (the counters-error diagnostic names each
	// failing source), null when fine.
	Error *string `json:"error"`
	// PauseHistory is, per priority, the summed rx+tx pause rate of each
	// sample of the last HistoryWindow, oldest first (for sparklines; not
	// part of the JSON contract).
	PauseHistory [8][]float64 `json:"-"`
	// TrafficHistory is, likewise, the summed rx+tx bytes per second, and
	// PausedHistory the share of each interval paused by the peer (0
	// where the driver has no pause time).
	TrafficHistory [8][]float64 `json:"-"`
	PausedHistory  [8][]float64 `json:"-"`
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
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return err
	}
	*e = ECNSample{Source: v.Source, CNPDSCP: v.CNPDSCP, CNPPriority: v.CNPPriority, CNPPriorityFromPacket: v.CNPFromPacket,
		EnablesUnknown: v.NP == nil || v.RP == nil, Why: deref(v.Why), Hint: deref(v.Hint)}
	if v.NP != nil && v.RP != nil {
		e.NotificationPoint, e.ReactionPoint = *v.NP, *v.RP
	}
	return nil
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// RDMAPortCounters is one RDMA device port's counters in the snapshot.
type RDMAPortCounters struct {
	Device string    `json:"device"`
	Port   int       `json:"port"`
	NDK    NDKValues `json:"ndk"`
	// MissingCounterMask has bit N set when NDK counter N has no source
	// (reserved bits always); DerivedCounterMask when it is approximated.
	MissingCounterMask uint32 `json:"missing_counter_mask"`
	DerivedCounterMask uint32 `json:"derived_counter_mask"`
	// Sources maps each counter with a value (NDK and congestion) to where
	// it came from.
	Sources map[string]string `json:"sources"`
	// Rates maps counters to their per-second rate over the last interval;
	// empty until a second sample.
	Rates      map[string]float64 `json:"rates"`
	Congestion CongestionValues   `json:"congestion"`
}

// NDKValues are the NDK counters; null where missing.
type NDKValues struct {
	Connect          *uint64 `json:"connect"`
	Accept           *uint64 `json:"accept"`
	ConnectFailure   *uint64 `json:"connect_failure"`
	ConnectionError  *uint64 `json:"connection_error"`
	ActiveConnection *uint64 `json:"active_connection"`
	CQError          *uint64 `json:"cq_error"`
	RDMAInOctets     *uint64 `json:"rdma_in_octets"`
	RDMAOutOctets    *uint64 `json:"rdma_out_octets"`
	RDMAInFrames     *uint64 `json:"rdma_in_frames"`
	RDMAOutFrames    *uint64 `json:"rdma_out_frames"`
}

// Get returns the field of counter c.
func (v *NDKValues) Get(c NDKCounter) *uint64 {
	switch c {
	case NDKConnect:
		return v.Connect
	case NDKAccept:
		return v.Accept
	case NDKConnectFailure:
		return v.ConnectFailure
	case NDKConnectionError:
		return v.ConnectionError
	case NDKActiveConnection:
		return v.ActiveConnection
	case NDKCQError:
		return v.CQError
	case NDKRDMAInOctets:
		return v.RDMAInOctets
	case NDKRDMAOutOctets:
		return v.RDMAOutOctets
	case NDKRDMAInFrames:
		return v.RDMAInFrames
	case NDKRDMAOutFrames:
		return v.RDMAOutFrames
	}
	return nil
}

func (v *NDKValues) set(c NDKCounter, x *uint64) {
	switch c {
	case NDKConnect:
		v.Connect = x
	case NDKAccept:
		v.Accept = x
	case NDKConnectFailure:
		v.ConnectFailure = x
	case NDKConnectionError:
		v.ConnectionError = x
	case NDKActiveConnection:
		v.ActiveConnection = x
	case NDKCQError:
		v.CQError = x
	case NDKRDMAInOctets:
		v.RDMAInOctets = x
	case NDKRDMAOutOctets:
		v.RDMAOutOctets = x
	case NDKRDMAInFrames:
		v.RDMAInFrames = x
	case NDKRDMAOutFrames:
		v.RDMAOutFrames = x
	}
}

// CongestionValues are the congestion counters; null where missing.
type CongestionValues struct {
	CNPSent       *uint64 `json:"np_cnp_sent"`
	CNPHandled    *uint64 `json:"rp_cnp_handled"`
	CNPIgnored    *uint64 `json:"rp_cnp_ignored"`
	ECNMarked     *uint64 `json:"np_ecn_marked_roce_packets"`
	OutOfSequence *uint64 `json:"out_of_sequence"`
	OutOfBuffer   *uint64 `json:"out_of_buffer"`
}

// Get returns the field of counter c.
func (v *CongestionValues) Get(c CongestionCounter) *uint64 {
	return *v.field(c)
}

func (v *CongestionValues) field(c CongestionCounter) **uint64 {
	switch c {
	case CNPSent:
		return &v.CNPSent
	case CNPHandled:
		return &v.CNPHandled
	case CNPIgnored:
		return &v.CNPIgnored
	case ECNMarked:
		return &v.ECNMarked
	case OutOfSequence:
		return &v.OutOfSequence
	}
	return &v.OutOfBuffer
}

// PFCCounters are the per-priority pause counters in the snapshot.
type PFCCounters struct {
	// Source is null when nothing provides per-priority pause counts.
	Source *PFCSource `json:"source"`
	// Priorities has one entry per priority 0-7.
	Priorities []PrioPause `json:"priorities"`
	// StormWarningEvents and StormErrorEvents count the NIC's pause-storm
	// guard firing; null where the driver has no such counter.
	StormWarningEvents *uint64 `json:"storm_warning_events"`
	StormErrorEvents   *uint64 `json:"storm_error_events"`
	// Sources maps each field with a value to where it came from, with
	// {p} standing for the priority ("rx_prio{p}_pause").
	Sources map[string]string `json:"sources"`
}

// PrioPause is one priority's pause counters. Rates are per second over
// the last interval, null until a second sample.
type PrioPause struct {
	Priority          int      `json:"priority"`
	RxPause           *uint64  `json:"rx_pause"`
	TxPause           *uint64  `json:"tx_pause"`
	RxPauseRate       *float64 `json:"rx_pause_rate"`
	TxPauseRate       *float64 `json:"tx_pause_rate"`
	RxPauseDurationUs *uint64  `json:"rx_pause_duration_us"`
	TxPauseDurationUs *uint64  `json:"tx_pause_duration_us"`
	// RxBytes and TxBytes are the priority's traffic, RxBytesRate and
	// TxBytesRate per second over the last interval; PausedFraction is
	// the share of the last interval this port spent paused by the peer
	// on the priority (rx pause duration), 0 to 1. Null where unknown.
	RxBytes        *uint64  `json:"rx_bytes"`
	TxBytes        *uint64  `json:"tx_bytes"`
	RxBytesRate    *float64 `json:"rx_bytes_rate"`
	TxBytesRate    *float64 `json:"tx_bytes_rate"`
	PausedFraction *float64 `json:"paused_fraction"`
	// RxPauseTransitions counts the pauses the peer started on the
	// priority, where the driver counts them.
	RxPauseTransitions *uint64 `json:"rx_pause_transitions"`
}

func value(r Reading) *uint64 {
	if !r.OK() {
		return nil
	}
	v := r.Value
	return &v
}

// Snapshot renders the last sample with rates against the one before;
// nil when nothing was sampled.
func (ls *State) Snapshot() *Counters {
	if ls == nil || ls.cur == nil {
		return nil
	}
	if ls.made == nil {
		ls.made = ls.build()
	}
	if !ls.made.hasRoCE() {
		// Without a RoCE port there is no path, whatever else the
		// interface says: every snapshot until the next sample shares
		// the one made (nothing writes to a snapshot).
		if ls.made.RoCEPaths == nil {
			ls.made.RoCEPaths = []RoCEPath{}
		}
		return ls.made
	}
	c := *ls.made // the caller sets RoCEPaths on its own copy
	return &c
}

// hasRoCE reports whether a RoCE port (link layer Ethernet) was sampled.
func (c *Counters) hasRoCE() bool {
	for i := range c.RoCE {
		if c.RoCE[i].IsRoCE() {
			return true
		}
	}
	return false
}

// build makes the counters of the last sample, for snapshot.
func (ls *State) build() *Counters {
	cur, prev := ls.cur, ls.prev
	var dt time.Duration
	if prev != nil {
		dt = cur.At.Sub(prev.At)
	}
	out := &Counters{SampledAt: cur.At, IntervalMs: cur.Interval.Milliseconds(),
		RDMA: make([]RDMAPortCounters, 0, len(cur.RDMA))}
	for i := range cur.RDMA {
		var before *RDMAPortSample
		if prev != nil {
			for j := range prev.RDMA {
				if prev.RDMA[j].Device == cur.RDMA[i].Device && prev.RDMA[j].Port == cur.RDMA[i].Port {
					before = &prev.RDMA[j]
				}
			}
		}
		out.RDMA = append(out.RDMA, rdmaCounters(&cur.RDMA[i], before, dt))
	}
	out.PFC = pfcCounters(cur.PFC, prev, dt)
	if cur.ECN != nil {
		e := *cur.ECN
		out.ECN = &e
	}
	out.RoCE, out.LinkPause, out.QoS = cloneRoCE(cur.RoCE), copyPtr(cur.LinkPause), cur.QoS.clone()
	if e := cur.errText(); e != "" {
		out.Error = &e
	}
	if cur.Driver != "" {
		d := cur.Driver
		out.Driver = &d
	}
	// One backing array for the 24 series.
	all := make([]float64, 3*8*ls.n)
	for p := range 8 {
		pause, traffic, paused := all[:ls.n:ls.n], all[ls.n:2*ls.n:2*ls.n], all[2*ls.n:3*ls.n:3*ls.n]
		all = all[3*ls.n:]
		for i := range ls.n {
			row := &ls.history[(ls.next-ls.n+i+len(ls.history))%len(ls.history)]
			pause[i], traffic[i], paused[i] = row.pause[p], row.traffic[p], row.paused[p]
		}
		out.PauseHistory[p], out.TrafficHistory[p], out.PausedHistory[p] = pause, traffic, paused
	}
	return out
}

func rdmaCounters(s, before *RDMAPortSample, dt time.Duration) RDMAPortCounters {
	rc := RDMAPortCounters{Device: s.Device, Port: s.Port, MissingCounterMask: NDKReservedMask,
		Sources: map[string]string{}, Rates: map[string]float64{}}
	for _, c := range NDKCounters {
		r := s.NDK[c]
		if !r.OK() {
			rc.MissingCounterMask |= 1 << c
			continue
		}
		rc.NDK.set(c, value(r))
		rc.Sources[c.Key()] = r.Source
		if r.Derived {
			rc.DerivedCounterMask |= 1 << c
		}
		if before != nil && !c.Gauge() {
			if v, ok := readingRate(before.NDK[c], r, dt); ok {
				rc.Rates[c.Key()] = v
			}
		}
	}
	for c := range NumCongestion {
		r := s.Congestion[c]
		if !r.OK() {
			continue
		}
		*rc.Congestion.field(c) = value(r)
		rc.Sources[c.Key()] = r.Source
		if before != nil {
			if v, ok := readingRate(before.Congestion[c], r, dt); ok {
				rc.Rates[c.Key()] = v
			}
		}
	}
	return rc
}

func pfcCounters(s *PFCSample, prev *Sample, dt time.Duration) PFCCounters {
	out := PFCCounters{Priorities: make([]PrioPause, 8), Sources: map[string]string{}}
	for p := range out.Priorities {
		out.Priorities[p].Priority = p
	}
	if s == nil {
		return out
	}
	src := s.Source
	out.Source = &src
	var before *PFCSample
	if prev != nil {
		before = prev.PFC
	}
	source := func(key string, r Reading) {
		if r.OK() {
			out.Sources[key] = r.Source
		}
	}
	for p := range out.Priorities {
		c, pp := &s.Priorities[p], &out.Priorities[p]
		pp.RxPause, pp.TxPause = value(c.RxPause), value(c.TxPause)
		pp.RxPauseDurationUs, pp.TxPauseDurationUs = value(c.RxPauseDuration), value(c.TxPauseDuration)
		pp.RxBytes, pp.TxBytes = value(c.RxBytes), value(c.TxBytes)
		pp.RxPauseTransitions = value(c.RxPauseTransitions)
		if before != nil {
			b := &before.Priorities[p]
			if v, ok := readingRate(b.RxBytes, c.RxBytes, dt); ok {
				pp.RxBytesRate = &v
			}
			if v, ok := readingRate(b.TxBytes, c.TxBytes, dt); ok {
				pp.TxBytesRate = &v
			}
			if f, ok := pausedFraction(b.RxPauseDuration, c.RxPauseDuration, dt); ok {
				pp.PausedFraction = &f
			}
			if v, ok := readingRate(b.RxPause, c.RxPause, dt); ok {
				pp.RxPauseRate = &v
			}
			if v, ok := readingRate(b.TxPause, c.TxPause, dt); ok {
				pp.TxPauseRate = &v
			}
		}
	}
	// Sources are per field, the same for every priority: name them with
	// the priority as {p}.
	for p := range s.Priorities {
		c := &s.Priorities[p]
		pat := func(r Reading) Reading {
			r.Source = prioPattern(r.Source, p)
			return r
		}
		source("rx_pause", pat(c.RxPause))
		source("tx_pause", pat(c.TxPause))
		source("rx_pause_duration_us", pat(c.RxPauseDuration))
		source("tx_pause_duration_us", pat(c.TxPauseDuration))
		source("rx_bytes", pat(c.RxBytes))
		source("tx_bytes", pat(c.TxBytes))
		source("rx_pause_transitions", pat(c.RxPauseTransitions))
	}
	out.StormWarningEvents, out.StormErrorEvents = value(s.StormWarning), value(s.StormError)
	source("storm_warning_events", s.StormWarning)
	source("storm_error_events", s.StormError)
	return out
}

// pausedFraction is the share of dt a priority spent paused, from its
// pause duration counter in microseconds (mlx5 rx_prio{p}_pause_duration):
// 0 to 1 (a counter that ran ahead of the clock by jitter is 1).
func pausedFraction(prev, cur Reading, dt time.Duration) (float64, bool) {
	r, ok := readingRate(prev, cur, dt)
	if !ok {
		return 0, false
	}
	return min(1, r/1e6), true
}

// prioPattern replaces the priority's digit in a per-priority source name
// with {p} ("rx_prio3_pause" -> "rx_prio{p}_pause", "requests[3]" ->
// "requests[{p}]"): the first occurrence of the digit after a letter,
// underscore or bracket.
func prioPattern(src string, p int) string {
	d := byte('0' + p)
	for i := 1; i < len(src); i++ {
		prev := src[i-1]
		if src[i] != d || !(prev == '_' || prev == '[' || prev >= 'a' && prev <= 'z') {
			continue
		}
		if i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
			continue
		}
		return src[:i] + "{p}" + src[i+1:]
	}
	return src
}
