// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// trustSelector maps a trust table's selector name (qos.Change's
// Trust, the names QoSFromIEEE reports) to the kernel's: the IEEE APP
// selectors 1-5 (IEEE_8021QAZ_APP_SEL_*) and DCB_APP_SEL_PCP.
func trustSelector(name string) (uint8, bool) {
	if name == "pcp" {
		return dcbAppSelPCP, true
	}
	var s lldp.AppSelector
	if err := s.UnmarshalText([]byte(name)); err != nil {
		return 0, false
	}
	return uint8(s), true
}

// qosState reads, from an IEEE_GET reply and the DCBX mode (nil:
// unknown), what a qos.Change writes: the trust table (derived from the
// APP table where the driver reports none, as QoSFromIEEE derives it),
// the DSCP entries, the PFC delay, the buffer split, the rate limits, the
// DCBX mode.
func qosState(ie *dcbnl.IEEE, mode *dcbnl.Mode) qos.State {
	q := QoSFromIEEE(ie)
	st := qos.State{Trust: q.Trust, TrustDerived: q.TrustDerived, PFCDelay: q.PFCDelay, Buffer: q.Buffer, MaxRateKbps: q.MaxRateKbps, Rewrite: q.Rewrite}
	if mode != nil {
		b := uint8(*mode)
		st.DCBX, st.DCBXWords = &b, mode.String()
	}
	for _, a := range ie.App {
		if a.Selector == uint8(lldp.AppSelDSCP) && a.Priority <= 7 && a.Protocol <= 63 {
			st.DSCP = append(st.DSCP, qos.DSCPPriority{DSCP: uint8(a.Protocol), Priority: a.Priority})
		}
	}
	return st
}

// ApplyQoS writes c to ifname's NIC, each part where it differs from what
// the NIC holds, in this order, each in its own request so that a failure
// names its part: a DCBX mode that gives DCBX to the host (DCB_CMD_SDCBX,
// first: a firmware-managed NIC refuses the rest), the DSCP APP entries
// (DCB_CMD_IEEE_DEL of the entries they replace or c deletes, then
// DCB_CMD_IEEE_SET of the new ones), the trust table (IEEE_SET
// DCB_ATTR_DCB_APP_TRUST_TABLE), the PFC delay (IEEE_SET of the NIC's
// struct ieee_pfc with the new delay), the buffer split (IEEE_SET
// DCB_ATTR_DCB_BUFFER, the NIC's total kept), the DSCP rewrites
// (DCB_CMD_IEEE_DEL of the DCB_ATTR_DCB_REWR_TABLE entries they replace
// or c deletes, then IEEE_SET of the new ones; only where the kernel's
// reply carries the table: Linux 6.3), the rate limits (IEEE_SET
// DCB_ATTR_IEEE_MAXRATE: the NIC's struct ieee_maxrate with the TCs
// given replaced), a DCBX mode that gives DCBX to the firmware (last);
// then one read back, compared with what was asked; then the PFC storm
// prevention timeout (ETHTOOL_STUNABLE through tun, read back with
// ETHTOOL_GTUNABLE; tun nil: it cannot be written); then rdma_cm's default ToS of
// each port through configfs (rdma.SetDefaultToS, read back too; fs nil:
// none can be written). The kernel applies each request alone and has no
// rollback: a failure stops what follows and the result says what was
// written (its Before is the undo's, qos.WriteResult.Undo).
//
// A driver that reports no trust table has no dcbnl_setapptrust
// (dcbnl_ieee_set would answer EOPNOTSUPP): mlx5 instead trusts DSCP while
// its APP table holds DSCP entries and PCP otherwise
// (en_dcbnl.c mlx5e_dcbnl_ieee_setapp, mlx5e_set_trust_state). There a
// trust of DSCP first is written as the DSCP entries and said so in a
// note, and a trust of PCP first is refused with how to get it.
func ApplyQoS(c Client, fs rdma.WriteFS, tun Tunables, ifname string, ch qos.Change) qos.WriteResult {
	res := qos.WriteResult{Interface: ifname}
	if ch.DCB() {
		if !applyQoSDCB(c, ifname, ch, &res) {
			return res
		}
	}
	if t := ch.PFCStormTimeout; t != nil && !applyStormTimeout(tun, ifname, *t, &res) {
		return res
	}
	for _, t := range ch.RoCEToS {
		if fs == nil {
			res.Err = fmt.Errorf("%s port %d: rdma_cm's configfs cannot be written here", t.Device, t.Port)
			return res
		}
		w, err := rdma.SetDefaultToS(fs, t.Device, strconv.Itoa(t.Port), t.ToS)
		before := qos.RoCEToSState{Device: t.Device, Port: t.Port}
		if v := w.Before; v.Known {
			tos := v.V.Byte
			before.ToS = &tos
		} else {
			before.Why = v.Why
		}
		res.Before.RoCEToS = append(res.Before.RoCEToS, before)
		if err != nil {
			res.Err = fmt.Errorf("%s port %d: %w", t.Device, t.Port, err)
			return res
		}
		after := w.After.Byte
		res.After.RoCEToS = append(res.After.RoCEToS, qos.RoCEToSState{Device: t.Device, Port: t.Port, ToS: &after})
		res.Written = append(res.Written, fmt.Sprintf("rdma_cm default ToS of %s port %d", t.Device, t.Port))
		if w.Created {
			res.Notes = append(res.Notes, fmt.Sprintf("made rdma_cm/%s in configfs", t.Device))
		}
	}
	return res
}

// applyQoSDCB carries out the DCB netlink part of ApplyQoS; false when it
// failed (res.Err says why).
func applyQoSDCB(c Client, ifname string, ch qos.Change, res *qos.WriteResult) bool {
	const readOp = "read DCB parameters (IEEE_GET)"
	cur, mode, err := kernelState(c, ifname)
	if err != nil {
		if e := refusal(ifname, readOp, 0, err); e != nil {
			res.Err = e
		} else {
			res.Err = &engine.WriteError{Kind: engine.WriteReadFailed, Interface: ifname, Op: readOp, Detail: trimIfname(ifname, err)}
		}
		return false
	}
	res.Before = qosState(cur, mode)
	res.After = res.Before
	toHost := ch.DCBXMode != nil && !ch.DCBXMode.Firmware()
	others := ch.Trust != nil || len(ch.DSCP) > 0 || len(ch.DSCPDelete) > 0 || ch.PFCDelay != nil || ch.Buffer != nil || len(ch.MaxRate) > 0 ||
		len(ch.RewriteDSCP) > 0 || len(ch.RewriteDSCPDelete) > 0
	if mode != nil && mode.LLDManaged() && others && !toHost {
		res.Err = &engine.WriteError{Kind: engine.WriteFirmwareManaged, Interface: ifname}
		return false
	}
	type step struct {
		what string
		do   func() error
	}
	var steps []step
	var dcbx *step // the DCBX mode's write, first or last
	var dcbxWant dcbnl.Mode
	if m := ch.DCBXMode; m != nil {
		if mode == nil {
			res.Err = errors.New("dcbx mode: the driver reports no DCBX mode (no getdcbx)")
			return false
		}
		if want, change := dcbxTarget(*mode, *m); change {
			dcbxWant = want
			dcbx = &step{"DCBX mode", func() error {
				err := c.SetDCBX(ifname, want)
				if err == nil || !m.Firmware() || !errors.Is(err, dcbnl.ErrRefused) {
					return err
				}
				// mlx5 refuses LLD_MANAGED and takes 0 to hand DCBX to its
				// firmware (en_dcbnl.c mlx5e_dcbnl_setdcbx).
				if err0 := c.SetDCBX(ifname, 0); err0 != nil {
					return fmt.Errorf("%w, and refused 0 (mlx5's way to hand DCBX to its firmware): no firmware agent takes DCBX here", err)
				}
				dcbxWant = 0
				res.Notes = append(res.Notes, fmt.Sprintf("the driver refused %#02x (LLD_MANAGED) and took 0, which mlx5 reads as: the firmware runs DCBX", uint8(want)))
				return nil
			}}
			if toHost {
				steps = append(steps, *dcbx)
			}
		}
	}
	del, add := dscpChanges(cur.App, ch)
	if len(del)+len(add) > 0 {
		steps = append(steps, step{"DSCP entries", func() error {
			if len(del) > 0 {
				if err := c.DelApps(ifname, del); err != nil {
					return err
				}
			}
			if len(add) > 0 {
				return c.SetIEEE(ifname, &dcbnl.IEEESet{Apps: add})
			}
			return nil
		}})
	}
	if ch.Trust != nil {
		sels := make([]uint8, len(ch.Trust))
		for i, n := range ch.Trust {
			s, ok := trustSelector(n)
			if !ok {
				res.Err = fmt.Errorf("trust: unknown selector %q", n)
				return false
			}
			sels[i] = s
		}
		switch {
		case cur.AppTrust == nil && ch.Trust[0] == "dscp":
			if !slices.ContainsFunc(ch.WithDSCP(appEntries(cur.App)), isDSCPApp) {
				res.Err = errors.New("trust: the driver reports no trust table (no dcbnl_setapptrust); a driver such as mlx5 trusts DSCP while its APP table holds DSCP entries, and it holds none: give DSCP entries (--dscp 26=3)")
				return false
			}
			res.Notes = append(res.Notes, "the driver reports no trust table: a driver such as mlx5 trusts DSCP while its APP table holds DSCP entries (mlx5e_dcbnl_ieee_setapp), so the trust follows the DSCP entries")
		case cur.AppTrust == nil:
			res.Err = errors.New("trust: the driver reports no trust table (no dcbnl_setapptrust); a driver such as mlx5 trusts PCP once its APP table holds no DSCP entry: remove them (--dscp-delete) instead")
			return false
		case !slices.Equal(cur.AppTrust, sels):
			steps = append(steps, step{"trust", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{AppTrust: sels}) }})
		}
	}
	if d := ch.PFCDelay; d != nil {
		if cur.PFC == nil {
			res.Err = errors.New("pfc delay: the driver reports no PFC (DCB_ATTR_IEEE_PFC)")
			return false
		}
		if cur.PFC.Delay != *d {
			p := *cur.PFC
			p.Delay = *d
			steps = append(steps, step{"PFC delay", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{PFC: &p}) }})
			res.Notes = append(res.Notes, "a PFC write resets the link on some drivers (mlx5, ixgbe)")
		}
	}
	if b := ch.Buffer; b != nil {
		if cur.Buffer == nil {
			res.Err = errors.New("buffer: the driver reports no buffer split (DCB_ATTR_DCB_BUFFER: no dcbnl_getbuffer)")
			return false
		}
		want := dcbnl.Buffer{PrioBuffer: b.PrioBuffer, Size: b.SizeBytes, TotalSize: cur.Buffer.TotalSize}
		if want != *cur.Buffer {
			steps = append(steps, step{"buffer", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{Buffer: &want}) }})
		}
	}
	if len(ch.RewriteDSCP)+len(ch.RewriteDSCPDelete) > 0 {
		if cur.Rewr == nil {
			res.Err = qos.ErrNoRewriteTable
			return false
		}
		del, add := rewriteChanges(cur.Rewr, ch)
		if len(del)+len(add) > 0 {
			steps = append(steps, step{"rewrite entries", func() error {
				if len(del) > 0 {
					if err := c.DelRewr(ifname, del); err != nil {
						return err
					}
				}
				if len(add) > 0 {
					return c.SetIEEE(ifname, &dcbnl.IEEESet{Rewr: add})
				}
				return nil
			}})
		}
	}
	if len(ch.MaxRate) > 0 {
		if cur.MaxRate == nil {
			res.Err = errors.New("maxrate: the driver reports no rate limits (DCB_ATTR_IEEE_MAXRATE: no ieee_getmaxrate)")
			return false
		}
		want := *cur.MaxRate
		for _, r := range ch.MaxRate {
			if r.TC < 8 {
				want[r.TC] = r.Kbps
			}
		}
		if want != *cur.MaxRate {
			steps = append(steps, step{"rate limits", func() error { return c.SetIEEE(ifname, &dcbnl.IEEESet{MaxRate: &want}) }})
		}
	}
	if dcbx != nil && !toHost {
		steps = append(steps, *dcbx)
	}
	if len(steps) == 0 {
		return true
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			msg := s.what + ": " + trimIfname(ifname, err)
			if errors.Is(err, syscall.EOPNOTSUPP) {
				msg += " (the driver does not support it)"
			}
			if len(res.Written) > 0 {
				msg += " (after writing " + strings.Join(res.Written, ", ") + ")"
			}
			res.Err = errors.New(msg)
			break
		}
		res.Written = append(res.Written, s.what)
	}
	got, gotMode, err := kernelState(c, ifname)
	if err != nil {
		if res.Err == nil {
			res.Err = fmt.Errorf("%s written, but reading them back failed: %s", strings.Join(res.Written, ", "), trimIfname(ifname, err))
		}
		return false
	}
	res.After = qosState(got, gotMode)
	if res.Err != nil {
		return false
	}
	bad := qosMismatches(ch, res.After)
	if dcbx != nil {
		bad = append(bad, dcbxMismatch(*ch.DCBXMode, dcbxWant, gotMode)...)
	}
	if len(bad) > 0 {
		res.Err = errors.New("the driver accepted the writes but reads back other values: " + strings.Join(bad, "; "))
		return false
	}
	return true
}

// Tunables reads and writes the driver's PFC storm prevention timeout,
// the ethtool tunable ETHTOOL_PFC_PREVENTION_TOUT: a *tunable.Client.
type Tunables interface {
	PFCStormTimeout(ifname string) (uint16, error)
	SetPFCStormTimeout(ifname string, ms uint16) error
}

// applyStormTimeout carries out the storm timeout's part of ApplyQoS:
// read, write where it differs, read back; false when it failed (res.Err
// says why). Auto reads back as the driver's default (mlx5: 100 ms), any
// timeout but off.
func applyStormTimeout(tun Tunables, ifname string, want uint16, res *qos.WriteResult) bool {
	after := func() string {
		if len(res.Written) == 0 {
			return ""
		}
		return " (after writing " + strings.Join(res.Written, ", ") + ")"
	}
	if tun == nil {
		res.Err = errors.New("pfc storm timeout: the ethtool ioctl cannot be opened here" + after())
		return false
	}
	before, err := tun.PFCStormTimeout(ifname)
	if err != nil {
		res.Err = errors.New("pfc storm timeout: " + trimIfname(ifname, err) + after())
		return false
	}
	res.Before.StormTimeout, res.After.StormTimeout = &before, &before
	if before == want {
		return true
	}
	if err := tun.SetPFCStormTimeout(ifname, want); err != nil {
		msg := "PFC storm prevention timeout: " + trimIfname(ifname, err)
		if errors.Is(err, syscall.EINVAL) {
			msg += fmt.Sprintf(" (the driver refused %s: mlx5 takes 80-8000 ms, off or auto)", qos.StormTimeoutWords(want))
		}
		res.Err = errors.New(msg + after())
		return false
	}
	res.Written = append(res.Written, "PFC storm prevention timeout")
	got, err := tun.PFCStormTimeout(ifname)
	if err != nil {
		res.Err = fmt.Errorf("PFC storm prevention timeout written, but reading it back failed: %s", trimIfname(ifname, err))
		return false
	}
	res.After.StormTimeout = &got
	switch {
	case want == qos.StormTimeoutAuto && got != qos.StormTimeoutOff:
		if got != want {
			res.Notes = append(res.Notes, "auto: the driver reads back its default, "+qos.StormTimeoutWords(got))
		}
	case got != want:
		res.Err = fmt.Errorf("the driver accepted the PFC storm prevention timeout but reads back %s, want %s", qos.StormTimeoutWords(got), qos.StormTimeoutWords(want))
		return false
	}
	return true
}

// dcbApp is a PARAMS app entry.
type dcbApp = dcb.App

// appEntries maps the kernel's IEEE APP entries to PARAMS app entries.
func appEntries(apps []dcbnl.App) []dcbApp {
	var out []dcbApp
	for _, a := range apps {
		if isIEEEApp(a) {
			out = append(out, dcbApp{Selector: lldp.AppSelector(a.Selector), Protocol: a.Protocol, Priority: a.Priority})
		}
	}
	return out
}

// isDSCPApp reports whether a is a DSCP entry.
func isDSCPApp(a dcbApp) bool { return a.Selector == lldp.AppSelDSCP }

// dscpChanges returns the kernel APP entries to delete (the DSCP entries
// of the values ch sets to another priority or deletes) and to add (ch's
// entries the table does not have).
func dscpChanges(cur []dcbnl.App, ch qos.Change) (del, add []dcbnl.App) {
	sel := uint8(lldp.AppSelDSCP)
	for _, a := range cur {
		if a.Selector != sel {
			continue
		}
		if slices.Contains(ch.DSCPDelete, uint8(a.Protocol)) ||
			slices.ContainsFunc(ch.DSCP, func(d qos.DSCPPriority) bool { return uint16(d.DSCP) == a.Protocol && d.Priority != a.Priority }) {
			del = append(del, a)
		}
	}
	for _, d := range ch.DSCP {
		a := dcbnl.App{Selector: sel, Priority: d.Priority, Protocol: uint16(d.DSCP)}
		if !slices.Contains(cur, a) {
			add = append(add, a)
		}
	}
	return del, add
}

// rewriteChanges returns the kernel's rewrite entries to delete (the DSCP
// entries of the priorities ch sets to another DSCP or deletes) and to
// add (ch's entries the table does not have).
func rewriteChanges(cur []dcbnl.App, ch qos.Change) (del, add []dcbnl.App) {
	sel := uint8(lldp.AppSelDSCP)
	for _, a := range cur {
		if a.Selector != sel {
			continue
		}
		if slices.Contains(ch.RewriteDSCPDelete, a.Priority) ||
			slices.ContainsFunc(ch.RewriteDSCP, func(r qos.PrioDSCP) bool { return r.Priority == a.Priority && uint16(r.DSCP) != a.Protocol }) {
			del = append(del, a)
		}
	}
	for _, r := range ch.RewriteDSCP {
		a := dcbnl.App{Selector: sel, Priority: r.Priority, Protocol: uint16(r.DSCP)}
		if !slices.Contains(cur, a) {
			add = append(add, a)
		}
	}
	return del, add
}

// qosMismatches compares what was asked with what reads back, one line
// per part that differs.
func qosMismatches(ch qos.Change, got qos.State) []string {
	var bad []string
	for _, d := range ch.DSCP {
		if !slices.Contains(got.DSCP, d) {
			bad = append(bad, fmt.Sprintf("DSCP %d → priority %d missing", d.DSCP, d.Priority))
		}
	}
	for _, d := range ch.DSCPDelete {
		if slices.ContainsFunc(got.DSCP, func(x qos.DSCPPriority) bool { return x.DSCP == d }) {
			bad = append(bad, fmt.Sprintf("DSCP %d still mapped", d))
		}
	}
	if ch.Trust != nil && !got.TrustDerived && !slices.Equal(got.Trust, ch.Trust) {
		bad = append(bad, fmt.Sprintf("trust %s, want %s", strings.Join(got.Trust, ", "), strings.Join(ch.Trust, ", ")))
	}
	if ch.Trust != nil && got.TrustDerived && ch.Trust[0] == "dscp" && (len(got.Trust) == 0 || got.Trust[0] != "dscp") {
		bad = append(bad, "trust still PCP: no DSCP entry reads back")
	}
	if d := ch.PFCDelay; d != nil && (got.PFCDelay == nil || *got.PFCDelay != *d) {
		bad = append(bad, fmt.Sprintf("PFC delay %s, want %d", u16Words(got.PFCDelay), *d))
	}
	if b := ch.Buffer; b != nil && (got.Buffer == nil || got.Buffer.PrioBuffer != b.PrioBuffer || got.Buffer.SizeBytes != b.SizeBytes) {
		bad = append(bad, "buffer split "+bufferState(got.Buffer)+", want "+bufferState(b))
	}
	dscpRewrites := func(p uint8) []uint16 {
		var out []uint16
		for _, e := range got.Rewrite {
			if e.Selector == "dscp" && e.Priority == p {
				out = append(out, e.Protocol)
			}
		}
		return out
	}
	for _, r := range ch.RewriteDSCP {
		if ds := dscpRewrites(r.Priority); len(ds) != 1 || ds[0] != uint16(r.DSCP) {
			bad = append(bad, fmt.Sprintf("priority %d rewritten to DSCP %v, want %d", r.Priority, ds, r.DSCP))
		}
	}
	for _, p := range ch.RewriteDSCPDelete {
		if ds := dscpRewrites(p); len(ds) > 0 {
			bad = append(bad, fmt.Sprintf("priority %d still rewritten to DSCP %v", p, ds))
		}
	}
	for _, r := range ch.MaxRate {
		switch {
		case got.MaxRateKbps == nil:
			bad = append(bad, "rate limits no longer reported")
		case r.TC < 8 && got.MaxRateKbps[r.TC] != r.Kbps:
			bad = append(bad, fmt.Sprintf("TC%d rate limit %s, want %s (a driver rounds to its units: mlx5 to 100 Mbit/s below 25.5 Gbit/s, to 1 Gbit/s above)",
				r.TC, qos.RateWords(got.MaxRateKbps[r.TC]), qos.RateWords(r.Kbps)))
		}
	}
	return bad
}

// dcbxTarget returns the DCBX mode byte that gives m: DCB_CAP_DCBX_HOST or
// DCB_CAP_DCBX_LLD_MANAGED with one version, m's, else the one cur names
// alone, else IEEE (drivers refuse IEEE and CEE at once: ixgbe, i40e,
// ice setdcbx); change is false when cur already is m.
func dcbxTarget(cur dcbnl.Mode, m qos.DCBXMode) (want dcbnl.Mode, change bool) {
	ver := dcbnl.ModeIEEE
	switch {
	case m.Version == "cee":
		ver = dcbnl.ModeCEE
	case m.Version == "" && cur.CEE() && !cur.IEEE():
		ver = dcbnl.ModeCEE
	}
	agent, is := dcbnl.ModeHost, cur.Host() && !cur.LLDManaged()
	if m.Firmware() {
		agent, is = dcbnl.ModeLLDManaged, !cur.Host()
	}
	if is && (m.Version == "" || cur&ver != 0) {
		return cur, false
	}
	return agent | ver, true
}

// dcbxMismatch compares the DCBX mode read back (nil: unknown) with m,
// written as want (0: mlx5's firmware mode, which reads back with HOST
// clear and both versions).
func dcbxMismatch(m qos.DCBXMode, want dcbnl.Mode, got *dcbnl.Mode) []string {
	switch {
	case got == nil:
		return []string{"the DCBX mode is no longer reported"}
	case m.Firmware() && got.Host(), !m.Firmware() && (!got.Host() || got.LLDManaged()):
		return []string{fmt.Sprintf("DCBX mode %s, want %s", got, m.Agent)}
	case want != 0 && *got&want&(dcbnl.ModeIEEE|dcbnl.ModeCEE) == 0:
		return []string{fmt.Sprintf("DCBX mode %s, want %s", got, want)}
	}
	return nil
}

func u16Words(p *uint16) string {
	if p == nil {
		return "unknown"
	}
	return strconv.Itoa(int(*p))
}

func bufferState(b *lossless.PortBuffer) string {
	if b == nil {
		return "unknown"
	}
	return fmt.Sprintf("prio→buffer %v, sizes %v", b.PrioBuffer, b.SizeBytes)
}
