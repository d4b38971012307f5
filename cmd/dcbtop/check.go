// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop check: a scriptable lossless-readiness verdict per interface and
// check (check.Run), in the Nagios plugin convention, live or on a
// replay; text for people, JSON and JUnit for machines.

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// checkUsage is dcbtop check --help.
const checkUsage = `usage: dcbtop check [-i IFACE]... [-r FILE] [--expect POLICY] [--wait D] [--json | --junit] [--textfile DIR]

Is this host ready for lossless RoCE, and if not, why? Captures LLDP until
each interface has a DCBX peer (or --wait passes), samples the lossless
counters twice, and prints one verdict per interface and check, each with
its evidence and a fix. Read-only: nothing is sent or written.

  -i IFACE         an interface to check (repeatable; default every up
                   Ethernet interface, or every interface of the capture)
  -r FILE          judge a capture (pcap or pcapng) instead: checks that
                   need what a capture does not carry (this host's
                   parameters, counters) are UNKNOWN; a dcbtop -w
                   recording or bundle carries them
  --local-mac MAC  with -r: this host's end of a capture that does not say
                   which frames it sent, both ends of one link (default the
                   evidence: System Capabilities, this host's MACs, the
                   willing end); without any, dcbx-peer is UNKNOWN
  --expect POLICY  also hold the operational parameters to POLICY, a JSON
                   file such as {"pfc":{"enabled":[3]},
                   "app":[{"selector":"udp-port","protocol":4791,"priority":3}],
                   "ets":{"min_bandwidth":{"3":50}}, "willing":false,
                   "trust":"dscp", "roce":{"dscp":26},
                   "cnp":{"dscp":4,"priority":6}}, or a preset's name:
                   roce-k8s, azure-local (see the README)
  --wait D         live: how long to wait for the peers (default 35s; a
                   little over LLDP's usual 30 s transmit interval); with
                   -i, where a dcbtop agent runs on every interface named
                   and has heard its peer, its view is judged at once
                   (ended "agent", as dcbtop show asks it)
  --json           the report as JSON (assets/check.schema.json)
  --junit          the report as JUnit XML: a test case per interface and
                   check; CRITICAL and WARNING are failures (their type
                   says which), UNKNOWN is skipped
  --textfile DIR   also write the verdicts as Prometheus metrics to
                   DIR/dcbtop_check.prom (node_exporter's textfile
                   collector; written to a temporary file, then renamed)
  -h, --help       this help

Checks: dcbx-peer, roce-priority, roce-pfc, roce-ets, pfc-agreement,
single-agent, pauses, ecn, link-pause, roce-gid, headroom, trust,
roce-path, and policy with --expect (see the README).

Exit status (Nagios): 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN; the worst
verdict wins (CRITICAL over WARNING over UNKNOWN over OK). No peer within
--wait is CRITICAL. Bad usage or a failure to capture is UNKNOWN (3), with
one line on stderr.
`

// Exit statuses of dcbtop check: the Nagios plugin return codes.
const (
	checkExitUnknown = int(verdict.Unknown)
)

// checkOptions are the parsed arguments of dcbtop check.
type checkOptions struct {
	ifaces      []string
	read        string
	localMAC    *lldp.MAC // --local-mac
	expect      string
	policy      *check.Policy
	wait        time.Duration
	json, junit bool
	// textfile is --textfile's directory, "" without it.
	textfile string
}

// defaultCheckWait is --wait's default: LLDP's usual transmit interval
// (30 s, IEEE 802.1AB msgTxInterval) and a little more.
const defaultCheckWait = 35 * time.Second

// checkFlags defines dcbtop check's flags on o, with their defaults.
func checkFlags(o *checkOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ifaceFlag(fs, &o.ifaces)
	documentDefault(fs, "i", "every up Ethernet interface, or every interface of the capture")
	fs.StringVar(&o.read, "r", "", "capture file")
	fs.Var(macValue{&o.localMAC}, "local-mac", "this host's end of an undirected capture")
	documentDefault(fs, "local-mac", "the evidence: System Capabilities, this host's MACs, the willing end")
	fs.StringVar(&o.expect, "expect", "", "policy file")
	durationFlag(fs, &o.wait, "wait", defaultCheckWait, "wait")
	fs.BoolVar(&o.json, "json", false, "JSON")
	fs.BoolVar(&o.junit, "junit", false, "JUnit")
	fs.StringVar(&o.textfile, "textfile", "", "textfile collector directory")
	return fs
}

// parseCheck parses the arguments after "check".
func parseCheck(args []string) (*checkOptions, error) {
	o := &checkOptions{}
	if err := parseCommand(checkFlags(o), args, &o.ifaces); err != nil {
		return nil, err
	}
	switch {
	case o.json && o.junit:
		return nil, errors.New("--json and --junit exclude each other")
	case o.wait <= 0:
		return nil, errors.New("--wait must be positive")
	case o.localMAC != nil && o.read == "":
		return nil, errors.New("--local-mac applies to -r only")
	}
	if p, ok := check.PresetPolicy(o.expect); ok {
		if _, err := os.Stat(o.expect); err != nil { // a file of that name wins
			o.policy = p
			return o, nil
		}
	}
	if o.expect != "" {
		b, err := readLimited(o.expect, 1<<20)
		if err != nil {
			return nil, fmt.Errorf("--expect: %w", err)
		}
		if o.policy, err = check.ParsePolicy(b); err != nil {
			return nil, fmt.Errorf("--expect %s: %w", o.expect, err)
		}
	}
	return o, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: over %d bytes", path, limit)
	}
	return b, nil
}

// runCheck runs dcbtop check and returns its exit status.
func runCheck(ctx context.Context, args []string, env Env) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprint(env.Stdout, checkUsage)
			return ExitOK
		}
	}
	o, err := parseCheck(args)
	if err != nil {
		see := " (dcbtop check --help)"
		if he := (*hintError)(nil); errors.As(err, &he) {
			see = ""
		}
		lines := errLines(err)
		for i, l := range lines {
			if i == len(lines)-1 {
				l += see
			}
			fmt.Fprintf(env.Stderr, "dcbtop check: UNKNOWN: %s\n", l)
		}
		return checkExitUnknown
	}
	if o.textfile != "" {
		if err := textfileWritable(o.textfile); err != nil {
			fmt.Fprintf(env.Stderr, "dcbtop check: UNKNOWN: --textfile %s: %v\n", o.textfile, err)
			return checkExitUnknown
		}
	}
	start := time.Now()
	var snap engine.Snapshot
	var ended check.End
	if o.read != "" {
		snap, err = checkReplay(ctx, o)
	} else {
		var progress io.Writer
		if env.StderrTTY {
			progress = env.Stderr
		}
		var ok bool
		if snap, ok = checkFromAgents(o.ifaces); ok {
			ended = check.EndAgent
		} else {
			snap, ended, err = checkLive(ctx, o, progress, env.checkRuntime)
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop check: UNKNOWN: %v\n", err)
		return checkExitUnknown
	}
	rep := check.NewReport(snap, o.ifaces, check.Options{Policy: o.policy, Replay: o.read != "", Ended: ended})
	if o.read != "" {
		rep.File = &o.read
	}
	f := output.Text
	switch {
	case o.json:
		f = output.JSON
	case o.junit:
		f = output.JUnit
	}
	if err := output.New(env.Stdout, f, output.WithColor(env.StdoutTTY && colorWanted())).Check(rep); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop check: UNKNOWN: write: %v\n", err)
		return checkExitUnknown
	}
	if o.textfile != "" {
		p := func(w io.Writer) error {
			return output.New(w, output.Textfile, output.WithRun(start, time.Now())).Check(rep)
		}
		if err := writeTextfile(filepath.Join(o.textfile, metrics.CheckTextfileName), p); err != nil {
			fmt.Fprintf(env.Stderr, "dcbtop check: UNKNOWN: --textfile %s: %v\n", o.textfile, unwrapPath(err))
			return checkExitUnknown
		}
	}
	return rep.Exit
}

// writeTextfile writes what print prints to path for node_exporter's
// textfile collector, which may read it at any moment: to a file made
// beside it, mode 0644, then renamed over it (as client_golang's
// prometheus.WriteToTextfile does).
func writeTextfile(path string, print func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := print(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// textfileWritable reports why dir cannot take --textfile's file: not
// there, not a directory, or not writable (tried by creating and
// removing a temporary file, which also catches a read-only mount for
// root). Checked before the run, so a wrong directory fails at once
// instead of after --wait.
func textfileWritable(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such directory")
	case err != nil:
		return unwrapPath(err)
	case !fi.IsDir():
		return errors.New("not a directory")
	}
	f, err := os.CreateTemp(dir, "."+metrics.CheckTextfileName+".*")
	if err != nil {
		return fmt.Errorf("not writable: %v", unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwrapPath drops a *fs.PathError's operation and path, which the
// caller's message already names ("permission denied", not "open
// /var/lib/x/.dcbtop_check.prom123: permission denied").
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// colorWanted reports whether the environment allows colours on a
// terminal (NO_COLOR unset, TERM not dumb).
func colorWanted() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// checkReplay judges what a capture file ends with.
func checkReplay(ctx context.Context, o *checkOptions) (engine.Snapshot, error) {
	release, err := waitFIFO(ctx, o.read)
	if err != nil {
		return engine.Snapshot{}, err
	}
	defer release()
	rt, err := session.Start(session.Config{Replay: o.read, LocalMAC: o.localMAC, Out: io.Discard, Version: version, Revision: revision})
	if err != nil {
		return engine.Snapshot{}, err
	}
	return checkEnd(ctx, rt, rt.Loop(ctx))
}

// checkEnd takes the final snapshot of a run whose Loop returned err and
// releases it: an interrupted check is an error (it judged nothing).
func checkEnd(ctx context.Context, rt *session.Runtime, err error) (engine.Snapshot, error) {
	snap := rt.Snapshot()
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	if err == nil && ctx.Err() != nil {
		err = errInterrupted
	}
	return snap, err
}

// checkLive captures until every interface checked has a verdict on its
// peer (valid, multi-peer, expired or shut down) and, after that, two
// counter samples (or checkCountersGrace has passed), or until --wait,
// and says which came first.
func checkLive(ctx context.Context, o *checkOptions, progress io.Writer, adjust func(*session.Config)) (engine.Snapshot, check.End, error) {
	root, err := sysfsRoot()
	if err != nil {
		return engine.Snapshot{}, "", err
	}
	eroot, err := ethtoolRoot()
	if err != nil {
		return engine.Snapshot{}, "", err
	}
	cfg := session.Config{Interfaces: o.ifaces, Screen: true, Out: io.Discard,
		CountersInterval: session.DefaultCountersInterval, SysfsRoot: root, EthtoolRoot: eroot, Version: version, Revision: revision}
	if adjust != nil {
		adjust(&cfg)
	}
	rt, err := session.Start(cfg)
	if err != nil {
		return engine.Snapshot{}, "", err
	}
	loopCtx, stop := context.WithTimeout(ctx, o.wait)
	defer stop()
	loopDone := make(chan error, 1)
	go func() { loopDone <- rt.Loop(loopCtx) }()

	w := newReadiness(o.ifaces)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	feed := rt.Feed().C()
	start := time.Now()
	said := ""
	ended := check.EndWait
	say := func(now time.Time) { // what the check waits for, on a terminal
		if progress == nil {
			return
		}
		line := ""
		if what := w.waitingFor(); what != "" {
			line = fmt.Sprintf("dcbtop check: waiting for %s (%s/%s)", what, fmtWait(now.Sub(start)), fmtWait(o.wait))
		}
		if line != said {
			fmt.Fprintf(progress, "\r\x1b[K%s", line)
			said = line
		}
	}
	defer func() {
		if said != "" {
			fmt.Fprint(progress, "\r\x1b[K") // the report follows on a clean line
		}
	}()
wait:
	for {
		select {
		case s, ok := <-feed:
			if !ok {
				break wait
			}
			if w.see(s, time.Now()) {
				ended = check.EndReady
				stop()
			}
			say(time.Now())
		case <-tick.C:
			if w.done(time.Now()) {
				ended = check.EndReady
				stop()
			}
			say(time.Now())
		case err = <-loopDone:
			loopDone = nil
			break wait
		}
	}
	if loopDone != nil {
		err = <-loopDone
	}
	snap, err := checkEnd(ctx, rt, err)
	return snap, ended, err
}

// checkFromAgents takes the snapshot a check judges from the dcbtop
// agents running on names (the show op of their control sockets), when
// every one answers with its peer settled and its counters sampled
// (what checkLive waits for); ok false otherwise, or without -i.
func checkFromAgents(names []string) (engine.Snapshot, bool) {
	if len(names) == 0 {
		return engine.Snapshot{}, false
	}
	snap := engine.Snapshot{Schema: engine.SchemaVersion, TakenAt: time.Now().UTC()}
	for _, name := range names {
		resp, _, err := askShow(name)
		if err != nil || !resp.OK || len(resp.Snapshot) == 0 {
			return engine.Snapshot{}, false
		}
		var in engine.Interface
		if json.Unmarshal(resp.Snapshot, &in) != nil || !in.RemoteSettled() || (in.Counters != nil && in.Counters.SampledAt.IsZero()) {
			return engine.Snapshot{}, false
		}
		snap.Interfaces = append(snap.Interfaces, in)
	}
	return snap, true
}
