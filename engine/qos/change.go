// SPDX-License-Identifier: Apache-2.0

package qos

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A Change is an operator's change of what the RoCE path judges and
// DCBX does not carry: how the NIC classifies received traffic (its
// trust table, its DSCP entries), its PFC delay and receive buffer split,
// its per-TC transmit rate limits, who runs DCBX on it, its PFC storm
// guard's timeout, the DSCP its APP rewrite table gives each priority's
// frames, and the ToS rdma_cm stamps on new connections. Each nil field
// is left as it is. It is checked (Errors) and previewed (Engine.PreviewQoS)
// before anything is written; capture/kernel writes it (ApplyQoS).
type Change struct {
	// Trust is the trust table to set, most trusted first: "dscp",
	// "pcp", or another APP selector's name ("ethertype", "tcp-port",
	// "udp-port", "port"); DCB_ATTR_DCB_APP_TRUST_TABLE, linux/dcbnl.h.
	Trust []string `json:"trust"`
	// DSCP are DSCP → priority APP entries to put in the kernel's APP
	// table, each replacing the entries of its DSCP value (a DSCP value
	// maps to one priority: mlx5's dscp2prio, the kernel's DSCP
	// rewrite).
	DSCP []DSCPPriority `json:"dscp"`
	// DSCPDelete are DSCP values whose APP entries are removed (an undo
	// of entries that did not exist before).
	DSCPDelete DSCPList `json:"dscp_delete"`
	// PFCDelay is struct ieee_pfc's delay, the allowance for the link's
	// round trip in bits (mlx5 takes it as the cable length in metres).
	PFCDelay *uint16 `json:"pfc_delay"`
	// Buffer is the receive buffer split: each priority's buffer and each
	// buffer's size in bytes (struct dcbnl_buffer; the total is the
	// NIC's and is not written).
	Buffer *lossless.PortBuffer `json:"buffer"`
	// RoCEToS sets rdma_cm's default ToS of RDMA ports bound to the
	// interface (configfs rdma_cm/DEV/ports/P/default_roce_tos).
	RoCEToS []RoCEToSChange `json:"roce_tos"`
	// MaxRate are per-TC transmit rate limits, each replacing its TC's
	// (struct ieee_maxrate, kbit/s, 0 unlimited; the others are kept).
	MaxRate []TCRate `json:"maxrate"`
	// DCBXMode is who runs DCBX on the NIC, the host or its firmware
	// (DCB_CMD_SDCBX).
	DCBXMode *DCBXMode `json:"dcbx_mode"`
	// PFCStormTimeout is the PFC storm prevention timeout in ms, the
	// ethtool tunable ETHTOOL_PFC_PREVENTION_TOUT (0 off, 65535 auto;
	// capture/tunable).
	PFCStormTimeout *uint16 `json:"pfc_storm_timeout_ms"`
	// RewriteDSCP are DSCP rewrites to put in the APP rewrite table
	// (Linux 6.3), each replacing the DSCP entries of its priority.
	RewriteDSCP []PrioDSCP `json:"rewrite_dscp"`
	// RewriteDSCPDelete are priorities whose DSCP rewrite entries are
	// removed (an undo of entries that did not exist before).
	RewriteDSCPDelete DSCPList `json:"rewrite_dscp_delete"`
}

// A DSCPList is a list of DSCP values; in JSON a list of numbers (not
// the base64 string encoding/json makes of a []uint8).
type DSCPList []uint8

// MarshalJSON writes the list of numbers.
func (l DSCPList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	return json.Marshal(intsOf(l))
}

// UnmarshalJSON reads a list of numbers 0-255.
func (l *DSCPList) UnmarshalJSON(b []byte) error {
	var v []uint8
	var ints []int
	if err := json.Unmarshal(b, &ints); err != nil {
		return fmt.Errorf("dscp_delete: want a list of DSCP values: %w", err)
	}
	for _, x := range ints {
		if x < 0 || x > 255 {
			return fmt.Errorf("dscp_delete: %d is not a DSCP value", x)
		}
		v = append(v, uint8(x))
	}
	*l = v
	return nil
}

func intsOf(l []uint8) []int {
	out := make([]int, len(l))
	for i, x := range l {
		out[i] = int(x)
	}
	return out
}

// A DSCPPriority maps a DSCP value (0-63) to a priority (0-7).
type DSCPPriority struct {
	DSCP     uint8 `json:"dscp"`
	Priority uint8 `json:"priority"`
}

// A RoCEToSChange sets one RDMA port's rdma_cm default ToS.
type RoCEToSChange struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	ToS    uint8  `json:"tos"`
}

// Empty reports whether c changes nothing.
func (c *Change) Empty() bool {
	return c == nil || c.Trust == nil && c.DSCP == nil && c.DSCPDelete == nil && c.PFCDelay == nil && c.Buffer == nil && c.RoCEToS == nil &&
		c.MaxRate == nil && c.DCBXMode == nil && c.PFCStormTimeout == nil && c.RewriteDSCP == nil && c.RewriteDSCPDelete == nil
}

// DCB reports whether c changes anything DCB netlink writes (all but
// the ToS).
func (c *Change) DCB() bool {
	return c.Trust != nil || len(c.DSCP) > 0 || len(c.DSCPDelete) > 0 || c.PFCDelay != nil || c.Buffer != nil || len(c.MaxRate) > 0 || c.DCBXMode != nil ||
		len(c.RewriteDSCP) > 0 || len(c.RewriteDSCPDelete) > 0
}

// trustSelectors names the selectors a trust table may hold, as
// dcbnl_ieee_set accepts them (IEEE_8021QAZ_APP_SEL_* 1-5 and
// DCB_APP_SEL_PCP) and iproute2's dcb apptrust names them.
var trustSelectors = map[string]bool{"ethertype": true, "tcp-port": true, "udp-port": true, "port": true, "dscp": true, "pcp": true}

// Errors checks c on its own and against in, the interface it is for,
// before anything is written, by the rules the kernel and the RoCE path
// apply: a trust table of known selectors, each once (dcbnl_ieee_set
// refuses a duplicate or an unknown one with EINVAL); DSCP values 0-63 and
// priorities 0-7, each DSCP once (IEEE Std 802.1Q-2018, Table D-9); a
// buffer for each priority below 8 (DCBX_MAX_BUFFERS, dcbnl_ieee_set),
// sizes that fit the NIC's total, and no PFC priority on an empty buffer
// (pfc-no-headroom); ToS values for RDMA ports the interface has; rate
// limits only where the driver reports them (maxRateErrors); a DCBX mode
// only where the driver reports one (it has getdcbx); a storm timeout
// only where the driver has the tunable, within mlx5's range on mlx5; DSCP
// rewrites only where the kernel has the rewrite table (rewriteErrors);
// nil when c can be written.
func (c *Change) Errors(in engine.Interface) error {
	var errs []error
	seen := map[string]bool{}
	for _, s := range c.Trust {
		switch {
		case !trustSelectors[s]:
			errs = append(errs, fmt.Errorf("trust: unknown selector %q (want dscp, pcp, ethertype, tcp-port, udp-port or port)", s))
		case seen[s]:
			errs = append(errs, fmt.Errorf("trust: %s given twice", s))
		}
		seen[s] = true
	}
	if c.Trust != nil && len(c.Trust) == 0 {
		errs = append(errs, errors.New("trust: empty (give at least one selector)"))
	}
	dscps := map[uint8]bool{}
	for _, d := range c.DSCP {
		switch {
		case d.DSCP > 63:
			errs = append(errs, fmt.Errorf("dscp %d: a DSCP value is 0-63", d.DSCP))
		case d.Priority > 7:
			errs = append(errs, fmt.Errorf("dscp %d: priority %d is not 0-7", d.DSCP, d.Priority))
		case dscps[d.DSCP]:
			errs = append(errs, fmt.Errorf("dscp %d given twice", d.DSCP))
		}
		dscps[d.DSCP] = true
	}
	for _, d := range c.DSCPDelete {
		if d > 63 || dscps[d] {
			errs = append(errs, fmt.Errorf("dscp %d: deleted and set, or not 0-63", d))
		}
	}
	q := qosOf(&in)
	if b := c.Buffer; b != nil {
		var sum uint64
		for prio, buf := range b.PrioBuffer {
			if buf >= 8 {
				errs = append(errs, fmt.Errorf("buffer: priority %d on buffer %d (buffers are 0-7)", prio, buf))
			}
		}
		for _, s := range b.SizeBytes {
			sum += uint64(s)
		}
		switch {
		case q == nil || q.Buffer == nil:
			errs = append(errs, errors.New("buffer: the driver reports no buffer split (DCB_ATTR_DCB_BUFFER): it cannot be set here"))
		case q.Buffer.TotalBytes > 0 && sum > uint64(q.Buffer.TotalBytes):
			errs = append(errs, fmt.Errorf("buffer: sizes sum to %d bytes, more than the NIC's %d", sum, q.Buffer.TotalBytes))
		}
		if op := in.Operational; op != nil && op.PFC != nil {
			for _, prio := range op.PFC.Enabled.List() {
				if buf := b.PrioBuffer[prio]; buf < 8 && b.SizeBytes[buf] == 0 {
					errs = append(errs, fmt.Errorf("buffer: PFC priority %d on buffer %d of size 0: no headroom (pfc-no-headroom)", prio, buf))
				}
			}
		}
	}
	if c.PFCDelay != nil && (in.Local == nil || in.Local.PFC == nil) {
		errs = append(errs, errors.New("pfc delay: the driver reports no PFC (DCB_ATTR_IEEE_PFC) to set its delay in"))
	}
	var maxTCs uint8
	if in.Local != nil && in.Local.ETS != nil {
		maxTCs = in.Local.ETS.MaxTCs
	}
	errs = append(errs, maxRateErrors(c.MaxRate, q != nil && q.MaxRateKbps != nil, maxTCs)...)
	if m := c.DCBXMode; m != nil {
		if _, err := ParseDCBXMode(m.String()); err != nil {
			errs = append(errs, err)
		} else if in.DCBXMode == nil {
			errs = append(errs, errors.New("dcbx mode: the driver reports no DCBX mode (no getdcbx: DCB_CMD_GDCBX answers EOPNOTSUPP): it cannot be set here"))
		}
	}
	errs = append(errs, rewriteErrors(c.RewriteDSCP, c.RewriteDSCPDelete, q)...)
	if t := c.PFCStormTimeout; t != nil {
		switch {
		case in.Counters == nil || in.Counters.PFC.StormPreventionTimeoutMs == nil:
			errs = append(errs, errors.New("pfc storm timeout: the driver has no PFC storm prevention timeout (no ethtool tunable pfc-prevention-tout, ETHTOOL_PFC_PREVENTION_TOUT): it cannot be set here"))
		case in.Counters.Driver != nil && *in.Counters.Driver == "mlx5_core" && *t != StormTimeoutOff && *t != StormTimeoutAuto &&
			(*t < mlx5StormTimeoutMin || *t > mlx5StormTimeoutMax):
			errs = append(errs, fmt.Errorf("pfc storm timeout: mlx5 takes %d-%d ms, off or auto (mlx5e_set_pfc_prevention_tout), not %d", mlx5StormTimeoutMin, mlx5StormTimeoutMax, *t))
		}
	}
	ports := map[string]bool{}
	for _, t := range c.RoCEToS {
		key := t.Device + "/" + strconv.Itoa(t.Port)
		switch {
		case !hasRDMAPort(&in, t.Device, t.Port):
			errs = append(errs, fmt.Errorf("roce tos: %s port %d is not an RDMA port of %s", t.Device, t.Port, in.Name))
		case ports[key]:
			errs = append(errs, fmt.Errorf("roce tos: %s port %d given twice", t.Device, t.Port))
		}
		ports[key] = true
	}
	if len(errs) == 0 && (len(c.DSCP) > 0 || len(c.DSCPDelete) > 0 || c.Trust != nil) && in.LocalSource != engine.SourceDCBNL && in.LocalSource != engine.SourceAgent {
		errs = append(errs, errors.New("the driver reports no DCB APP table here (no DCB netlink): trust and DSCP entries cannot be set"))
	}
	return errors.Join(errs...)
}

// qos returns the NIC's classification and buffers as last sampled, nil
// when unknown.
func qosOf(in *engine.Interface) *lossless.PortQoSSample {
	if in.Counters == nil {
		return nil
	}
	return in.Counters.QoS
}

// hasRDMAPort reports whether dev's port is one of in's RDMA ports.
func hasRDMAPort(in *engine.Interface, dev string, port int) bool {
	return slices.ContainsFunc(in.RoCEPorts(), func(r lossless.RoCEPortSample) bool { return r.Device == dev && r.Port == port })
}

// WithDSCP returns app with c's DSCP entries: each replaces the entries of
// its DSCP value; the other entries stay, in order.
func (c *Change) WithDSCP(app []dcb.App) []dcb.App {
	if len(c.DSCP) == 0 && len(c.DSCPDelete) == 0 {
		return app
	}
	out := slices.DeleteFunc(slices.Clone(app), func(a dcb.App) bool {
		return a.Selector == lldp.AppSelDSCP && (slices.ContainsFunc(c.DSCP, func(d DSCPPriority) bool { return uint16(d.DSCP) == a.Protocol }) ||
			slices.Contains(c.DSCPDelete, uint8(a.Protocol)))
	})
	for _, d := range c.DSCP {
		out = append(out, dcb.App{Selector: lldp.AppSelDSCP, Protocol: uint16(d.DSCP), Priority: d.Priority})
	}
	return out
}

// Lines says what c changes on in, one line each, before → after.
func (c *Change) Lines(in engine.Interface) []string {
	var out []string
	q := qosOf(&in)
	if c.Trust != nil {
		before := "unknown"
		if q != nil && q.Trust != nil {
			before = strings.Join(q.Trust, ", ")
			if q.TrustDerived {
				before += " (derived from the APP table)"
			}
		}
		out = append(out, "trust "+before+" → "+strings.Join(c.Trust, ", "))
	}
	var app []dcb.App
	if in.Local != nil {
		app = in.Local.App
	}
	for _, d := range c.DSCP {
		before := "none"
		for _, a := range app {
			if a.Selector == lldp.AppSelDSCP && a.Protocol == uint16(d.DSCP) {
				before = "priority " + strconv.Itoa(int(a.Priority))
			}
		}
		out = append(out, fmt.Sprintf("DSCP %d: %s → priority %d", d.DSCP, before, d.Priority))
	}
	for _, d := range c.DSCPDelete {
		out = append(out, fmt.Sprintf("DSCP %d: entry removed", d))
	}
	if c.PFCDelay != nil {
		before := "unknown"
		if q != nil && q.PFCDelay != nil {
			before = strconv.Itoa(int(*q.PFCDelay))
		}
		out = append(out, fmt.Sprintf("PFC delay %s → %d", before, *c.PFCDelay))
	}
	if b := c.Buffer; b != nil {
		before := "unknown"
		if q != nil && q.Buffer != nil {
			before = bufferWords(q.Buffer)
		}
		out = append(out, "buffers "+before+" → "+bufferWords(b))
	}
	for _, r := range c.MaxRate {
		before := "unknown"
		if q != nil && q.MaxRateKbps != nil && r.TC < 8 {
			before = RateWords(q.MaxRateKbps[r.TC])
		}
		out = append(out, fmt.Sprintf("maxrate TC%d %s → %s", r.TC, before, RateWords(r.Kbps)))
	}
	if m := c.DCBXMode; m != nil {
		before := "unknown"
		if in.DCBXMode != nil {
			before = *in.DCBXMode
		}
		out = append(out, "DCBX mode "+before+" → "+m.Words())
	}
	for _, r := range c.RewriteDSCP {
		out = append(out, fmt.Sprintf("DSCP rewrite of priority %d: %s → DSCP %d", r.Priority, rewriteWords(q, r.Priority), r.DSCP))
	}
	for _, p := range c.RewriteDSCPDelete {
		out = append(out, fmt.Sprintf("DSCP rewrite of priority %d: %s → none", p, rewriteWords(q, p)))
	}
	if t := c.PFCStormTimeout; t != nil {
		before := "unknown"
		if in.Counters != nil && in.Counters.PFC.StormPreventionTimeoutMs != nil {
			before = StormTimeoutWords(uint16(*in.Counters.PFC.StormPreventionTimeoutMs))
		}
		out = append(out, "PFC storm prevention timeout "+before+" → "+StormTimeoutWords(*t))
	}
	for _, t := range c.RoCEToS {
		before := "unknown"
		for _, r := range in.RoCEPorts() {
			if r.Device == t.Device && r.Port == t.Port && r.DefaultToS != nil {
				before = tosWords(r.DefaultToS.ToS)
			}
		}
		out = append(out, fmt.Sprintf("%s port %d rdma_cm default ToS %s → %s", t.Device, t.Port, before, tosWords(t.ToS)))
	}
	return out
}

// bufferWords renders a buffer split: "prio→buf 0,0,0,1,0,0,0,0; sizes
// 65536,131072 B".
func bufferWords(b *lossless.PortBuffer) string {
	last := 0
	for i, s := range b.SizeBytes {
		if s != 0 {
			last = i
		}
	}
	sizes := make([]string, last+1)
	for i := range sizes {
		sizes[i] = strconv.FormatUint(uint64(b.SizeBytes[i]), 10)
	}
	return "prio→buf " + dcb.JoinNums(b.PrioBuffer[:], ",") + "; sizes " + strings.Join(sizes, ",") + " B"
}

// tosWords renders a ToS byte with its DSCP and ECN: "106 (DSCP 26,
// ECT(0))".
func tosWords(tos uint8) string {
	ecn := [...]string{"Not-ECT", "ECT(1)", "ECT(0)", "CE"}[tos&3]
	return fmt.Sprintf("%d (DSCP %d, %s)", tos, tos>>2, ecn)
}

// A Preview is what a Change would make of an interface: the
// interface as it is and as it would be (its diagnostics and RoCE paths
// judged again on the changed facts), and the change in words.
type Preview struct {
	Before, After engine.Interface
	Lines         []string
}

// PreviewOf returns what c would make of interface name of e, all else
// as it is: the last counters sample with the NIC's trust, PFC delay,
// buffers, rate limits and rdma_cm ToS changed, the local APP table with
// the DSCP entries (where the kernel holds it), the DCBX mode (who runs
// DCBX: the firmware-dcbx diagnostic), judged again by the same rules
// (the diagnostics, the RoCE paths: engine.Engine.PreviewPort). It
// changes nothing. An error says why c cannot be written (Change.Errors)
// or that the interface is unknown.
func PreviewOf(e *engine.Engine, name string, c Change) (Preview, error) {
	return PreviewOver(e, name, nil, c)
}

// PreviewOver is PreviewOf c on interface name as it is once over is in
// force: a host QoS write the NIC read back whose facts the engine does
// not hold yet (its counters sample, DCB netlink's next round, come up to
// a second later), so that the undo previewed at once after a write says
// what it restores from what the NIC now holds. over nil: PreviewOf.
func PreviewOver(e *engine.Engine, name string, over *Change, c Change) (Preview, error) {
	before, ok := e.Interface(name)
	if !ok {
		return Preview{}, fmt.Errorf("%s is not captured", name)
	}
	if c.Empty() {
		return Preview{}, errors.New("nothing to change")
	}
	ch := c.portChange()
	if over != nil && !over.Empty() {
		before, _ = e.PreviewPort(name, over.portChange())
		ch = composePort(over.portChange(), ch)
	}
	if err := c.Errors(before); err != nil {
		return Preview{}, err
	}
	after, _ := e.PreviewPort(name, ch)
	return Preview{Before: before, After: after, Lines: c.Lines(before)}, nil
}

// portChange is what c changes of a port (engine.Engine.PreviewPort).
func (c *Change) portChange() engine.PortChange {
	ch := engine.PortChange{Sample: c.applyTo}
	if len(c.DSCP) > 0 || len(c.DSCPDelete) > 0 {
		ch.App = c.WithDSCP
	}
	if m := c.DCBXMode; m != nil {
		ch.DCBX = &engine.PortDCBX{Mode: m.Words(), FirmwareManaged: m.Firmware()}
	}
	return ch
}

// composePort is a's change, then b's.
func composePort(a, b engine.PortChange) engine.PortChange {
	out := engine.PortChange{DCBX: a.DCBX}
	if b.DCBX != nil {
		out.DCBX = b.DCBX
	}
	out.Sample = func(s *lossless.Sample) { a.Sample(s); b.Sample(s) }
	switch {
	case a.App == nil:
		out.App = b.App
	case b.App == nil:
		out.App = a.App
	default:
		out.App = func(app []dcb.App) []dcb.App { return b.App(a.App(app)) }
	}
	return out
}

// applyTo changes a counters sample as c would change the facts it holds.
func (c *Change) applyTo(s *lossless.Sample) {
	if c.Trust != nil || c.PFCDelay != nil || c.Buffer != nil || len(c.MaxRate) > 0 || len(c.RewriteDSCP)+len(c.RewriteDSCPDelete) > 0 {
		if s.QoS == nil {
			s.QoS = &lossless.PortQoSSample{}
		}
		if c.Trust != nil {
			s.QoS.Trust, s.QoS.TrustDerived = slices.Clone(c.Trust), false
		}
		if c.PFCDelay != nil {
			d := *c.PFCDelay
			s.QoS.PFCDelay = &d
		}
		if c.Buffer != nil {
			b := *c.Buffer
			if s.QoS.Buffer != nil {
				b.TotalBytes = s.QoS.Buffer.TotalBytes
			}
			s.QoS.Buffer = &b
		}
		if len(c.RewriteDSCP)+len(c.RewriteDSCPDelete) > 0 {
			s.QoS.Rewrite = c.withRewrite(s.QoS.Rewrite)
		}
		if len(c.MaxRate) > 0 {
			var m [8]uint64
			if s.QoS.MaxRateKbps != nil {
				m = *s.QoS.MaxRateKbps
			}
			for _, r := range c.MaxRate {
				if r.TC < 8 {
					m[r.TC] = r.Kbps
				}
			}
			s.QoS.MaxRateKbps = &m
		}
	}
	if t := c.PFCStormTimeout; t != nil && s.PFC != nil {
		p := *s.PFC
		p.StormTimeout.Value = uint64(*t)
		s.PFC = &p
	}
	for _, t := range c.RoCEToS {
		for i := range s.RoCE {
			if r := &s.RoCE[i]; r.Device == t.Device && r.Port == t.Port {
				r.DefaultToS = &lossless.RoCEToS{ToS: t.ToS, DSCP: t.ToS >> 2, ECN: t.ToS & 3, Source: "preview"}
			}
		}
	}
}

// A State is what a Change writes, as read from the NIC before or
// after the write: its trust table (Derived: the driver has none and
// derives trust from the APP table, as mlx5 does), the DSCP entries of
// its APP table, its PFC delay and buffer split, its rate limits
// (kbit/s), its DCBX mode byte (DCB_CAP_DCBX_* bits) with DCBXWords the
// mode in words, its PFC storm prevention timeout (ms), and the rdma_cm
// default ToS of the ports written (nil: unknown).
type State struct {
	Trust        []string
	TrustDerived bool
	DSCP         []DSCPPriority
	PFCDelay     *uint16
	Buffer       *lossless.PortBuffer
	MaxRateKbps  *[8]uint64
	DCBX         *uint8
	DCBXWords    string
	StormTimeout *uint16
	// Rewrite is the APP rewrite table, nil where the kernel has none.
	Rewrite []lossless.RewriteEntry
	RoCEToS []RoCEToSState
}

// A RoCEToSState is one RDMA port's rdma_cm default ToS, nil when unknown
// (rdma_cm/DEV not made in configfs), with why.
type RoCEToSState struct {
	Device string
	Port   int
	ToS    *uint8
	Why    string
}

// A WriteResult is what writing a Change did: the state before and
// after (read back), what was written in order, notes, and the failure
// (nil: everything written was read back as asked).
type WriteResult struct {
	Interface     string
	Before, After State
	Written       []string
	Notes         []string
	Err           error
}

// String is the one-line account: the notes, what was written and read
// back, or the failure.
func (r *WriteResult) String() string {
	parts := slices.Clone(r.Notes)
	switch {
	case r.Err != nil:
		parts = append(parts, r.Err.Error())
	case len(r.Written) == 0:
		parts = append(parts, "nothing to change: the NIC already has these settings")
	default:
		parts = append(parts, "written and read back: "+strings.Join(r.Written, ", "))
	}
	return strings.Join(parts, "; ")
}

// Undo returns the change that restores, of what c changed, the state
// before (r.Before): the trust table, the DSCP entries (an entry that did
// not exist is removed), the PFC delay, the buffer split, the rate limits
// of the TCs changed, the DCBX mode, the ToS. A part whose state before
// is unknown (a derived trust, a ToS never set) cannot be restored, nor a
// DCBX mode of both versions exactly: notes says so, one line each.
func (r *WriteResult) Undo(c Change) (undo Change, notes []string) {
	b := r.Before
	if c.Trust != nil {
		if b.Trust == nil || b.TrustDerived {
			notes = append(notes, "the trust before was not a trust table the driver reports: not restored")
		} else {
			undo.Trust = slices.Clone(b.Trust)
		}
	}
	for _, d := range c.DSCP {
		i := slices.IndexFunc(b.DSCP, func(x DSCPPriority) bool { return x.DSCP == d.DSCP })
		if i < 0 {
			undo.DSCPDelete = append(undo.DSCPDelete, d.DSCP)
		} else {
			undo.DSCP = append(undo.DSCP, b.DSCP[i])
		}
	}
	for _, d := range c.DSCPDelete {
		if i := slices.IndexFunc(b.DSCP, func(x DSCPPriority) bool { return x.DSCP == d }); i >= 0 {
			undo.DSCP = append(undo.DSCP, b.DSCP[i])
		}
	}
	if c.PFCDelay != nil && b.PFCDelay != nil {
		d := *b.PFCDelay
		undo.PFCDelay = &d
	}
	if c.Buffer != nil && b.Buffer != nil {
		x := *b.Buffer
		undo.Buffer = &x
	}
	for _, r := range c.MaxRate {
		if b.MaxRateKbps == nil || r.TC > 7 {
			notes = append(notes, fmt.Sprintf("TC %d: the rate limit before was not known: not restored", r.TC))
			continue
		}
		undo.MaxRate = append(undo.MaxRate, TCRate{TC: r.TC, Kbps: b.MaxRateKbps[r.TC]})
	}
	if c.DCBXMode != nil {
		switch {
		case b.DCBX == nil:
			notes = append(notes, "the DCBX mode before was not known: not restored")
		default:
			m, both := DCBXModeOf(*b.DCBX)
			undo.DCBXMode = &m
			if both {
				notes = append(notes, fmt.Sprintf("the DCBX mode before (%s) named IEEE and CEE, which drivers refuse in a write: the undo writes %s with one version", b.DCBXWords, m.Agent))
			}
		}
	}
	for _, p := range rewritePriorities(c) {
		switch before := rewriteDSCPs(b.Rewrite, p); {
		case b.Rewrite == nil:
			notes = append(notes, fmt.Sprintf("priority %d: the DSCP rewrite before was not known: not restored", p))
		case len(before) == 0:
			undo.RewriteDSCPDelete = append(undo.RewriteDSCPDelete, p)
		default:
			undo.RewriteDSCP = append(undo.RewriteDSCP, PrioDSCP{Priority: p, DSCP: uint8(before[0])})
			if len(before) > 1 {
				notes = append(notes, fmt.Sprintf("priority %d was rewritten to %d DSCPs before: the undo restores DSCP %d", p, len(before), before[0]))
			}
		}
	}
	if c.PFCStormTimeout != nil {
		if b.StormTimeout == nil {
			notes = append(notes, "the PFC storm prevention timeout before was not known: not restored")
		} else {
			v := *b.StormTimeout
			undo.PFCStormTimeout = &v
		}
	}
	for _, t := range c.RoCEToS {
		i := slices.IndexFunc(b.RoCEToS, func(x RoCEToSState) bool { return x.Device == t.Device && x.Port == t.Port })
		if i < 0 || b.RoCEToS[i].ToS == nil {
			notes = append(notes, fmt.Sprintf("%s port %d: the ToS before was not known: not restored", t.Device, t.Port))
			continue
		}
		undo.RoCEToS = append(undo.RoCEToS, RoCEToSChange{Device: t.Device, Port: t.Port, ToS: *b.RoCEToS[i].ToS})
	}
	return undo, notes
}

// Args renders c as dcbtop apply's flags ("--trust dscp,pcp --dscp 26=3
// ..."), in the order ApplyQoS writes them.
func (c *Change) Args() []string {
	var out []string
	if len(c.DSCP) > 0 {
		parts := make([]string, len(c.DSCP))
		for i, d := range c.DSCP {
			parts[i] = fmt.Sprintf("%d=%d", d.DSCP, d.Priority)
		}
		out = append(out, "--dscp", strings.Join(parts, ","))
	}
	if len(c.DSCPDelete) > 0 {
		out = append(out, "--dscp-delete", dcb.JoinNums(c.DSCPDelete, ","))
	}
	if c.Trust != nil {
		out = append(out, "--trust", strings.Join(c.Trust, ","))
	}
	if c.PFCDelay != nil {
		out = append(out, "--pfc-delay", strconv.Itoa(int(*c.PFCDelay)))
	}
	if b := c.Buffer; b != nil {
		sizes := make([]string, len(b.SizeBytes))
		for i, s := range b.SizeBytes {
			sizes[i] = strconv.FormatUint(uint64(s), 10)
		}
		out = append(out, "--buffer", dcb.JoinNums(b.PrioBuffer[:], ",")+":"+strings.Join(sizes, ","))
	}
	if len(c.MaxRate) > 0 {
		parts := make([]string, len(c.MaxRate))
		for i, r := range c.MaxRate {
			parts[i] = fmt.Sprintf("%d:%s", r.TC, rateArg(r.Kbps))
		}
		out = append(out, "--maxrate", strings.Join(parts, ","))
	}
	if m := c.DCBXMode; m != nil {
		out = append(out, "--dcbx-mode", m.String())
	}
	if t := c.PFCStormTimeout; t != nil {
		out = append(out, "--pfc-storm-timeout", stormTimeoutArg(*t))
	}
	if len(c.RewriteDSCP) > 0 {
		parts := make([]string, len(c.RewriteDSCP))
		for i, r := range c.RewriteDSCP {
			parts[i] = fmt.Sprintf("%d:%d", r.Priority, r.DSCP)
		}
		out = append(out, "--rewr-dscp", strings.Join(parts, ","))
	}
	if len(c.RewriteDSCPDelete) > 0 {
		out = append(out, "--rewr-dscp-delete", dcb.JoinNums(c.RewriteDSCPDelete, ","))
	}
	for _, t := range c.RoCEToS {
		out = append(out, "--roce-tos", fmt.Sprintf("%s/%d=%d", t.Device, t.Port, t.ToS))
	}
	return out
}

// Changes says what the change would change in the verdicts, one line
// each: every RoCE path hop whose verdict changes ("mlx5_0/1 trust:
// warning → ok"), then the diagnostics it raises ("+ roce-tos-ecn
// warning: ...") and clears ("- trust-pcp-with-dscp-map").
func (pv *Preview) Changes() []string {
	var out []string
	paths := func(in engine.Interface) map[string]lossless.PathVerdict {
		m := map[string]lossless.PathVerdict{}
		if in.Counters != nil {
			for _, p := range in.Counters.RoCEPaths {
				for _, h := range p.Hops {
					m[fmt.Sprintf("%s/%d %s", p.Device, p.Port, h.Hop)] = h.Verdict
				}
			}
		}
		return m
	}
	before, after := paths(pv.Before), paths(pv.After)
	var keys []string
	for k := range after {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if b, a := before[k], after[k]; a != b {
			out = append(out, fmt.Sprintf("%s: %s → %s", k, b, a))
		}
	}
	has := func(in engine.Interface, code string) bool {
		return slices.ContainsFunc(in.Diagnostics, func(d diag.Diagnostic) bool { return string(d.Code) == code })
	}
	for _, d := range pv.After.Diagnostics {
		if !has(pv.Before, string(d.Code)) {
			out = append(out, fmt.Sprintf("+ %s %s: %s", d.Code, d.Severity, d.Message))
		}
	}
	for _, d := range pv.Before.Diagnostics {
		if !has(pv.After, string(d.Code)) {
			out = append(out, fmt.Sprintf("- %s", d.Code))
		}
	}
	return out
}

// rewritePriorities are the priorities whose DSCP rewrite c changes, in
// c's order.
func rewritePriorities(c Change) []uint8 {
	var out []uint8
	for _, r := range c.RewriteDSCP {
		out = append(out, r.Priority)
	}
	return append(out, c.RewriteDSCPDelete...)
}

// rewriteWords says the DSCP rewrite of priority p as q holds it: "none",
// "DSCP 26", "DSCP 26, 28", or "unknown".
func rewriteWords(q *lossless.PortQoSSample, p uint8) string {
	if q == nil || q.Rewrite == nil {
		return "unknown"
	}
	ds := rewriteDSCPs(q.Rewrite, p)
	if len(ds) == 0 {
		return "none"
	}
	words := make([]string, len(ds))
	for i, d := range ds {
		words[i] = strconv.Itoa(int(d))
	}
	return "DSCP " + strings.Join(words, ", ")
}
