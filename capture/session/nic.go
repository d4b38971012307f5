// SPDX-License-Identifier: Apache-2.0

package session

import (
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/host"
)

// programNIC carries out a host.ProgramNIC off the engine goroutine (a
// PFC write resets the link on mlx5, and a driver may be slow): the
// kernel path's apply (capture/kernel.Apply: one read, only the features
// that differ written with DCB_CMD_IEEE_SET, one read back, the Willing
// bit left alone), its result handed back to the host layer on the
// engine goroutine. The host asks for one write at a time per
// interface. Nothing is written in a replay, where the host has no
// agent.
func (r *liveRun) programNIC(w host.ProgramNIC) {
	r.nicWrites.Go(func() {
		res := r.writeNIC(w)
		_ = r.do(func() { r.carryOut(r.h.NICProgrammed(w, res, r.now()), false) })
	})
}

// writeNIC writes w's parameters to the NIC through DCB netlink on a
// client of its own (not the -w recorder's: a write is no reading round)
// and returns what happened.
func (r *liveRun) writeNIC(w host.ProgramNIC) engine.WriteResult {
	dial := dcbnl.DialRecorded
	if r.cfg.Dialers.DCB != nil {
		dial = r.cfg.Dialers.DCB
	}
	c, err := dial(nil)
	if err != nil {
		return engine.WriteResult{Interface: w.Interface, Target: engine.WriteKernel,
			Err: &engine.WriteError{Kind: engine.WriteReadFailed, Interface: w.Interface, Op: "open DCB netlink", Detail: err.Error()}}
	}
	defer c.Close()
	return kernel.Apply(c, w.Interface, w.Params, nil)
}
