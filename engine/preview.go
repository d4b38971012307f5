// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// pairCodes are the diagnostics that compare this host with its peer or
// judge what is in force (pairDiagnostics, opDiagnostics): those a change
// of the local parameters or Willing state makes and unmakes.
var pairCodes = []diag.Code{diag.CodeCEEPeerError, diag.CodeLocalUnknown, diag.CodeNoETSReco, diag.CodeBothWilling,
	diag.CodeNeitherWilling, diag.CodePFCMismatch, diag.CodeETSMismatch, diag.CodeETSDiffersFromReco,
	diag.CodePFCPrioNoApp, diag.CodePFCTCShared}

// PreviewInterface returns in as it would be with the local Willing state
// willing and the local parameters local (nil: the current ones), all else
// unchanged: the operational parameters and their resolution
// (PreviewOperational), the diagnostics that compare this host with the
// peer and judge what is in force made again, and the RoCE paths judged
// again from them. The diagnostics of the counters stay as last sampled
// (a sample is not made again). Its Checks are nil: the caller judges it
// (engine/check.Changes says what would change). Pure, on a snapshot's
// Interface: what the screen's w, e and u preview.
func PreviewInterface(in Interface, willing bool, local *dcb.Params) Interface {
	out := in
	if local == nil {
		local = in.Local
	}
	if local != nil {
		local = local.WithWilling(willing)
	}
	out.Local = local
	if in.LocalSource != SourceNone && in.LocalSource != "" {
		w := willing
		out.Willing = &w
	}
	out.Operational, out.Resolution = PreviewOperational(in, willing, local)
	p := &port{name: in.Name, local: out.Local, willing: willing, localSource: in.LocalSource,
		operational: out.Operational, resolution: out.Resolution}
	if in.LocalSource == SourceNone {
		p.localSource = ""
	}
	if in.RemoteValid && in.Remote != nil {
		p.remote, p.remoteFrom = in.Remote, &neighbor{}
	}
	ds := slices.DeleteFunc(slices.Clone(in.Diagnostics), func(d diag.Diagnostic) bool { return slices.Contains(pairCodes, d.Code) })
	ds = append(ds, p.pairDiagnostics()...)
	out.Diagnostics = append(ds, p.opDiagnostics()...)
	if in.Counters != nil {
		c := *in.Counters
		c.RoCEPaths = lossless.Paths(out.LosslessPort(), &c, out.Diagnostics)
		out.Counters = &c
	}
	out.Checks = nil
	return out
}

// A PortChange is what a host QoS preview changes of a port (engine/qos):
// its local APP table (App, nil: unchanged; applied where the port has
// local parameters, and what is in force resolved again), its last
// counters sample (Sample, nil: unchanged) and its NIC's DCBX mode (DCBX,
// nil: unchanged).
type PortChange struct {
	App    func([]dcb.App) []dcb.App
	Sample func(*lossless.Sample)
	DCBX   *PortDCBX
}

// A PortDCBX is a NIC's DCBX mode as a preview makes it: in words (the
// snapshot's dcbx_mode), and whether the NIC firmware runs DCBX (the
// firmware-dcbx diagnostic, the checks of the agents).
type PortDCBX struct {
	Mode            string
	FirmwareManaged bool
}

// PreviewPort returns interface name as it would be after ch, all else as
// it is, judged again by the same rules (the diagnostics, the RoCE
// paths); false when name is not captured. It changes nothing.
func (e *Engine) PreviewPort(name string, ch PortChange) (Interface, bool) {
	p, ok := e.ports[name]
	if !ok {
		return Interface{}, false
	}
	q := *p // the port as it would be; what it shares is only read
	if ch.App != nil && p.local != nil {
		local := p.local.Clone()
		local.App = ch.App(local.App)
		q.local = local
		in := dcb.ResolveInput{Local: q.local, Willing: q.willing, LocalMAC: q.mac, Remote: q.remote}
		if q.remoteFrom != nil {
			in.RemoteMAC, in.Dialect = q.remoteFrom.src, q.remoteFrom.du.Dialect()
		}
		q.operational, q.resolution = dcb.Resolve(in)
	}
	if ch.Sample != nil && p.lossless != nil {
		q.lossless = p.lossless.Preview(ch.Sample)
	}
	if ch.DCBX != nil {
		q.dcbxMode, q.firmware = ch.DCBX.Mode, ch.DCBX.FirmwareManaged
	}
	return e.interfaceSnapshot(&q, e.hostNow()), true
}
