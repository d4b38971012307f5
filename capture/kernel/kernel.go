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
	"time"

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
}

var _ Client = (*dcbnl.Client)(nil)

// Dial opens the DCB netlink client.
var Dial = func() (Client, func(), error) {
	c, err := dcbnl.Dial()
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// Error turns a dcbnl error into dcbtop's one-line messages.
func Error(ifname, op string, err error) error {
	switch {
	case errors.Is(err, dcbnl.ErrNoDCB):
		return fmt.Errorf("%s has no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i %s to be the DCBX agent", ifname, ifname)
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := capture.LinkByName(ifname); errors.Is(lerr, capture.ErrNoInterface) {
			return fmt.Errorf("%s: %w", ifname, lerr)
		}
		return fmt.Errorf("%s: no such interface", ifname)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%s: %s: permission denied (needs CAP_NET_ADMIN: run as root)", ifname, op)
	}
	return fmt.Errorf("%s: %s: %s", ifname, op, trimIfname(ifname, err))
}

// trimIfname drops a leading "IFNAME: " from an error message (the caller
// names the interface already).
func trimIfname(ifname string, err error) string {
	return strings.TrimPrefix(err.Error(), ifname+": ")
}

// FirmwareManaged is the refusal when the NIC firmware runs DCBX.
func FirmwareManaged(ifname string) error {
	return fmt.Errorf("%s: the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags %s fw-lldp-agent off; i40e: ethtool --set-priv-flags %s disable-fw-lldp on), or configure the switch", ifname, ifname, ifname)
}

// A kernelPlan is what Apply writes: each feature to write, or nil
// when it is not given or unchanged.
type kernelPlan struct {
	ets        *dcbnl.ETS
	pfc        *dcbnl.PFC
	delApps    []dcbnl.App
	addApps    []dcbnl.App
	appChange  bool
	unchanged  []string // features given but equal to the kernel's
	compareETS etsCompare
}

// etsCompare says which ETS fields were asked for, so that the read-back
// compares those (a driver need not store the recommendation, nor a CBS
// or Willing bit nobody set).
type etsCompare struct {
	reco, willing, cbs bool
}

// Apply applies p (the features given) and willing through dcbnl,
// then reads them back. It returns the lines to print on success (and the
// notes to print before an error), and an error naming what was applied
// before a failure.
func Apply(c Client, ifname string, p *engine.Params, willing *bool) ([]string, error) {
	if p == nil {
		p = &engine.Params{}
	}
	cur, err := c.IEEE(ifname)
	if err != nil {
		return nil, Error(ifname, "read DCB parameters (IEEE_GET)", err)
	}
	managed := false
	if cur.DCBX != nil {
		managed = cur.DCBX.LLDManaged()
	} else if m, err := c.DCBX(ifname); err == nil {
		managed = m.LLDManaged()
	}
	wantETS := p.ETS != nil || p.ETSReco != nil || willing != nil
	if managed && (wantETS || p.PFC != nil) {
		return nil, FirmwareManaged(ifname)
	}
	// Only what is written is checked: a feature the kernel holds and the
	// operator left alone is not the operator's to fix here.
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("%s: invalid parameters, nothing sent: %w", ifname, err)
	}
	plan, err := planKernel(cur, p, willing)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ifname, err)
	}
	var notes []string
	if willing != nil {
		verb := "set " + engine.OnOff(*willing)
		if plan.ets == nil {
			verb = "already " + engine.OnOff(*willing)
		}
		notes = append(notes, fmt.Sprintf("%s: PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing %s", ifname, verb))
	}

	// The kernel applies ETS, PFC then APP, with no rollback; each goes in
	// its own IEEE_SET so that a failure names its feature.
	type step struct {
		name string
		do   func() error
	}
	var steps []step
	if plan.ets != nil {
		steps = append(steps, step{"ETS", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{ETS: plan.ets}) }})
	}
	if plan.pfc != nil {
		steps = append(steps, step{"PFC", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{PFC: plan.pfc}) }})
	}
	if plan.appChange {
		steps = append(steps, step{"APP", func() error {
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
		return append(notes, fmt.Sprintf("%s: nothing to change: the driver already has these parameters (nothing rewritten)", ifname)), nil
	}
	var applied []string
	for i, s := range steps {
		if err := s.do(); err != nil {
			if len(applied) == 0 && (errors.Is(err, dcbnl.ErrNoDCB) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission)) {
				return notes, Error(ifname, "set "+s.name+" (IEEE_SET)", err)
			}
			var parts []string
			for _, a := range applied {
				parts = append(parts, a+" applied")
			}
			parts = append(parts, s.name+" failed: "+trimIfname(ifname, err))
			for _, n := range steps[i+1:] {
				parts = append(parts, n.name+" not attempted")
			}
			return notes, fmt.Errorf("%s: %s", ifname, strings.Join(parts, "; "))
		}
		applied = append(applied, s.name)
	}

	// Read back: a driver that accepts and ignores is reported, not
	// trusted.
	got, err := c.IEEE(ifname)
	if err != nil {
		return notes, fmt.Errorf("%s: %s applied, but reading them back failed: %s", ifname, strings.Join(applied, ", "), trimIfname(ifname, err))
	}
	var bad []string
	if plan.ets != nil {
		if d := etsDiffs(got.ETS, plan.ets, plan.compareETS); len(d) > 0 {
			bad = append(bad, "driver accepted ETS but reports different values: "+strings.Join(d, "; "))
		}
	}
	if plan.pfc != nil {
		if d := pfcDiffs(got.PFC, plan.pfc); len(d) > 0 {
			bad = append(bad, "driver accepted PFC but reports different values: "+strings.Join(d, "; "))
		}
	}
	if plan.appChange {
		if d := appDiffs(got.App, p.App); len(d) > 0 {
			bad = append(bad, "driver accepted APP but reports different values: "+strings.Join(d, "; "))
		}
	}
	if len(bad) > 0 {
		return notes, fmt.Errorf("%s: %s", ifname, strings.Join(bad, "; "))
	}
	line := fmt.Sprintf("%s: applied through dcbnl and read back: %s", ifname, strings.Join(applied, ", "))
	if len(plan.unchanged) > 0 {
		line += "; " + strings.Join(plan.unchanged, ", ") + " unchanged (not rewritten)"
	}
	return append(notes, line), nil
}

// planKernel maps the given features onto the kernel's structures, keeping
// what is not given from cur, and leaves out the features whose values
// would not change (a PFC write flaps the link on mlx5).
func planKernel(cur *dcbnl.IEEE, p *engine.Params, willing *bool) (kernelPlan, error) {
	var plan kernelPlan
	if p.ETS != nil || p.ETSReco != nil || willing != nil {
		ets, err := ieeeETS(cur.ETS, p, willing)
		if err != nil {
			return plan, err
		}
		plan.compareETS = etsCompare{reco: p.ETSReco != nil, willing: willing != nil, cbs: p.ETS != nil}
		if cur.ETS != nil && len(etsDiffs(cur.ETS, ets, plan.compareETS)) == 0 {
			plan.unchanged = append(plan.unchanged, "ETS")
		} else {
			plan.ets = ets
		}
	}
	if p.PFC != nil {
		pfc := ieeePFC(cur.PFC, p.PFC)
		if cur.PFC != nil && len(pfcDiffs(cur.PFC, pfc)) == 0 {
			plan.unchanged = append(plan.unchanged, "PFC")
		} else {
			plan.pfc = pfc
		}
	}
	if p.App != nil {
		plan.delApps, plan.addApps = appChanges(cur.App, p.App)
		plan.appChange = len(plan.delApps)+len(plan.addApps) > 0
		if !plan.appChange {
			plan.unchanged = append(plan.unchanged, "APP")
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
func ieeeETS(cur *dcbnl.ETS, p *engine.Params, willing *bool) (*dcbnl.ETS, error) {
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
func ieeePFC(cur *dcbnl.PFC, p *engine.PFC) *dcbnl.PFC {
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
func ieeeApp(a engine.App) dcbnl.App {
	return dcbnl.App{Selector: uint8(a.Selector), Priority: a.Priority, Protocol: a.Protocol}
}

// isIEEEApp reports whether a kernel APP entry is an IEEE one (selector
// 1-5, priority 0-7). CEE entries (selector 0, or 1 with a priority
// bitmap) and the PCP table (selector 255) share the kernel's list and are
// left alone.
func isIEEEApp(a dcbnl.App) bool { return a.Selector >= 1 && a.Selector <= 5 && a.Priority <= 7 }

// appChanges returns the IEEE APP entries of cur that want does not have
// (to delete) and those of want that cur does not have (to add).
func appChanges(cur []dcbnl.App, want []engine.App) (del, add []dcbnl.App) {
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

// etsDiffs lists the asked-for fields in which got differs from want.
func etsDiffs(got, want *dcbnl.ETS, cmp etsCompare) []string {
	if got == nil {
		return []string{"no ETS reported"}
	}
	var d []string
	diff := func(name, g, w string) {
		if g != w {
			d = append(d, fmt.Sprintf("%s %s, want %s", name, g, w))
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
		diff("willing", engine.OnOff(got.Willing), engine.OnOff(want.Willing))
	}
	if cmp.cbs {
		diff("cbs", engine.OnOff(got.CBS), engine.OnOff(want.CBS))
	}
	return d
}

func joinTSA(t [8]uint8) string {
	s := make([]string, len(t))
	for i, v := range t {
		s[i] = lldp.TSA(v).String()
	}
	return strings.Join(s, "/")
}

// pfcDiffs lists the fields in which got differs from want: pfc_en and
// mbc (pfc_cap is the device's capability, the delay is kept).
func pfcDiffs(got, want *dcbnl.PFC) []string {
	if got == nil {
		return []string{"no PFC reported"}
	}
	var d []string
	if g, w := prioList(got.Enabled), prioList(want.Enabled); g != w {
		d = append(d, fmt.Sprintf("enabled %s, want %s", g, w))
	}
	if (got.MBC != 0) != (want.MBC != 0) {
		d = append(d, fmt.Sprintf("mbc %s, want %s", engine.OnOff(got.MBC != 0), engine.OnOff(want.MBC != 0)))
	}
	return d
}

func prioList(en uint8) string { return engine.PrioSet(en).PrioWords() }

// appDiffs compares the kernel's IEEE APP entries with the wanted set.
func appDiffs(got []dcbnl.App, want []engine.App) []string {
	del, add := appChanges(got, want)
	var d []string
	if len(add) > 0 {
		d = append(d, "missing "+appList(add))
	}
	if len(del) > 0 {
		d = append(d, "unexpected "+appList(del))
	}
	return d
}

func appList(apps []dcbnl.App) string {
	s := make([]string, len(apps))
	for i, a := range apps {
		s[i] = fmt.Sprintf("%s %d priority %d", lldp.AppSelector(a.Selector), a.Protocol, a.Priority)
	}
	return strings.Join(s, ", ")
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
func ParamsFromIEEE(in *dcbnl.IEEE) (p *engine.Params, willing bool) {
	p = &engine.Params{}
	if e := in.ETS; e != nil {
		willing = e.Willing
		maxTCs := e.ETSCap
		if maxTCs == 0 || maxTCs > 8 {
			maxTCs = 8
		}
		p.ETS = &engine.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: maxTCs, PrioTC: e.PrioTC, TCBandwidth: e.TCTxBW, TSA: tsas(e.TCTSA)}
		if e.TCRecoBW != ([8]uint8{}) || e.RecoPrioTC != ([8]uint8{}) || e.TCRecoTSA != ([8]uint8{}) {
			p.ETSReco = &engine.ETSReco{PrioTC: e.RecoPrioTC, TCBandwidth: e.TCRecoBW, TSA: tsas(e.TCRecoTSA)}
		}
	}
	if f := in.PFC; f != nil {
		p.PFC = &engine.PFC{Willing: willing, MBC: f.MBC != 0, Cap: f.Cap, Enabled: engine.PrioSet(f.Enabled)}
	}
	for _, a := range in.App {
		if isIEEEApp(a) {
			p.App = append(p.App, engine.App{Selector: lldp.AppSelector(a.Selector), Protocol: a.Protocol, Priority: a.Priority})
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
	ieee, err := c.IEEE(ifname)
	if err != nil {
		return engine.LocalChanged{}, false
	}
	p, willing := ParamsFromIEEE(ieee)
	ev := engine.LocalChanged{Interface: ifname, At: now, Source: engine.SourceDCBNL, Willing: willing, Params: p}
	mode := ieee.DCBX
	if mode == nil {
		if m, err := c.DCBX(ifname); err == nil {
			mode = &m
		}
	}
	if mode != nil {
		ev.Mode, ev.FirmwareManaged = mode.String(), mode.LLDManaged()
	}
	return ev, true
}
