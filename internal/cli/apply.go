package cli

// dcbtop apply: set local DCB parameters (only the features given) and/or
// the DCBX Willing state, through a running dcbtop agent's control socket
// when one serves the interface, otherwise through the kernel (dcbnl
// IEEE_SET, read back and compared).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// applyOptions are the parsed arguments of dcbtop apply.
type applyOptions struct {
	iface   string
	file    string // "" when none; "-" is stdin
	willing *bool
}

// parseApply parses the arguments after "apply". Flags and the FILE may
// come in any order.
func parseApply(args []string) (*applyOptions, error) {
	o := &applyOptions{}
	var ifaces, files []string
	fs := flag.NewFlagSet("dcbtop apply", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("i", "interface", func(s string) error {
		if s == "" {
			return errors.New("empty interface name")
		}
		ifaces = append(ifaces, s)
		return nil
	})
	fs.Func("willing", "on|off", func(s string) error {
		var w bool
		switch s {
		case "on":
			w = true
		case "off":
		default:
			return errors.New("want on or off")
		}
		o.willing = &w
		return nil
	})
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(ifaces) == 0:
		return nil, errors.New("apply: name the interface with -i")
	case len(ifaces) > 1:
		return nil, errors.New("apply: exactly one -i")
	case len(files) > 1:
		return nil, fmt.Errorf("apply: unexpected argument %q (one PARAMS FILE at most)", files[1])
	case len(files) == 0 && o.willing == nil:
		return nil, errors.New("apply: give a PARAMS FILE (- for stdin), --willing on|off, or both")
	}
	o.iface = ifaces[0]
	if len(files) == 1 {
		o.file = files[0]
	}
	return o, nil
}

// runApply is dcbtop apply.
func runApply(ctx context.Context, args []string, env Env) int {
	o, err := parseApply(args)
	if err != nil {
		return usageError(env, err, "", usage)
	}
	if err := apply(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: %s\n", control.OneLine(err.Error()))
		return ExitFailure
	}
	return ExitOK
}

// readParamsFile parses a PARAMS file, or stdin for "-".
func readParamsFile(name string, stdin io.Reader) (*engine.Params, error) {
	var r io.Reader
	if name == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		r, name = stdin, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, errors.Unwrap(err))
		}
		defer f.Close()
		r = f
	}
	p, err := engine.ParseParams(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

func apply(ctx context.Context, o *applyOptions, env Env) error {
	var params *engine.Params
	if o.file != "" {
		var err error
		if params, err = readParamsFile(o.file, env.Stdin); err != nil {
			return err
		}
		if params.Groups() == 0 {
			if o.willing == nil {
				return fmt.Errorf("%s: no feature given (ets, ets_reco, pfc or app)", o.file)
			}
			params = nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// A running agent first: it owns what is advertised on the interface.
	path := control.Path(control.RunDir(), o.iface)
	resp, err := control.Do(path, control.Request{Op: "apply", Params: params, Willing: o.willing}, control.Timeout+time.Second)
	var de *control.DialError
	unreachable := ""
	switch {
	case errors.As(err, &de):
		// No agent here: the kernel. (Or one we may not talk to: said
		// below if the kernel fails too.)
		if errors.Is(de.Err, os.ErrPermission) {
			unreachable = path
		}
	case err != nil:
		return fmt.Errorf("%s: the dcbtop agent's control socket %s did not answer: %v", o.iface, path, err)
	case !resp.OK:
		return fmt.Errorf("%s: the running dcbtop agent refused: %s", o.iface, resp.Error)
	default:
		fmt.Fprintln(env.Stdout, agentReport(o.iface, resp))
		return nil
	}
	c, closeC, err := dialDCB()
	if err != nil {
		return fmt.Errorf("%s: DCB netlink: %w", o.iface, err)
	}
	defer closeC()
	lines, err := applyKernel(c, o.iface, params, o.willing)
	for _, l := range lines {
		fmt.Fprintln(env.Stdout, l)
	}
	if err != nil && unreachable != "" {
		err = fmt.Errorf("%w (a dcbtop agent's control socket, %s, may not be reached without root)", err, unreachable)
	}
	return err
}

// agentReport is the line printed after an apply through the agent.
func agentReport(ifname string, resp control.Response) string {
	agent := "the running dcbtop agent"
	if resp.PID > 0 {
		agent = fmt.Sprintf("the running dcbtop agent (pid %d)", resp.PID)
	}
	if len(resp.Changed) == 0 {
		return fmt.Sprintf("%s: nothing changed: %s already advertises these parameters", ifname, agent)
	}
	return fmt.Sprintf("%s: applied through %s: %s; its LLDP peers see it within 1 s", ifname, agent, strings.Join(resp.Changed, ", "))
}

// dcbClient is what the kernel path needs of *dcbnl.Client (a seam for
// tests).
type dcbClient interface {
	IEEE(ifname string) (*dcbnl.IEEE, error)
	SetIEEE(ifname string, s *dcbnl.IEEESet) error
	DelApps(ifname string, apps []dcbnl.App) error
	DCBX(ifname string) (dcbnl.Mode, error)
}

var _ dcbClient = (*dcbnl.Client)(nil)

// dialDCB opens the DCB netlink client.
var dialDCB = func() (dcbClient, func(), error) {
	c, err := dcbnl.Dial()
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// kernelError turns a dcbnl error into dcbtop's one-line messages.
func kernelError(ifname, op string, err error) error {
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

// firmwareManaged is the refusal when the NIC firmware runs DCBX.
func firmwareManaged(ifname string) error {
	return fmt.Errorf("%s: the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags %s fw-lldp-agent off; i40e: ethtool --set-priv-flags %s disable-fw-lldp on), or configure the switch", ifname, ifname, ifname)
}

// A kernelPlan is what applyKernel writes: each feature to write, or nil
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

// applyKernel applies p (the features given) and willing through dcbnl,
// then reads them back. It returns the lines to print on success (and the
// notes to print before an error), and an error naming what was applied
// before a failure.
func applyKernel(c dcbClient, ifname string, p *engine.Params, willing *bool) ([]string, error) {
	if p == nil {
		p = &engine.Params{}
	}
	cur, err := c.IEEE(ifname)
	if err != nil {
		return nil, kernelError(ifname, "read DCB parameters (IEEE_GET)", err)
	}
	managed := false
	if cur.DCBX != nil {
		managed = cur.DCBX.LLDManaged()
	} else if m, err := c.DCBX(ifname); err == nil {
		managed = m.LLDManaged()
	}
	wantETS := p.ETS != nil || p.ETSReco != nil || willing != nil
	if managed && (wantETS || p.PFC != nil) {
		return nil, firmwareManaged(ifname)
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
		verb := "set " + onOff(*willing)
		if plan.ets == nil {
			verb = "already " + onOff(*willing)
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
				return notes, kernelError(ifname, "set "+s.name+" (IEEE_SET)", err)
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

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
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
		diff("willing", onOff(got.Willing), onOff(want.Willing))
	}
	if cmp.cbs {
		diff("cbs", onOff(got.CBS), onOff(want.CBS))
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
		d = append(d, fmt.Sprintf("mbc %s, want %s", onOff(got.MBC != 0), onOff(want.MBC != 0)))
	}
	return d
}

func prioList(en uint8) string {
	s := joinU8(engine.PrioSet(en).List(), ",")
	if s == "" {
		return "none"
	}
	return s
}

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
