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
