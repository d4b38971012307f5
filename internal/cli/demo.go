package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"dcbtop/capture"
	"dcbtop/internal/demo"
)

const demoUsage = `Usage: dcbtop demo [--json | --events] [--duration D] [--color auto|always|never] [--snapshot-dir DIR] [--metrics ADDR]

Runs dcbtop against its built-in simulated switch, a real DCBX peer playing a
looping two-minute scenario (first receipt, changes, a second switch and
multi-peer, a cut link and TTL expiry, a willing peer with a PFC mismatch,
shutdown). As root, the switch lives in a network namespace of its own and
dcbtop captures on the host end of a veth pair through the normal live path,
as the host DCBX agent (press w or e to see the switch react). Without root,
the same scenario runs over an in-memory link. Everything the demo creates
is removed on exit; leftovers of a crashed earlier run are removed at start.
`

// runDemo runs `dcbtop demo`.
func runDemo(ctx context.Context, args []string, env Env) int {
	o := &options{willing: true, speed: -1, snapshotDir: "."}
	fs := flag.NewFlagSet("dcbtop demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	outputFlags(fs, o)
	err := fs.Parse(args)
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
	if err := demoRun(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: demo: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// demoRun starts the simulated switch on a veth pair in a namespace of its
// own (root) or on an in-memory link, and runs the live loop on the host
// end as the host DCBX agent with the scenario's host parameters.
func demoRun(ctx context.Context, o *options, env Env) error {
	sc, err := demo.Load()
	if err != nil {
		return err
	}
	o.agent, o.force, o.txInterval = true, true, time.Second
	o.willing, o.localParams = sc.Host.Willing, sc.Host.Params
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	var link demo.Link
	if os.Geteuid() == 0 {
		if _, err := demo.CleanStale(); err != nil {
			return fmt.Errorf("clean up an earlier demo: %w", err)
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
		o.openLive = func(string) (liveConn, error) { return stopOnClose{host, stop}, nil }
		o.banner = "in-memory demo (not root: no network namespace, no kernel capture)"
		if !o.tui {
			fmt.Fprintln(env.Stderr, "dcbtop: demo: not root: running the simulated switch over an in-memory link")
		}
	}
	done := make(chan error, 1)
	go func() { done <- demo.Run(dctx, link, sc, true) }()
	err = runLive(ctx, o, env)
	stop()
	if rerr := <-done; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = fmt.Errorf("simulated switch: %w", rerr)
	}
	return err
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
