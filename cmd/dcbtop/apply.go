package main

// dcbtop apply: set local DCB parameters (only the features given) and/or
// the DCBX Willing state, through a running dcbtop agent's control socket
// when one serves the interface, otherwise through the kernel (dcbnl
// IEEE_SET, read back and compared).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/engine"
)

// applyOptions are the parsed arguments of dcbtop apply.
type applyOptions struct {
	iface   string
	file    string // "" when none; "-" is stdin
	willing *bool
}

// parseApply parses the arguments after "apply". Flags and the FILE may
// come in any order.
func parseApply(args []string) (*applyOptions, error) {
	o := &applyOptions{}
	var ifaces, files []string
	fs := flag.NewFlagSet("dcbtop apply", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("i", "interface", func(s string) error {
		if s == "" {
			return errors.New("empty interface name")
		}
		ifaces = append(ifaces, s)
		return nil
	})
	fs.Func("willing", "on|off", func(s string) error {
		var w bool
		switch s {
		case "on":
			w = true
		case "off":
		default:
			return errors.New("want on or off")
		}
		o.willing = &w
		return nil
	})
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(ifaces) == 0:
		return nil, errors.New("apply: name the interface with -i")
	case len(ifaces) > 1:
		return nil, errors.New("apply: exactly one -i")
	case len(files) > 1:
		return nil, fmt.Errorf("apply: unexpected argument %q (one PARAMS FILE at most)", files[1])
	case len(files) == 0 && o.willing == nil:
		return nil, errors.New("apply: give a PARAMS FILE (- for stdin), --willing on|off, or both")
	}
	o.iface = ifaces[0]
	if len(files) == 1 {
		o.file = files[0]
	}
	return o, nil
}

// runApply is dcbtop apply.
func runApply(ctx context.Context, args []string, env Env) int {
	o, err := parseApply(args)
	if err != nil {
		return usageError(env, err, "", usage)
	}
	if err := apply(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: %s\n", control.OneLine(err.Error()))
		return ExitFailure
	}
	return ExitOK
}

// readParamsFile parses a PARAMS file, or stdin for "-".
func readParamsFile(name string, stdin io.Reader) (*engine.Params, error) {
	var r io.Reader
	if name == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		r, name = stdin, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, errors.Unwrap(err))
		}
		defer f.Close()
		r = f
	}
	p, err := engine.ParseParams(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

func apply(ctx context.Context, o *applyOptions, env Env) error {
	var params *engine.Params
	if o.file != "" {
		var err error
		if params, err = readParamsFile(o.file, env.Stdin); err != nil {
			return err
		}
		if params.Groups() == 0 {
			if o.willing == nil {
				return fmt.Errorf("%s: no feature given (ets, ets_reco, pfc or app)", o.file)
			}
			params = nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// A running agent first: it owns what is advertised on the interface.
	path := control.Path(control.RunDir(), o.iface)
	resp, err := control.Do(path, control.Request{Op: "apply", Params: params, Willing: o.willing}, control.Timeout+time.Second)
	var de *control.DialError
	unreachable := ""
	switch {
	case errors.As(err, &de):
		// No agent here: the kernel. (Or one we may not talk to: said
		// below if the kernel fails too.)
		if errors.Is(de.Err, os.ErrPermission) {
			unreachable = path
		}
	case err != nil:
		return fmt.Errorf("%s: the dcbtop agent's control socket %s did not answer: %v", o.iface, path, err)
	case !resp.OK:
		return fmt.Errorf("%s: the running dcbtop agent refused: %s", o.iface, resp.Error)
	default:
		fmt.Fprintln(env.Stdout, agentReport(o.iface, resp))
		return nil
	}
	c, closeC, err := kernel.Dial()
	if err != nil {
		return fmt.Errorf("%s: DCB netlink: %w", o.iface, err)
	}
	defer closeC()
	lines, err := kernel.Apply(c, o.iface, params, o.willing)
	for _, l := range lines {
		fmt.Fprintln(env.Stdout, l)
	}
	if err != nil && unreachable != "" {
		err = fmt.Errorf("%w (a dcbtop agent's control socket, %s, may not be reached without root)", err, unreachable)
	}
	return err
}

// agentReport is the line printed after an apply through the agent.
func agentReport(ifname string, resp control.Response) string {
	agent := "the running dcbtop agent"
	if resp.PID > 0 {
		agent = fmt.Sprintf("the running dcbtop agent (pid %d)", resp.PID)
	}
	if len(resp.Changed) == 0 {
		return fmt.Sprintf("%s: nothing changed: %s already advertises these parameters", ifname, agent)
	}
	return fmt.Sprintf("%s: applied through %s: %s; its LLDP peers see it within 1 s", ifname, agent, strings.Join(resp.Changed, ", "))
}
