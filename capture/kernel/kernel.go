// SPDX-License-Identifier: Apache-2.0

// Package kernel reads and writes an interface's DCB parameters in the
// engine's terms over DCB netlink (capture/dcbnl): what the driver has
// (Local), and an apply that validates first, writes only what changes,
// reads back and says what the driver actually holds (Apply).
package kernel

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Client is what the kernel path needs of *dcbnl.Client (a seam for
// tests).
type Client interface {
	IEEE(ifname string) (*dcbnl.IEEE, error)
	SetIEEE(ifname string, s *dcbnl.IEEESet) error
	DelApps(ifname string, apps []dcbnl.App) error
	DCBX(ifname string) (dcbnl.Mode, error)
	SetDCBX(ifname string, m dcbnl.Mode) error
	DelRewr(ifname string, apps []dcbnl.App) error
}

var _ Client = (*dcbnl.Client)(nil)

// ceeClient is what a CEE write needs of a Client (*dcbnl.Client has it;
// a test's fake may not).
type ceeClient interface {
	SetCEEPFC(ifname string, enabled uint8) (uint8, error)
}

var _ ceeClient = (*dcbnl.Client)(nil)

// ceePFC reports whether PFC p is written through the driver's CEE ops:
// it came from a CEE peer (dcb.PFC.FromCEE, dcbtop's agent adopting it)
// and the NIC runs CEE DCBX (its mode has DCB_CAP_DCBX_VER_CEE), as
// lldpad programs a CEE peer's PFC (lldp_dcbx_nl.c). Otherwise, and when
// the driver turns out to have no CEE ops, the IEEE ops (IEEE_SET).
func ceePFC(c Client, p *dcb.PFC, mode *dcbnl.Mode) (ceeClient, bool) {
	cc, ok := c.(ceeClient)
	return cc, ok && p != nil && p.FromCEE && mode != nil && mode.CEE() && mode.Host()
}

// Dial opens the DCB netlink client.
var Dial = func() (Client, func(), error) {
	c, err := dcbnl.Dial()
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// refusal classifies a dcbnl error that means nothing can be written at
// all: a driver without dcbnl_ops, no such interface, no CAP_NET_ADMIN
// (the kernel's dcb_doit requires it of every RTM_SETDCB). It is nil for
// any other error. op names the operation, f the feature being written
// (0 for the read before).
func refusal(ifname, op string, f engine.Feature, err error) *engine.WriteError {
	e := &engine.WriteError{Interface: ifname, Op: op, Feature: f}
	switch {
	case errors.Is(err, dcbnl.ErrNoDCB):
		e.Kind = engine.WriteNoDCB
	case errors.Is(err, os.ErrNotExist):
		e.Kind = engine.WriteNoInterface
		if _, lerr := capture.LinkByName(ifname); errors.Is(lerr, capture.ErrNoInterface) {
			e.Detail = trimIfname(ifname, lerr) // names the interfaces that exist
		}
	case errors.Is(err, os.ErrPermission):
		e.Kind = engine.WritePermission
	default:
		return nil
	}
	return e
}

// trimIfname drops a leading "IFNAME: " from an error message (the caller
// names the interface already).
func trimIfname(ifname string, err error) string {
	return strings.TrimPrefix(err.Error(), ifname+": ")
}

// A kernelPlan is what Apply writes: each feature to write, or nil
// when it is not given or unchanged.
type kernelPlan struct {
	ets        *dcbnl.ETS
	pfc        *dcbnl.PFC
	delApps    []dcbnl.App
	addApps    []dcbnl.App
	appChange  bool
	unchanged  []engine.Feature // features given but equal to the kernel's
	compareETS etsCompare
}

// etsCompare says which ETS fields were asked for, so that the read-back
// compares those (a driver need not store the recommendation, nor a CBS
// or Willing bit nobody set).
type etsCompare struct {
	reco, willing, cbs bool
}

// kernelState reads an interface's IEEE configuration (DCB_CMD_IEEE_GET)
// and its DCBX mode: from the same reply when it carries DCB_ATTR_DCBX
// (dcbnl_ieee_fill adds it when the driver has getdcbx), else with
// DCB_CMD_GDCBX. mode is nil when the driver reports none.
func kernelState(c Client, ifname string) (ieee *dcbnl.IEEE, mode *dcbnl.Mode, err error) {
	ieee, err = c.IEEE(ifname)
	if err != nil {
		return nil, nil, err
	}
	mode = ieee.DCBX
	if mode == nil {
		if m, err := c.DCBX(ifname); err == nil {
			mode = &m
		}
	}
	return ieee, mode, nil
}

// localState maps an IEEE_GET reply to the engine's local state.
func localState(ieee *dcbnl.IEEE) engine.LocalState {
	p, willing := ParamsFromIEEE(ieee)
	return engine.LocalState{Willing: willing, Params: p}
}

// Apply applies p (the features given) and willing through dcbnl: it
// reads the interface's state once (DCB_CMD_IEEE_GET, which carries the
// DCBX mode when the driver has getdcbx), writes only the features whose
// values change, in the kernel's order ETS, PFC, APP, each in its own
// DCB_CMD_IEEE_SET, then reads back once and compares. Nothing is read
// back when nothing is written. The result carries the state before and
// after, what was written and left alone, and the failure if any (its
// Err).
func Apply(c Client, ifname string, p *dcb.Params, willing *bool) engine.WriteResult {
	res := engine.WriteResult{Interface: ifname, Target: engine.WriteKernel}
	if p == nil {
		p = &dcb.Params{}
	}
	const readOp = "read DCB parameters (IEEE_GET)"
	cur, mode, err := kernelState(c, ifname)
	if err != nil {
		res.Err = refusal(ifname, readOp, 0, err)
		if res.Err == nil {
			res.Err = &engine.WriteError{Kind: engine.WriteReadFailed, Interface: ifname, Op: readOp, Detail: trimIfname(ifname, err)}
		}
		return res
	}
	if mode != nil {
		res.Mode, res.FirmwareManaged = mode.String(), mode.LLDManaged()
	}
	res.Before = localState(cur)
	res.After = res.Before // until something is written
	if err := engine.FirmwareRefusal(ifname, res.FirmwareManaged, p, willing); err != nil {
		res.Err = err
		return res
	}
	// Only what is written is checked: a feature the kernel holds and the
	// operator left alone is not the operator's to fix here.
	if err := p.Errors(); err != nil {
		res.Err = &engine.WriteError{Kind: engine.WriteInvalidParams, Interface: ifname, Detail: err.Error()}
		return res
	}
	plan, err := planKernel(cur, p, willing)
	if err != nil {
		res.Err = &engine.WriteError{Kind: engine.WriteInvalidParams, Interface: ifname, Detail: err.Error()}
		return res
	}
	res.Unchanged = plan.unchanged
	if willing != nil {
		// struct ieee_pfc (linux/dcbnl.h) has no willing field: the
		// kernel's one Willing bit is ETS's.
		res.Notes = append(res.Notes, engine.WriteNote{Kind: engine.NoteETSWillingOnly, Willing: *willing, Already: plan.ets == nil})
	}

	// The kernel applies ETS, PFC then APP, with no rollback; each goes in
	// its own IEEE_SET so that a failure names its feature.
	type step struct {
		feature engine.Feature
		do      func() error
		op      *string // nil or "": "set FEATURE (IEEE_SET)"
	}
	var steps []step
	if plan.ets != nil {
		steps = append(steps, step{feature: engine.FeatureETS, do: func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{ETS: plan.ets}) }})
	}
	if cc, ok := ceePFC(c, p.PFC, mode); plan.pfc != nil && ok {
		op := "set PFC (CEE: PFC_SCFG, SET_ALL)"
		steps = append(steps, step{feature: engine.FeaturePFC, op: &op, do: func() error {
			_, err := cc.SetCEEPFC(ifname, plan.pfc.Enabled)
			if e, isErr := errors.AsType[*dcbnl.Error](err); isErr && !e.Driver && errors.Is(e.Err, syscall.EOPNOTSUPP) {
				// No CEE ops in this driver: its IEEE ones, then.
				op = ""
				return c.SetIEEE(ifname, &dcbnl.IEEESet{PFC: plan.pfc})
			}
			return err
		}})
	} else if plan.pfc != nil {
		steps = append(steps, step{feature: engine.FeaturePFC, do: func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{PFC: plan.pfc}) }})
	}
	if plan.appChange {
		steps = append(steps, step{feature: engine.FeatureApp, do: func() error {
			// APP replaces: remove the entries no longer wanted, then add
			// the new ones (a driver keeps one priority per DSCP, so the
			// order matters).
			if len(plan.delApps) > 0 {
				if err := c.DelApps(ifname, plan.delApps); err != nil {
					return err
				}
			}
			if len(plan.addApps) > 0 {
				if err := c.SetIEEE(ifname, &dcbnl.IEEESet{Apps: plan.addApps}); err != nil {
					if len(plan.delApps) > 0 {
						return fmt.Errorf("%w (after removing APP entries no longer wanted: %d)", err, len(plan.delApps))
					}
					return err
				}
			}
			return nil
		}})
	}
	if len(steps) == 0 {
		return res
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			op := "set " + s.feature.String() + " (IEEE_SET)"
			if s.op != nil && *s.op != "" {
				op = *s.op
			}
			if e := refusal(ifname, op, s.feature, err); e != nil && len(res.Written) == 0 {
				res.Err = e
			} else {
				kind := engine.WritePartial
				if len(res.Written) == 0 {
					kind = engine.WriteRejected
				}
				res.Err = &engine.WriteError{Kind: kind, Interface: ifname, Feature: s.feature, Written: slices.Clone(res.Written), Detail: trimIfname(ifname, err)}
			}
			for _, n := range steps[i+1:] {
				res.Err.NotAttempted = append(res.Err.NotAttempted, n.feature)
			}
			break
		}
		res.Written = append(res.Written, s.feature)
	}

	// Read back, once, whatever happened: a driver that accepts and
	// ignores is reported, not trusted, and after a failure the state
	// after is what an undo and the engine need.
	got, err := c.IEEE(ifname)
	if err != nil {
		res.After = engine.LocalState{}
		if res.Err == nil {
			res.Err = &engine.WriteError{Kind: engine.WriteReadBackFailed, Interface: ifname, Written: slices.Clone(res.Written), Detail: trimIfname(ifname, err)}
		}
		return res
	}
	res.After = localState(got)
	if got.DCBX != nil {
		res.Mode, res.FirmwareManaged = got.DCBX.String(), got.DCBX.LLDManaged()
	}
	if res.Err != nil {
		return res
	}
	var bad []engine.Mismatch
	if plan.ets != nil {
		if m, ok := etsMismatch(got.ETS, plan.ets, plan.compareETS); ok {
			bad = append(bad, m)
		}
	}
	if plan.pfc != nil {
		if m, ok := pfcMismatch(got.PFC, plan.pfc); ok {
			bad = append(bad, m)
		}
	}
	if plan.appChange {
		if m, ok := appMismatch(got.App, p.App); ok {
			bad = append(bad, m)
		}
	}
	if len(bad) > 0 {
		res.Err = &engine.WriteError{Kind: engine.WriteReadBackMismatch, Interface: ifname, Written: slices.Clone(res.Written), Mismatches: bad}
	}
	return res
}

// planKernel maps the given features onto the kernel's structures, keeping
// what is not given from cur, and leaves out the features whose values
// would not change (a PFC write flaps the link on mlx5).
func planKernel(cur *dcbnl.IEEE, p *dcb.Params, willing *bool) (kernelPlan, error) {
	var plan kernelPlan
	if p.ETS != nil || p.ETSReco != nil || willing != nil {
		ets, err := ieeeETS(cur.ETS, p, willing)
		if err != nil {
			return plan, err
		}
		plan.compareETS = etsCompare{reco: p.ETSReco != nil, willing: willing != nil, cbs: p.ETS != nil}
		if cur.ETS != nil && len(etsDiffs(cur.ETS, ets, plan.compareETS)) == 0 {
			plan.unchanged = append(plan.unchanged, engine.FeatureETS)
		} else {
			plan.ets = ets
		}
	}
	if p.PFC != nil {
		pfc := ieeePFC(cur.PFC, p.PFC)
		if cur.PFC != nil && len(pfcDiffs(cur.PFC, pfc)) == 0 {
			plan.unchanged = append(plan.unchanged, engine.FeaturePFC)
		} else {
			plan.pfc = pfc
		}
	}
	if p.App != nil {
		plan.delApps, plan.addApps = appChanges(cur.App, p.App)
		plan.appChange = len(plan.delApps)+len(plan.addApps) > 0
		if !plan.appChange {
			plan.unchanged = append(plan.unchanged, engine.FeatureApp)
		}
	}
	return plan, nil
}

// ieeeETS maps PARAMS ets and ets_reco onto struct ieee_ets: tc_tx_bw =
// tc_rx_bw = tc_bandwidth, tc_tsa = tsa, prio_tc; the recommendation
// fields from ets_reco, or from ets when no ets_reco is given; willing
// from the --willing flag or the current value (the file's willing is
// not used, as for --local); ets_cap is the device's and kept (max_tcs
// when the driver reports none). What is not given is kept from cur.
func ieeeETS(cur *dcbnl.ETS, p *dcb.Params, willing *bool) (*dcbnl.ETS, error) {
	var e dcbnl.ETS
	if cur != nil {
		e = *cur
	} else if p.ETS == nil {
		return nil, errors.New("the driver reports no ETS configuration to keep: give ets too")
	}
	if c := p.ETS; c != nil {
		e.CBS = c.CBS
		e.TCTxBW, e.TCRxBW, e.TCTSA, e.PrioTC = c.TCBandwidth, c.TCBandwidth, tsaBytes(c.TSA), c.PrioTC
		e.TCRecoBW, e.TCRecoTSA, e.RecoPrioTC = c.TCBandwidth, tsaBytes(c.TSA), c.PrioTC
		if e.ETSCap == 0 {
			e.ETSCap = c.MaxTCs
		}
	}
	if r := p.ETSReco; r != nil {
		e.TCRecoBW, e.TCRecoTSA, e.RecoPrioTC = r.TCBandwidth, tsaBytes(r.TSA), r.PrioTC
	}
	if willing != nil {
		e.Willing = *willing
	}
	return &e, nil
}

func tsaBytes(t [8]lldp.TSA) [8]uint8 {
	var b [8]uint8
	for i, v := range t {
		b[i] = uint8(v)
	}
	return b
}

// ieeePFC maps PARAMS pfc onto struct ieee_pfc: pfc_cap, pfc_en, mbc; the
// delay is kept from cur (PARAMS has none).
func ieeePFC(cur *dcbnl.PFC, p *dcb.PFC) *dcbnl.PFC {
	f := &dcbnl.PFC{Cap: p.Cap, Enabled: uint8(p.Enabled)}
	if p.MBC {
		f.MBC = 1
	}
	if cur != nil {
		f.Delay = cur.Delay
	}
	return f
}

// ieeeApp maps a PARAMS app entry onto struct dcb_app (the IEEE selectors
// 1-5 are the kernel's IEEE_8021QAZ_APP_SEL_*).
func ieeeApp(a dcb.App) dcbnl.App {
	return dcbnl.App{Selector: uint8(a.Selector), Priority: a.Priority, Protocol: a.Protocol}
}

// isIEEEApp reports whether a kernel APP entry is an IEEE one (selector
// 1-5, priority 0-7). CEE entries (selector 0, or 1 with a priority
// bitmap) and the PCP table (selector 255) share the kernel's list and are
// left alone.
func isIEEEApp(a dcbnl.App) bool { return a.Selector >= 1 && a.Selector <= 5 && a.Priority <= 7 }

// appChanges returns the IEEE APP entries of cur that want does not have
// (to delete) and those of want that cur does not have (to add).
func appChanges(cur []dcbnl.App, want []dcb.App) (del, add []dcbnl.App) {
	w := make([]dcbnl.App, 0, len(want))
	for _, a := range want {
		if k := ieeeApp(a); !slices.Contains(w, k) {
			w = append(w, k)
		}
	}
	for _, a := range cur {
		if isIEEEApp(a) && !slices.Contains(w, a) && !slices.Contains(del, a) {
			del = append(del, a)
		}
	}
	for _, a := range w {
		if !slices.Contains(cur, a) {
			add = append(add, a)
		}
	}
	return del, add
}

// etsDiffs lists the asked-for fields of struct ieee_ets in which got
// differs from want (got not nil).
func etsDiffs(got, want *dcbnl.ETS, cmp etsCompare) []engine.FieldDiff {
	var d []engine.FieldDiff
	diff := func(name, g, w string) {
		if g != w {
			d = append(d, engine.FieldDiff{Field: name, Got: g, Want: w})
		}
	}
	diff("tc_bandwidth", joinU8(got.TCTxBW[:], "/"), joinU8(want.TCTxBW[:], "/"))
	diff("tsa", joinTSA(got.TCTSA), joinTSA(want.TCTSA))
	diff("prio_tc", joinU8(got.PrioTC[:], "/"), joinU8(want.PrioTC[:], "/"))
	if cmp.reco {
		diff("reco tc_bandwidth", joinU8(got.TCRecoBW[:], "/"), joinU8(want.TCRecoBW[:], "/"))
		diff("reco tsa", joinTSA(got.TCRecoTSA), joinTSA(want.TCRecoTSA))
		diff("reco prio_tc", joinU8(got.RecoPrioTC[:], "/"), joinU8(want.RecoPrioTC[:], "/"))
	}
	if cmp.willing {
		diff("willing", dcb.OnOff(got.Willing), dcb.OnOff(want.Willing))
	}
	if cmp.cbs {
		diff("cbs", dcb.OnOff(got.CBS), dcb.OnOff(want.CBS))
	}
	return d
}

// etsMismatch compares the ETS read back with the ETS written; ok is
// false when they agree.
func etsMismatch(got, want *dcbnl.ETS, cmp etsCompare) (m engine.Mismatch, ok bool) {
	m.Feature = engine.FeatureETS
	if got == nil {
		m.Absent = true
		return m, true
	}
	m.Fields = etsDiffs(got, want, cmp)
	return m, len(m.Fields) > 0
}

func joinTSA(t [8]uint8) string {
	s := make([]string, len(t))
	for i, v := range t {
		s[i] = lldp.TSA(v).String()
	}
	return strings.Join(s, "/")
}

// pfcDiffs lists the fields of struct ieee_pfc in which got (not nil)
// differs from want: pfc_en and mbc (pfc_cap is the device's capability,
// the delay is kept).
func pfcDiffs(got, want *dcbnl.PFC) []engine.FieldDiff {
	var d []engine.FieldDiff
	if g, w := prioList(got.Enabled), prioList(want.Enabled); g != w {
		d = append(d, engine.FieldDiff{Field: "enabled", Got: g, Want: w})
	}
	if (got.MBC != 0) != (want.MBC != 0) {
		d = append(d, engine.FieldDiff{Field: "mbc", Got: dcb.OnOff(got.MBC != 0), Want: dcb.OnOff(want.MBC != 0)})
	}
	return d
}

// pfcMismatch compares the PFC read back with the PFC written; ok is
// false when they agree.
func pfcMismatch(got, want *dcbnl.PFC) (m engine.Mismatch, ok bool) {
	m.Feature = engine.FeaturePFC
	if got == nil {
		m.Absent = true
		return m, true
	}
	m.Fields = pfcDiffs(got, want)
	return m, len(m.Fields) > 0
}

func prioList(en uint8) string { return dcb.PrioSet(en).PrioWords() }

// appMismatch compares the kernel's IEEE APP entries with the wanted
// set; ok is false when they agree.
func appMismatch(got []dcbnl.App, want []dcb.App) (m engine.Mismatch, ok bool) {
	del, add := appChanges(got, want)
	m = engine.Mismatch{Feature: engine.FeatureApp, Missing: engineApps(add), Unexpected: engineApps(del)}
	return m, len(add)+len(del) > 0
}

// engineApps maps IEEE APP entries (isIEEEApp) to PARAMS app entries.
func engineApps(apps []dcbnl.App) []dcb.App {
	var out []dcb.App
	for _, a := range apps {
		out = append(out, dcb.App{Selector: lldp.AppSelector(a.Selector), Protocol: a.Protocol, Priority: a.Priority})
	}
	return out
}

// joinU8 joins numbers with sep, for one-line reports of C struct arrays.
func joinU8(v []uint8, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// ParamsFromIEEE maps what DCB_CMD_IEEE_GET reports into PARAMS: ETS from
// struct ieee_ets (tc_tx_bw as the bandwidth; the recommendation fields
// when the driver fills any), PFC from struct ieee_pfc, and the IEEE
// entries (selectors 1-5) of the kernel's APP table. ieee_pfc has no
// Willing bit: PFC willing is reported as the ETS one, the port's only
// Willing state in dcbnl. The APP table can include entries an agent
// learned from the peer (docs/dcbx.md, "Local parameters from the kernel").
func ParamsFromIEEE(in *dcbnl.IEEE) (p *dcb.Params, willing bool) {
	p = &dcb.Params{}
	if e := in.ETS; e != nil {
		willing = e.Willing
		maxTCs := e.ETSCap
		if maxTCs == 0 || maxTCs > 8 {
			maxTCs = 8
		}
		p.ETS = &dcb.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: maxTCs, PrioTC: e.PrioTC, TCBandwidth: e.TCTxBW, TSA: tsas(e.TCTSA)}
		if e.TCRecoBW != ([8]uint8{}) || e.RecoPrioTC != ([8]uint8{}) || e.TCRecoTSA != ([8]uint8{}) {
			p.ETSReco = &dcb.ETSReco{PrioTC: e.RecoPrioTC, TCBandwidth: e.TCRecoBW, TSA: tsas(e.TCRecoTSA)}
		}
	}
	if f := in.PFC; f != nil {
		p.PFC = &dcb.PFC{Willing: willing, MBC: f.MBC != 0, Cap: f.Cap, Enabled: dcb.PrioSet(f.Enabled)}
	}
	for _, a := range in.App {
		if isIEEEApp(a) {
			p.App = append(p.App, dcb.App{Selector: lldp.AppSelector(a.Selector), Protocol: a.Protocol, Priority: a.Priority})
		}
	}
	return p, willing
}

func tsas(b [8]uint8) (t [8]lldp.TSA) {
	for i, v := range b {
		t[i] = lldp.TSA(v)
	}
	return t
}

// Local reads an interface's local parameters and DCBX mode from the
// kernel. ok is false when the device has no dcbnl support (veth, virtio,
// bonds...), in which case another local source applies.
func Local(c Client, ifname string, now time.Time) (engine.LocalChanged, bool) {
	ieee, mode, err := kernelState(c, ifname)
	if err != nil {
		return engine.LocalChanged{}, false
	}
	st := localState(ieee)
	ev := engine.LocalChanged{Interface: ifname, At: now, Source: engine.SourceDCBNL, Willing: st.Willing, Params: st.Params}
	if mode != nil {
		ev.Mode, ev.FirmwareManaged = mode.String(), mode.LLDManaged()
	}
	return ev, true
}

// dcbAppSelPCP is DCB_APP_SEL_PCP (linux/dcbnl.h, Linux 6.2+), the trust
// table's entry for the VLAN PCP.
const dcbAppSelPCP = 255

// QoSFromIEEE maps how the NIC classifies and buffers received traffic
// from what DCB_CMD_IEEE_GET reports: the APP trust table (or, without
// one, the trust mlx5 sets when the APP table changes: DSCP first when
// DSCP entries exist, mlx5e_dcbnl_ieee_setapp; marked derived), the PFC
// delay, the buffer split, the per-TC rate limits and the APP rewrite
// table (Linux 6.3). Nil for nil.
func QoSFromIEEE(in *dcbnl.IEEE) *lossless.PortQoSSample {
	if in == nil {
		return nil
	}
	q := &lossless.PortQoSSample{Source: "dcbnl IEEE_GET"}
	if in.AppTrust != nil {
		q.Trust = []string{}
		for _, sel := range in.AppTrust {
			switch {
			case sel == dcbAppSelPCP:
				q.Trust = append(q.Trust, "pcp")
			case sel >= 1 && sel <= 5:
				q.Trust = append(q.Trust, lldp.AppSelector(sel).String())
			default:
				q.Trust = append(q.Trust, fmt.Sprintf("selector-%d", sel))
			}
		}
	} else {
		q.Trust, q.TrustDerived = []string{"pcp"}, true
		for _, a := range in.App {
			if a.Selector == uint8(lldp.AppSelDSCP) {
				q.Trust = []string{"dscp", "pcp"}
				break
			}
		}
	}
	if in.PFC != nil {
		d := in.PFC.Delay
		q.PFCDelay = &d
	}
	if b := in.Buffer; b != nil {
		q.Buffer = &lossless.PortBuffer{PrioBuffer: b.PrioBuffer, SizeBytes: b.Size, TotalBytes: b.TotalSize}
	}
	if in.MaxRate != nil {
		m := *in.MaxRate
		q.MaxRateKbps = &m
	}
	q.Rewrite = rewriteEntries(in.Rewr)
	return q
}

// rewriteEntries maps the kernel's APP rewrite table (nil: the kernel
// has none) to the snapshot's entries, the selectors by name.
func rewriteEntries(rewr []dcbnl.App) []lossless.RewriteEntry {
	if rewr == nil {
		return nil
	}
	out := []lossless.RewriteEntry{}
	for _, a := range rewr {
		sel := fmt.Sprintf("selector-%d", a.Selector)
		switch a.Selector {
		case uint8(lldp.AppSelDSCP):
			sel = "dscp"
		case dcbAppSelPCP:
			sel = "pcp"
		}
		out = append(out, lossless.RewriteEntry{Selector: sel, Priority: a.Priority, Protocol: a.Protocol})
	}
	return out
}
