// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
)

// A Port is what the lossless evaluation reads of a port's DCBX state:
// the engine fills it from its per-port state (diagnostics) or from the
// snapshot's Interface (the RoCE path).
type Port struct {
	// Name is the interface's name.
	Name string
	// Local and Operational are the local and operational parameters (nil:
	// unknown); Remote the peer's when valid (RemoteValid), nil otherwise.
	Local, Operational, Remote *dcb.Params
	RemoteValid                bool
	// Resolution says where each operational feature came from.
	Resolution dcb.Resolution
	// KernelTable: the local parameters are the kernel's (read with DCB
	// netlink), so their APP table is the one the NIC classifies with.
	KernelTable bool
}

// A port is a Port with the lossless state of its interface.
type port struct {
	Port
	lossless *State
}

// Diagnostics returns the diagnostics of the last samples of p's
// counters: PFC, pauses, ECN and CNPs, the RoCE identity and classification.
func (ls *State) Diagnostics(p Port) []diag.Diagnostic {
	return (&port{Port: p, lossless: ls}).losslessDiagnostics()
}

// A pathInput is what a RoCE path is judged from: the port, its counters
// (the snapshot's), and the diagnostics the engine raised on it.
type pathInput struct {
	Port
	Counters    *Counters
	Diagnostics []diag.Diagnostic
}

// Paths returns the RoCE path of each RoCE port of c (nil when c has
// none), hop by hop: see docs/roce.md. diags are the interface's
// diagnostics, some of which decide a hop.
func Paths(p Port, c *Counters, diags []diag.Diagnostic) []RoCEPath {
	in := &pathInput{Port: p, Counters: c, Diagnostics: diags}
	return in.roCEPaths()
}

// Diagnostic returns the interface's diagnostic of code, if raised.
func (in *pathInput) Diagnostic(code diag.Code) (diag.Diagnostic, bool) {
	for _, d := range in.Diagnostics {
		if d.Code == code {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}
