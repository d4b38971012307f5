// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// showUsage is dcbtop show --help.
const showUsage = `usage: dcbtop show [-i IFACE]... [--json] [--wait D]

Answers at once what dcbtop knows of each interface, as lldptool -t,
lldpcli show neighbors and dcb pfc show do: the peers, the local, remote
and operational parameters, the diagnostics and the check verdicts.

From the dcbtop agent running on the interface (its control socket, in
/run/dcbtop or $DCBTOP_RUN_DIR), which has heard the peer all along: the
answer takes milliseconds. Without one, from the kernel now (the driver's
DCB state through DCB netlink, the counters) with the peer unknown, unless
--wait D listens for it that long (an LLDP peer sends at least every 30 s;
35s hears one). Read-only: it never transmits or writes.

  -i IFACE   an interface (repeatable; without -i, every up Ethernet one)
  --json     {"interfaces": [...]}, each a snapshot's interface object as
             dcbtop --json writes it, with "source" saying where it came from
  --wait D   without a running agent, capture for D to hear the peer
             (default 0s); 0s does not wait
  -h, --help this help

Examples:
  sudo dcbtop show -i eth0
  sudo dcbtop show -i eth0 --json | jq '.interfaces[0].operational.pfc'
  sudo dcbtop show -i eth0 --wait 35s

Exit status: 0 answered, 1 an interface could not be read, 2 bad usage.
`

// showOptions are the parsed arguments of dcbtop show.
type showOptions struct {
	ifaces []string
	json   bool
	wait   time.Duration
}

// showFlags defines dcbtop show's flags on o.
func showFlags(o *showOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ifaceFlag(fs, &o.ifaces)
	fs.BoolVar(&o.json, "json", false, "JSON")
	fs.DurationVar(&o.wait, "wait", 0, "capture for D without an agent")
	return fs
}

// A shown is one interface's answer and where it came from.
type shown struct {
	engine.Interface
	// Source: "agent (pid N)" or "kernel (no capture running: ...)".
	Source string `json:"source"`
}

// runShow is dcbtop show.
func runShow(ctx context.Context, args []string, env Env) int {
	o := &showOptions{}
	fs := showFlags(o)
	err := parseFlags(fs, args)
	switch {
	case err != nil:
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.wait < 0 || o.wait > time.Hour:
		err = fmt.Errorf("--wait %v: want 0 to 1h", o.wait)
	}
	if err != nil {
		return usageError(env, err, "show", showUsage)
	}
	out, err := show(ctx, o)
	if len(out) > 0 {
		if perr := printShown(env.Stdout, out, o.json); perr != nil && err == nil {
			err = perr
		}
	}
	return exitFor(env, err)
}

// show asks each interface's running agent, and reads the kernel for the
// others (one live run over all of them, --wait long).
func show(ctx context.Context, o *showOptions) ([]shown, error) {
	names := o.ifaces
	if len(names) == 0 {
		links, err := capture.Interfaces()
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if l.Up && l.VLAN == 0 {
				names = append(names, l.Name)
			}
		}
		if len(names) == 0 {
			return nil, errors.New("no up Ethernet interface: name one with -i")
		}
	}
	out := make([]shown, len(names))
	var rest []string // no agent answered
	var errs []error
	for i, name := range names {
		resp, via, err := askShow(name)
		var de *control.DialError
		switch {
		case errors.As(err, &de):
			rest = append(rest, name)
			continue
		case err != nil:
			errs = append(errs, agentNoAnswer(name, via, err))
		case !resp.OK || len(resp.Snapshot) == 0:
			errs = append(errs, fmt.Errorf("%s: the running dcbtop did not show it: %s", name, resp.Error))
		default:
			var in engine.Interface
			if err := json.Unmarshal(resp.Snapshot, &in); err != nil {
				errs = append(errs, fmt.Errorf("%s: the running dcbtop's answer: %v", name, err))
				continue
			}
			who := "agent"
			if via != control.Path(control.RunDir(), name) {
				who = "running dcbtop"
			}
			out[i] = shown{Interface: in, Source: fmt.Sprintf("%s (pid %d, %s)", who, resp.PID, resp.At.Format(time.RFC3339))}
			continue
		}
		out[i].Name = "" // not answered
	}
	if len(rest) > 0 {
		snap, err := showKernel(ctx, rest, o.wait)
		if err != nil {
			errs = append(errs, err)
		}
		why := "kernel (no capture running: the peer is unknown; --wait 35s listens for it)"
		if o.wait > 0 {
			why = fmt.Sprintf("kernel and a %v capture (no dcbtop agent running here)", o.wait)
		}
		for _, in := range snap.Interfaces {
			for i, name := range names {
				if name == in.Name && out[i].Name == "" {
					out[i] = shown{Interface: in, Source: why}
				}
			}
		}
	}
	kept := out[:0]
	for _, s := range out {
		if s.Name != "" {
			kept = append(kept, s)
		}
	}
	return kept, errors.Join(errs...)
}

// askShow asks the dcbtop that runs on name for its view: its agent's
// control socket, else the view socket of a dcbtop without an agent there
// (an exporter, a screen: control.ListenView). via is the socket asked
// last; a *control.DialError means neither runs.
func askShow(name string) (resp control.Response, via string, err error) {
	for _, path := range []string{control.Path(control.RunDir(), name), control.ViewPath(control.RunDir(), name)} {
		via = path
		resp, err = control.Do(path, control.Request{Op: "show"}, control.Timeout)
		if _, dial := errors.AsType[*control.DialError](err); !dial {
			return resp, via, err
		}
	}
	return resp, via, err
}

// showKernel reads names from the kernel as a live run does at its start
// (the driver's DCB state and a counters sample, read first thing), and
// captures for wait: a read-only run, no agent.
func showKernel(ctx context.Context, names []string, wait time.Duration) (engine.Snapshot, error) {
	root, err := sysfsRoot()
	if err != nil {
		return engine.Snapshot{}, err
	}
	eroot, err := ethtoolRoot()
	if err != nil {
		return engine.Snapshot{}, err
	}
	if wait == 0 {
		wait = 500 * time.Millisecond // the start's readings, no more
	}
	rt, err := session.Start(session.Config{Interfaces: names, Duration: wait, Screen: true, Out: io.Discard,
		CountersInterval: session.DefaultCountersInterval, SysfsRoot: root, EthtoolRoot: eroot, Version: version, Revision: revision})
	if err != nil {
		return engine.Snapshot{}, err
	}
	snap, err := checkEnd(ctx, rt, rt.Loop(ctx))
	return snap, err
}

// printShown prints the answers: JSON ({"interfaces": [...]}, each a
// snapshot's interface object with "source"), or text, a few lines an
// interface.
func printShown(w io.Writer, out []shown, asJSON bool) error {
	if asJSON {
		b, err := engine.MarshalOutput(struct {
			Interfaces []shown `json:"interfaces"`
		}{out}, true)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var b strings.Builder
	for _, s := range out {
		fmt.Fprintf(&b, "%s: from the %s\n", s.Name, s.Source)
		willing := "unknown"
		if s.Willing != nil {
			willing = map[bool]string{true: "on", false: "off"}[*s.Willing]
		}
		fmt.Fprintf(&b, "  local (%s, willing %s): %s\n", s.LocalSource.Describe(), willing, paramsText(s.Local))
		if a := s.AgentDCBX; a != nil {
			fmt.Fprintf(&b, "  agent speaks %s\n", a.Why)
			if c := a.Control; c != nil {
				fmt.Fprintf(&b, "  agent's CEE control: seq %d, ack %d, the peer acknowledged %d\n", c.Seq, c.Ack, c.PeerAck)
				for _, w := range [...]struct{ name, why string }{{"PG", c.PGWait}, {"PFC", c.PFCWait}, {"App", c.AppWait}} {
					if w.why != "" {
						fmt.Fprintf(&b, "  agent's CEE %s: %s\n", w.name, w.why)
					}
				}
			}
		}
		switch {
		case s.RemotePeer != nil:
			fmt.Fprintf(&b, "  remote (%s, %s): %s\n", engine.Sanitize(*s.RemotePeer), s.Dialect, paramsText(s.Remote))
		case strings.HasPrefix(s.Source, "kernel (no capture"):
			b.WriteString("  remote: unknown (no capture running)\n")
		default:
			b.WriteString("  remote: no peer heard\n")
		}
		fmt.Fprintf(&b, "  operational: %s\n", paramsText(s.Operational))
		for _, d := range s.Diagnostics {
			fmt.Fprintf(&b, "  %s %s: %s\n", d.Severity, d.Code, engine.Sanitize(d.Message))
		}
		for _, c := range s.Checks {
			fmt.Fprintf(&b, "  check %s: %s: %s\n", c.Check, c.Verdict, engine.Sanitize(c.Summary))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// paramsText is a PARAMS object in one line, "unknown" for nil.
func paramsText(p *dcb.Params) string {
	if p == nil {
		return "unknown"
	}
	return engine.Sanitize(p.String())
}
