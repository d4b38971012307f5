// Package cli is dcbtop's command line: it parses arguments, wires capture
// sources to the engine and writes the headless outputs. cmd/dcbtop only
// calls Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Exit statuses (DESIGN.md "Command line").
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// version and revision are set with -ldflags -X by the Makefile.
var (
	version  = "dev"
	revision = "unknown"
)

// An Env is what Run may touch of the process: its streams and whether
// stdout is a terminal.
type Env struct {
	Stdout, Stderr io.Writer
	StdoutTTY      bool
}

// options are the parsed command line.
type options struct {
	ifaces   []string
	read     string
	json     bool
	events   bool
	duration time.Duration
	speed    float64
	version  bool
}

const usage = `dcbtop: top for Data Center Bridging (LLDP / DCBX)

Usage:
  dcbtop -r FILE.pcap [--json | --events] [--speed X]
                                   replay a capture (pcap or pcapng)

Options:
  -r FILE        replay FILE; capture timestamps drive the clock
  --json         print one snapshot (JSON) after the last frame and exit
  --events       print each indication as one JSON line (NDJSON) and exit
  --speed X      replay pacing: 0 = as fast as possible (default for --json
                 and --events), 1 = recorded speed, 4 = four times faster
  --version      print the version and exit
  --help         this help

Without --json or --events dcbtop prints a live text log of indications
(the interactive screen arrives with a later release).

Exit status: 0 success, 1 runtime failure, 2 bad usage.
`

// Run executes dcbtop with args (without the program name) and returns the
// exit status. Errors are printed to env.Stderr as one line.
func Run(ctx context.Context, args []string, env Env) int {
	o, err := parse(args, env)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: %v (see dcbtop --help)\n", err)
		return ExitUsage
	}
	if o.version {
		fmt.Fprintf(env.Stdout, "dcbtop %s (git %s)\n", version, revision)
		return ExitOK
	}
	if err := runReplay(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

func parse(args []string, env Env) (*options, error) {
	o := &options{speed: -1}
	fs := flag.NewFlagSet("dcbtop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("i", "interface (repeatable)", func(s string) error { o.ifaces = append(o.ifaces, s); return nil })
	fs.StringVar(&o.read, "r", "", "replay a capture file")
	fs.BoolVar(&o.json, "json", false, "print a snapshot")
	fs.BoolVar(&o.events, "events", false, "print indications as NDJSON")
	fs.DurationVar(&o.duration, "duration", 0, "stop after D")
	fs.Func("speed", "replay speed", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("want a number of 0 or more")
		}
		o.speed = v
		return nil
	})
	fs.BoolVar(&o.version, "version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.version {
		return o, nil
	}
	switch {
	case o.json && o.events:
		return nil, errors.New("--json and --events are exclusive")
	case len(o.ifaces) > 0:
		return nil, errors.New("live capture (-i) is not available in this build; use -r FILE")
	case o.read == "":
		return nil, errors.New("nothing to do: give -r FILE")
	case o.duration != 0:
		return nil, errors.New("--duration applies to live capture only")
	}
	if o.speed < 0 {
		o.speed = 0
		if !o.json && !o.events {
			o.speed = 1
		}
	}
	return o, nil
}
