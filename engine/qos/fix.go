// SPDX-License-Identifier: Apache-2.0

package qos

import (
	"fmt"
	"slices"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Fix is the host QoS change dcbtop proposes for one of an
// interface's diagnostics: what to write, and why that fixes it. The
// screen's f previews one (Engine.PreviewQoS) and writes it after a
// confirmation; dcbtop apply takes the same change (Change.Args).
type Fix struct {
	Code   diag.Code
	Change Change
	Why    string
}

// mlx5DefaultCableLen is the PFC delay mlx5 starts a port with: its
// cable length in metres (drivers/net/ethernet/mellanox/mlx5/core/en/
// port_buffer.h MLX5E_DEFAULT_CABLE_LEN, set by mlx5e_dcbnl_initialize).
const mlx5DefaultCableLen = 7

// roceDSCP is the DSCP RoCE v2 traffic conventionally carries (DCQCN's
// deployments and NVIDIA's RoCE configuration: DSCP 26, AF31), proposed
// where rdma_cm's default ToS does not say which DSCP the traffic has.
const roceDSCP = 26

// Fixes returns the fixes dcbtop can write for in's diagnostics, in
// the diagnostics' order, most severe first: one per diagnostic that has
// one:
//   - trust-pcp-with-dscp-map with DSCP entries: trust DSCP, then PCP (the
//     APP table's DSCP map is used once the port trusts DSCP,
//     DCB_ATTR_DCB_APP_TRUST_TABLE);
//   - trust-pcp-with-dscp-map with no DSCP entry: map the RoCE traffic's
//     DSCP (rdma_cm's default, else 26) to the lowest PFC priority;
//   - pfc-no-headroom from a PFC delay of 0: mlx5's default cable length,
//     7 m (the operator sets the real one with dcbtop apply --pfc-delay);
//   - roce-tos-ecn: the same DSCP with ECT(0) (RFC 3168: DSCP<<2 | 2);
//   - roce-tos-not-lossless: a DSCP the APP table maps to a PFC priority,
//     with ECT(0);
//   - firmware-dcbx: DCBX to the host (--dcbx-mode host, DCB_CMD_SDCBX),
//     except on ice and i40e, whose setdcbx refuses while their firmware
//     agent runs (ice_dcbnl_setdcbx, i40e_dcbnl_setdcbx: their ethtool
//     private flag hands DCBX over instead).
//
// A diagnostic whose fix would need facts dcbtop does not have (which
// buffer to give a PFC priority) gets none.
func Fixes(in engine.Interface) []Fix {
	ds := slices.Clone(in.Diagnostics)
	slices.SortStableFunc(ds, func(a, b diag.Diagnostic) int { return int(b.Severity) - int(a.Severity) })
	var out []Fix
	for _, d := range ds {
		if f, ok := qosFix(in, d.Code); ok && !slices.ContainsFunc(out, func(x Fix) bool { return x.Code == f.Code }) {
			out = append(out, f)
		}
	}
	return out
}

// HasFix reports whether Fixes(in) has a fix, without building it
// (the screen's key bar asks on every frame).
func HasFix(in *engine.Interface) bool {
	for _, d := range in.Diagnostics {
		switch d.Code {
		case diag.CodeTrustMismatch, diag.CodePFCNoHeadroom, diag.CodeRoCEToSECN, diag.CodeRoCEToSNotLossless, diag.CodeFirmwareDCBX:
			if _, ok := qosFix(*in, d.Code); ok {
				return true
			}
		}
	}
	return false
}

// fixWords begins the action of a diagnostic the screen's f can fix.
const fixWords = "f on dcbtop's screen previews and writes the fix; by hand: "

// NameFixes returns in's diagnostics with the screen's f named in the
// action of each that f has a fix for (qosFix), and only those: a
// diagnostic without one names the commands alone, so that f never
// answers "no diagnostic here has a fix" to a diagnostic that named it.
// The diagnostics are copied where one changes (a snapshot's are shared).
func NameFixes(in engine.Interface) []diag.Diagnostic {
	out := in.Diagnostics
	copied := false
	for i, d := range in.Diagnostics {
		if _, ok := qosFix(in, d.Code); !ok {
			continue
		}
		if !copied {
			out, copied = slices.Clone(in.Diagnostics), true
		}
		out[i].Action = fixWords + d.Action
	}
	return out
}

// qosFix is code's fix on in, if dcbtop has one.
func qosFix(in engine.Interface, code diag.Code) (Fix, bool) {
	q := qosOf(&in)
	var pfcOn []uint8
	if op := in.Operational; op != nil && op.PFC != nil {
		pfcOn = op.PFC.Enabled.List()
	}
	var app []dcbApp
	if in.Local != nil {
		app = in.Local.App
	}
	dscpEntries := slices.ContainsFunc(app, func(a dcbApp) bool { return a.Selector == lldp.AppSelDSCP })
	f := Fix{Code: code}
	switch code {
	case diag.CodeTrustMismatch:
		if q == nil || q.Trust == nil {
			return f, false
		}
		if dscp, _ := q.TrustsDSCP(); !dscp && dscpEntries {
			f.Change.Trust = []string{"dscp", "pcp"}
			f.Why = "the APP table's DSCP map is used once the port trusts DSCP first"
			return f, true
		}
		if len(pfcOn) == 0 {
			return f, false
		}
		d := roceTrafficDSCP(&in)
		f.Change.DSCP = []DSCPPriority{{DSCP: d, Priority: pfcOn[0]}}
		f.Why = fmt.Sprintf("the port trusts DSCP: DSCP %d (the RoCE traffic's) on PFC priority %d", d, pfcOn[0])
		return f, true
	case diag.CodePFCNoHeadroom:
		if q == nil || q.PFCDelay == nil || *q.PFCDelay != 0 {
			return f, false // an empty buffer: which one to give it is the operator's call
		}
		d := uint16(mlx5DefaultCableLen)
		f.Change.PFCDelay = &d
		f.Why = "mlx5's default cable length (7 m) sizes the lossless headroom; set the real length with dcbtop apply --pfc-delay M"
		return f, true
	case diag.CodeRoCEToSECN:
		for _, r := range in.RoCEPorts() {
			if t := r.DefaultToS; t != nil && t.ECN&3 != 2 && t.ECN&3 != 1 {
				f.Change.RoCEToS = append(f.Change.RoCEToS, RoCEToSChange{Device: r.Device, Port: r.Port, ToS: t.DSCP<<2 | 2})
			}
		}
		f.Why = "the same DSCP with ECN ECT(0), which switches may mark (RFC 3168)"
		return f, len(f.Change.RoCEToS) > 0
	case diag.CodeRoCEToSNotLossless:
		var d uint8
		found := false
		for _, a := range app {
			if a.Selector == lldp.AppSelDSCP && slices.Contains(pfcOn, a.Priority) {
				d, found = uint8(a.Protocol), true
				break
			}
		}
		if !found {
			return f, false
		}
		for _, r := range in.RoCEPorts() {
			if t := r.DefaultToS; t != nil && t.DSCP != d {
				f.Change.RoCEToS = append(f.Change.RoCEToS, RoCEToSChange{Device: r.Device, Port: r.Port, ToS: d<<2 | 2})
			}
		}
		f.Why = fmt.Sprintf("DSCP %d, which the APP table maps to a PFC priority, with ECN ECT(0)", d)
		return f, len(f.Change.RoCEToS) > 0
	case diag.CodeFirmwareDCBX:
		if in.DCBXMode == nil || in.Counters != nil && in.Counters.Driver != nil && firmwareFlagDrivers[*in.Counters.Driver] {
			return f, false
		}
		f.Change.DCBXMode = &DCBXMode{Agent: DCBXHost}
		f.Why = "the host runs DCBX: an agent here (dcbtop --agent, lldpad) negotiates with the switch and programs the NIC; u gives it back to the firmware"
		return f, true
	}
	return f, false
}

// firmwareFlagDrivers hand DCBX from their firmware to the host by an
// ethtool private flag, not by DCB_CMD_SDCBX, which they refuse while
// the firmware agent runs.
var firmwareFlagDrivers = map[string]bool{"ice": true, "i40e": true}

// roceTrafficDSCP is the DSCP of the interface's RoCE traffic: rdma_cm's
// default ToS of its first RDMA port that has one, else 26.
func roceTrafficDSCP(in *engine.Interface) uint8 {
	for _, r := range in.RoCEPorts() {
		if r.DefaultToS != nil {
			return r.DefaultToS.DSCP
		}
	}
	return roceDSCP
}

// dcbApp is a PARAMS app entry.
type dcbApp = dcb.App

// A FixPreview is a host QoS change and what it would do: the fix (the
// diagnostic it is for, the change, why), the change in words (before →
// after), and what it changes in the verdicts (the RoCE path's hops, the
// diagnostics, and dcbtop check's checks, which the caller adds).
type FixPreview struct {
	Fix     Fix
	Lines   []string
	Changes []string
}
