// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop -r FILE --frames: every LLDPDU of a capture, one a line (or an
// NDJSON document each), with what changed against its sender's previous
// one; --frame N: one in hex and decoded. dcbtop -i IF --frames: a live
// run's, sent and received, as they come.

import (
	"context"
	"fmt"

	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine/frames"
)

// runFrames replays o.read through the run (session.Config.Frames: the
// records as the frames enter the engine, their direction as the replay
// reads it) and prints each LLDPDU --from keeps, or only the one --frame
// names, which is an error when the capture has none such.
func runFrames(ctx context.Context, o *options, env Env) error {
	format := output.Text
	if o.json {
		format = output.JSON
	}
	p := output.New(env.Stdout, format)
	var found bool
	var total uint64
	keep := o.keepFrame
	cfg := session.Config{Replay: o.read, LocalMAC: o.localMAC, Speed: o.speed, Warn: env.Stderr,
		Version: version, Revision: revision,
		Frames: func(r frames.Record) error {
			total = r.Number
			switch {
			case !keep(r):
				return nil
			case o.frameN == 0:
				return p.Frame(r)
			case r.Number == o.frameN:
				found = true
				return p.FrameDetail(r)
			}
			return nil
		}}
	if err := runRuntime(ctx, o, env, cfg, nil); err != nil {
		return err
	}
	switch {
	case o.frameN == 0 || found:
		return nil
	case o.frameN <= total && o.fromMAC != nil:
		return fmt.Errorf("%s: LLDPDU %d is not from %s", o.read, o.frameN, o.fromMAC)
	}
	return fmt.Errorf("%s: no LLDPDU %d: the capture has %d", o.read, o.frameN, total)
}

// keepFrame is --from: whether r is printed.
func (o *options) keepFrame(r frames.Record) bool {
	return o.fromMAC == nil || r.Header.Src == *o.fromMAC
}

// liveFrames is a live run's Config.Frames with --frames: each LLDPDU
// --from keeps, printed as it enters the engine (text, or NDJSON with
// --json), the agent's own (out) among them.
func liveFrames(o *options, env Env) func(frames.Record) error {
	format := output.Text
	if o.json {
		format = output.JSON
	}
	p := output.New(env.Stdout, format)
	return func(r frames.Record) error {
		if !o.keepFrame(r) {
			return nil
		}
		return p.Frame(r)
	}
}
