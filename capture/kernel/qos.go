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

// qosState reads, from an IEEE_GET reply, what a qos.Change writes: the
// trust table (derived from the APP table where the driver reports none,
// as QoSFromIEEE derives it), the DSCP entries, the PFC delay, the
// buffer split.
func qosState(ie *dcbnl.IEEE) qos.State {
	q := QoSFromIEEE(ie)
	st := qos.State{Trust: q.Trust, TrustDerived: q.TrustDerived, PFCDelay: q.PFCDelay, Buffer: q.Buffer}
	for _, a := range ie.App {
		if a.Selector == uint8(lldp.AppSelDSCP) && a.Priority <= 7 && a.Protocol <= 63 {
			st.DSCP = append(st.DSCP, qos.DSCPPriority{DSCP: uint8(a.Protocol), Priority: a.Priority})
		}
	}
	return st
}

// ApplyQoS writes c to ifname's NIC, each part where it differs from what
// the NIC holds, in this order, each in its own request so that a failure
// names its part: the DSCP APP entries (DCB_CMD_IEEE_DEL of the entries
// they replace or c deletes, then DCB_CMD_IEEE_SET of the new ones), the
// trust table (IEEE_SET DCB_ATTR_DCB_APP_TRUST_TABLE), the PFC delay
// (IEEE_SET of the NIC's struct ieee_pfc with the new delay), the buffer
// split (IEEE_SET DCB_ATTR_DCB_BUFFER, the NIC's total kept); then one
// read back, compared with what was asked; then rdma_cm's default ToS of
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
func ApplyQoS(c Client, fs rdma.WriteFS, ifname string, ch qos.Change) qos.WriteResult {
	res := qos.WriteResult{Interface: ifname}
	dcb := ch.Trust != nil || len(ch.DSCP) > 0 || len(ch.DSCPDelete) > 0 || ch.PFCDelay != nil || ch.Buffer != nil
	if dcb {
		if !applyQoSDCB(c, ifname, ch, &res) {
			return res
		}
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
	res.Before = qosState(cur)
	res.After = res.Before
	if mode != nil && mode.LLDManaged() {
		res.Err = &engine.WriteError{Kind: engine.WriteFirmwareManaged, Interface: ifname}
		return false
	}
	type step struct {
		what string
		do   func() error
	}
	var steps []step
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
	got, err := c.IEEE(ifname)
	if err != nil {
		if res.Err == nil {
			res.Err = fmt.Errorf("%s written, but reading them back failed: %s", strings.Join(res.Written, ", "), trimIfname(ifname, err))
		}
		return false
	}
	res.After = qosState(got)
	if res.Err != nil {
		return false
	}
	if bad := qosMismatches(ch, res.After); len(bad) > 0 {
		res.Err = errors.New("the driver accepted the writes but reads back other values: " + strings.Join(bad, "; "))
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
	return bad
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
