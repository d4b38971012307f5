// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/demo"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/ui"
)

const demoUsage = `Usage: dcbtop demo [--json | --events | --text] [--duration D] [--speed X] [--color auto|always|never]
                   [--no-mouse] [--snapshot-dir DIR] [--metrics ADDR] [--web.config.file FILE]

Runs dcbtop against its built-in simulated switch, a real DCBX peer playing a
looping two-minute scenario. As root, the switch lives in a network
namespace of its own (anonymous: it and its veth pair vanish with the
process, however it ends) and dcbtop captures on the host end, dcbdemoN,
through the normal live path, as the host DCBX agent (press w or e to see
the switch react). Without root, the same scenario runs over an in-memory
link. The screen shows a DEMO badge and a caption for each step.

The scenario, in seconds from the start of each pass (at --speed 1):
   0  no peer yet                      47  PFC on 3 again: changed, pauses
   5  leaf-1: first-receipt            50  leaf-2 joins: multi-peer
  12  congestion: PFC pauses arrive    60  leaf-2 goes silent
  20  PFC change: changed              72  hold-down over: first-receipt
  28  ECN marking: CNPs, fewer pauses  76  RoCE ToS 0: lossy priority, drops
  35  ETS recommendation: changed      82  RoCE ToS 106 again: priority 3
  42  no PFC on 3: changed, drops      89  leaf-1's TTL runs out: ttl-expired
 100  leaf-1 returns willing: first-receipt, pfc-mismatch
 115  leaf-1 shuts down: shutdown; the scenario starts over at 120
The host's RoCE NIC (mlx5_0) is simulated too: its traffic, pauses, drops
and ECN marks follow the steps and the switches' PFC; l shows it, and f
writes its ToS.
So a headless run needs --duration 25s to see a first-receipt and a change,
95s for every reason up to ttl-expired (or --speed 8 and an eighth of that).

Options:
  --speed X      play the scenario X times faster, 1 to 16 (default 1): the
                 switches, dcbtop's agent, TTLs and timestamps all run on the
                 faster clock, so --speed 8 shows the whole scenario in 15 s
  --json         print one snapshot (JSON) and exit, after --duration or
                 Ctrl-C
  --events       print each indication as one JSON line (NDJSON)
  --text         print each indication as a plain line
  --duration D   stop after D (e.g. 25s)
` + screenOptionsHelp + `  -h, --help     this help
`

// demoFlags defines dcbtop demo's flags on o and speed, with their
// defaults.
func demoFlags(o *options, speed *float64) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	outputFlags(fs, o)
	*speed = 1
	fs.Var(speedValue{p: speed, min: 1, max: maxDemoSpeed, want: fmt.Sprintf("want a number from 1 to %d", maxDemoSpeed)}, "speed", "scenario speed")
	return fs
}

// runDemo runs `dcbtop demo`.
func runDemo(ctx context.Context, args []string, env Env) int {
	o := &options{willing: true}
	var speed float64
	fs := demoFlags(o, &speed)
	err := parseFlags(fs, args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil {
		err = o.checkOutput()
	}
	if err != nil {
		return usageError(env, err, "demo", demoUsage)
	}
	o.settleOutput(env) // the live loop prints the not-a-terminal notice
	o.demoStart = time.Now()
	o.clock = capture.ScaledClock(o.demoStart, speed)
	if err := demoRun(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: demo: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// maxDemoSpeed bounds --speed: at 16 the agent's 250 ms schedule checks
// come every 16 ms of real time, still far from what the loop can do.
const maxDemoSpeed = 16

// demoRun starts the simulated switch on a veth pair whose switch end is
// in a network namespace of its own (root) or on an in-memory link, and
// runs the live loop on the host end as the host DCBX agent with the
// scenario's host parameters.
func demoRun(ctx context.Context, o *options, env Env) error {
	sc, err := demo.Load()
	if err != nil {
		return err
	}
	o.agent, o.force, o.txInterval, o.noControl = true, true, time.Second, true
	o.willing, o.localParams = sc.Host.Willing, sc.Host.Params
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	var link demo.Link
	if os.Geteuid() == 0 {
		for _, l := range demo.Leftovers() {
			fmt.Fprintf(env.Stderr, "dcbtop: demo: note: %s\n", l)
		}
		v, err := demo.NewVethLink(demo.VethConfig{HostMAC: sc.Host.MAC})
		if err != nil {
			return err
		}
		defer v.Cleanup()
		link = v
		o.ifaces = []string{v.HostIf()}
	} else {
		host, l := demo.NewMemLink(sc.Host.MAC)
		link = l
		o.links = []capture.Link{host.Link()}
		// The live loop closes the host end as it stops, which closes the
		// whole link: stop the switch first so it takes that as the end.
		o.openLive = func(string) (session.Conn, error) { return stopOnClose{host, stop}, nil }
		o.banner = "in-memory link (not root)"
		if !o.tui {
			fmt.Fprintln(env.Stderr, "dcbtop: demo: not root: running the simulated switch over an in-memory link")
		}
	}
	// The demo host's RoCE NIC is simulated too: its counters, RoCE
	// identity and QoS follow the scenario's steps and switches, read by
	// the same engine and screen as a real NIC's, and the screen's fixes
	// write its rdma_cm configfs. A tree given for /sys or recorded
	// ethtool outputs (DCBTOP_SYSFS_ROOT, DCBTOP_ETHTOOL_ROOT: tests) is
	// read instead.
	opts := []demo.Option{demo.WithClock(o.clock)}
	if os.Getenv(counters.EnvSysfsRoot) == "" && os.Getenv(counters.EnvEthtoolRoot) == "" {
		nic := demo.NewNIC(o.clock)
		o.sampler, o.configFS = nic, nic.ConfigFS()
		opts = append(opts, demo.WithNIC(nic))
	}
	if o.tui {
		o.post = newPoster()
		o.demo = &ui.DemoStatus{Steps: len(sc.Steps), Speed: o.clock.Speed(), Start: o.demoStart}
		prog := demo.NewProgress(sc)
		opts = append(opts, demo.WithObserver(func(ev demo.Event) {
			if prog.Observe(ev) {
				o.post.setStatus(demoStatus(o, prog))
			}
		}))
	}
	done := make(chan error, 1)
	go func() { done <- demo.Run(dctx, link, sc, true, opts...) }()
	err = runLive(ctx, o, env)
	stop()
	if rerr := <-done; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = fmt.Errorf("simulated switch: %w", rerr)
	}
	return err
}

// demoStatus is the screen's capture status as the demo's progress
// stands.
func demoStatus(o *options, p *demo.Progress) ui.CaptureStatus {
	ds := &ui.DemoStatus{Step: p.Step + 1, Steps: p.Steps(), NextAt: p.NextAt(), Pass: p.Pass,
		Restarts: slices.Clone(p.Restarts), Speed: o.clock.Speed(), Start: o.demoStart}
	if st := p.Current(); st != nil {
		ds.Caption = st.Caption
	}
	return ui.CaptureStatus{Mode: ui.CaptureLive, Source: o.banner, Demo: ds, Ages: true}
}

// stopOnClose is the in-memory demo's host end: closing it first stops the
// simulated switch, whose end of the link closes with it.
type stopOnClose struct {
	*demo.MemHost
	stop context.CancelFunc
}

// Close stops the switch, then closes the link.
func (c stopOnClose) Close() error {
	c.stop()
	return c.MemHost.Close()
}
