// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
)

// NICState says whether the NIC holds one operational feature that
// dcbtop's agent negotiated. lldpad, the agent dcbtop's replaces, programs
// the driver after every resolution (DCB_CMD_IEEE_SET); dcbtop's agent
// does the same and reads back (capture/session, capture/kernel.Apply),
// and this says what the read-back showed.
type NICState string

// The states of a feature in the NIC.
const (
	// NICInForce: the NIC reads back what is operational.
	NICInForce NICState = "in-nic"
	// NICDiffers: the NIC reads back something else (a driver that
	// ignored the write, a write that failed, another program that
	// changed it since): NICProgram.Params says what it holds.
	NICDiffers NICState = "differs"
	// NICWriting: a write of the operational parameters is under way.
	NICWriting NICState = "writing"
	// NICNotProgrammable: nothing can be written to this NIC
	// (NICProgram.Why says why: no DCB in the driver, the firmware runs
	// DCBX, no CAP_NET_ADMIN, CEE parameters).
	NICNotProgrammable NICState = "not-programmable"
)

// Words says the state as the screen's Operational column does.
func (s NICState) Words() string {
	switch s {
	case NICInForce:
		return "in the NIC"
	case NICDiffers:
		return "NIC differs"
	case NICWriting:
		return "writing NIC"
	case NICNotProgrammable:
		return "not in NIC"
	}
	return string(s)
}

// NICProgram says, per operational feature, whether the NIC holds what
// dcbtop's agent negotiated: the Interface's "nic" object, present only
// while dcbtop's agent is the local source (another agent, the firmware
// or the operator's writes program the NIC otherwise). A feature that is
// not operational is null.
type NICProgram struct {
	ETS *NICState `json:"ets"`
	PFC *NICState `json:"pfc"`
	App *NICState `json:"app"`
	// Why says why nothing is programmed (not-programmable), or why the
	// NIC differs when the last write failed; null otherwise.
	Why *string `json:"why"`
	// Params are what the NIC holds as last read through DCB netlink
	// (IEEE_GET), null when the driver has no DCB.
	Params *dcb.Params `json:"params"`
	// Brief says why nothing is programmed in a few words, for the
	// screen's panes ("negotiated, not programmed (no DCB in this
	// driver)"); "" when the NIC can be programmed. Not part of the JSON
	// contract: Why says it there.
	Brief string `json:"-"`
}

// States returns the feature states in the order ETS, PFC, APP, with
// their names, leaving out features that are not operational.
func (n *NICProgram) States() []NamedNICState {
	if n == nil {
		return nil
	}
	var out []NamedNICState
	for _, f := range []struct {
		feature Feature
		s       *NICState
	}{{FeatureETS, n.ETS}, {FeaturePFC, n.PFC}, {FeatureApp, n.App}} {
		if f.s != nil {
			out = append(out, NamedNICState{Feature: f.feature, State: *f.s})
		}
	}
	return out
}

// Of returns feature's state, "" when it is not operational.
func (n *NICProgram) Of(f Feature) NICState {
	for _, s := range n.States() {
		if s.Feature == f {
			return s.State
		}
	}
	return ""
}

// A NamedNICState is one feature's NICState.
type NamedNICState struct {
	Feature Feature
	State   NICState
}

// A NICWrite reports dcbtop's agent programming the NIC with the
// operational parameters: started (Pending), or done, Err the failure
// (nil when the write and its read-back succeeded; the state read back
// comes as a LocalChanged from SourceDCBNL).
type NICWrite struct {
	Interface string
	At        time.Time
	Pending   bool
	Err       *WriteError
}

func (NICWrite) isEvent() {}

// nicState is what a port knows of the agent's writes to its NIC.
type nicState struct {
	pending bool
	err     *WriteError
}

// A nicWhy is why dcbtop's agent cannot program a NIC: the words of
// NICProgram.Why and Brief.
type nicWhy struct{ why, brief string }

// Why dcbtop's agent cannot program a NIC.
var (
	nicWhyNoDCB = nicWhy{"negotiated, not programmed (no DCB in this driver: DCB netlink reports nothing for this interface)",
		"negotiated, not programmed (no DCB in this driver)"}
	// The firmware programs the NIC with what it negotiates itself
	// (DCB_CAP_DCBX_LLD_MANAGED).
	nicWhyFirmware = nicWhy{"the NIC firmware runs DCBX (LLD_MANAGED): it programs the NIC with what it negotiates, not with dcbtop's",
		"not programmed (the NIC firmware runs DCBX)"}
	nicWhyNetAdmin = nicWhy{"negotiated, not programmed: writing DCB netlink needs CAP_NET_ADMIN (run as root)",
		"negotiated, not programmed (needs CAP_NET_ADMIN)"}
	// nicWhyCEEStrict: a CEE peer's priority groups put a priority in
	// PGID 15 (strict priority) or a reserved PGID, which has no IEEE
	// traffic class to write (IEEE_SET takes a TC 0..7 per priority).
	nicWhyCEEStrict = "the CEE peer's priority groups put a priority in PGID 15 (strict priority, CEE DCBX 1.01 PG sub-TLV) or a reserved PGID, which no IEEE traffic class (DCB_CMD_IEEE_SET) holds: ETS not programmed"
)

// dcbnlSource is the index of SourceDCBNL in a port's sources.
var dcbnlSource = slices.Index(localPrecedence[:], SourceDCBNL)

// nicProgram is p's NICProgram under host facts h: nil unless dcbtop's
// agent is the local source and something is operational.
func (p *port) nicProgram(h HostFacts) *NICProgram {
	op := p.operational
	if p.localSource != SourceAgent || op == nil {
		return nil
	}
	n := &NICProgram{}
	nic := p.sources[dcbnlSource]
	if nic.set {
		n.Params = nic.params
	}
	no := p.nicWhy(h)
	why := no.why
	n.Brief = no.brief
	ets, pfc, app := nicDiffers(op, nic.params)
	state := func(differs bool) *NICState {
		s := NICInForce
		switch {
		case why != "":
			s = NICNotProgrammable
		case !differs:
		case p.nic.pending:
			s = NICWriting
		default:
			s = NICDiffers
		}
		return &s
	}
	etsWhy := ""
	if op.ETS != nil {
		n.ETS = state(ets)
		if why == "" && !ieeeClasses(op.ETS) {
			s := NICNotProgrammable
			n.ETS, etsWhy = &s, nicWhyCEEStrict
		}
	}
	if op.PFC != nil {
		n.PFC = state(pfc)
	}
	if op.App != nil {
		n.App = state(app)
	}
	if why == "" && p.nic.err != nil && (ets || pfc || app) {
		why = "the last write: " + p.nic.err.Error()
	}
	if why == "" {
		why = etsWhy
	}
	if why != "" {
		n.Why = &why
	}
	return n
}

// ieeeClasses reports whether e's priority-to-class map fits IEEE traffic
// classes 0..7: always for IEEE ETS; for priority groups adopted from a
// CEE peer, when no priority is in PGID 15 (strict) or a reserved PGID.
// A CEE PGID 0..7 is written as that traffic class, its bandwidth as the
// class's, with the ETS TSA (as dcb.ParamsFromDU maps it); the NIC is
// programmed through the IEEE ops (DCB_CMD_IEEE_SET), which every DCB
// driver of Linux has besides or instead of the CEE ones.
func ieeeClasses(e *dcb.ETS) bool {
	for _, tc := range e.PrioTC {
		if tc > 7 {
			return false
		}
	}
	return true
}

// nicWhy says why dcbtop's agent cannot program p's NIC under h (zero
// when it can).
func (p *port) nicWhy(h HostFacts) nicWhy {
	switch {
	case p.firmware:
		return nicWhyFirmware
	case !p.sources[dcbnlSource].set:
		return nicWhyNoDCB
	case !h.NetAdmin:
		return nicWhyNetAdmin
	}
	return nicWhy{}
}

// NICWant returns what dcbtop's agent writes to in's NIC so that it holds
// the operational parameters, and whether anything is to be written:
// the negotiated fields of the operational ETS (priority to TC, TC
// bandwidth, TSA), PFC (the enabled priorities) and APP table, on the
// NIC's own capability fields (ETS Max TCs and CBS, PFC capability and
// MBC, which describe the device, not the negotiation: IEEE Std
// 802.1Q-2018, D.2.9 and D.2.11). False when the NIC already holds them
// or cannot be programmed (in.NIC).
func NICWant(in Interface) (*dcb.Params, bool) {
	n := in.NIC
	if n == nil {
		return nil, false
	}
	need := false
	for _, s := range n.States() {
		need = need || s.State != NICInForce && s.State != NICNotProgrammable
	}
	if !need {
		return nil, false
	}
	writable := func(s *NICState) bool { return s != nil && *s != NICNotProgrammable }
	op, nic := in.Operational, n.Params
	want := &dcb.Params{}
	if e := op.ETS; e != nil && writable(n.ETS) {
		w := *e
		w.Willing, w.FromCEE = false, false
		if nic != nil && nic.ETS != nil {
			w.MaxTCs, w.CBS = nic.ETS.MaxTCs, nic.ETS.CBS
		}
		want.ETS = &w
	}
	if f := op.PFC; f != nil && writable(n.PFC) {
		w := *f
		w.Willing = false // FromCEE kept: the writer uses the CEE ops for a CEE peer's PFC where the NIC runs CEE
		if nic != nil && nic.PFC != nil {
			w.Cap, w.MBC = nic.PFC.Cap, nic.PFC.MBC
		}
		want.PFC = &w
	}
	if op.App != nil && writable(n.App) {
		want.App = slices.Clone(op.App)
	}
	return want, true
}

// nicDiffers compares the operational parameters with the NIC's on what
// programming sets (NICWant): ETS priority to TC, bandwidth and TSA; the
// PFC enabled priorities; the IEEE APP entries as a set. A feature the
// NIC does not report differs.
func nicDiffers(op, nic *dcb.Params) (ets, pfc, app bool) {
	if nic == nil {
		return op.ETS != nil, op.PFC != nil, op.App != nil
	}
	if a, b := op.ETS, nic.ETS; a != nil {
		ets = b == nil || a.PrioTC != b.PrioTC || a.TCBandwidth != b.TCBandwidth || a.TSA != b.TSA
	}
	if a, b := op.PFC, nic.PFC; a != nil {
		pfc = b == nil || a.Enabled != b.Enabled
	}
	if op.App != nil {
		app = !sameApps(op.App, nic.App)
	}
	return ets, pfc, app
}

// sameApps reports whether a and b hold the same entries, in any order.
func sameApps(a, b []dcb.App) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// nicDiagnostic is the nic-differs warning of in, when a feature of its
// NICProgram differs (not while a write is under way).
func nicDiagnostic(in *Interface) (diag.Diagnostic, bool) {
	var bad []Feature
	for _, s := range in.NIC.States() {
		if s.State == NICDiffers {
			bad = append(bad, s.Feature)
		}
	}
	if len(bad) == 0 {
		return diag.Diagnostic{}, false
	}
	msg := "operational " + featureList(bad) + " (negotiated by dcbtop's agent) not what the NIC holds: the NIC runs " + in.NIC.Params.String()
	if in.NIC.Why != nil {
		msg += "; " + *in.NIC.Why
	}
	return diag.Newf(diag.CodeNICDiffers, diag.SeverityWarning, strings.ToLower(bad[0].String()),
		"the peer is told one thing and the NIC runs another: check the driver's messages (dmesg), then compare with dcb ets show / dcb pfc show DEV",
		"%s", msg), true
}

// NICAgentStartNote says what starting dcbtop's agent does to the NIC,
// for its confirmation: starting the agent is a write to the kernel.
const NICAgentStartNote = "Where the driver has DCB, the agent then writes the parameters in force to the NIC after every change (DCB_CMD_IEEE_SET) and reads them back; some drivers reset the link on a PFC or ETS change (mlx5, ixgbe)."

// NICWriteNote says what a change of in's operational parameters to next
// (the preview of an operator's change through dcbtop's agent) does to
// the NIC, for its confirmation: nothing without the agent, why nothing
// is programmed, or that the change is written, with a warning where
// PFC changes: mlx5's ieee_setpfc and ixgbe's reset the link
// (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c,
// intel/ixgbe/ixgbe_dcb_nl.c). "" when nothing is to be said.
func NICWriteNote(in Interface, next *dcb.Params) string {
	n := in.NIC
	switch {
	case n == nil || next == nil:
		return ""
	case n.Brief != "":
		return "NIC: " + n.Brief + "."
	}
	cur := in.Operational
	if cur == nil {
		cur = &dcb.Params{}
	}
	ets, pfc, app := nicDiffers(next, cur)
	switch {
	case pfc:
		return "dcbtop's agent writes the new PFC to the NIC and reads it back: some drivers reset the link on a PFC change (mlx5, ixgbe)."
	case ets || app:
		return "dcbtop's agent writes the change to the NIC and reads it back."
	}
	return ""
}
