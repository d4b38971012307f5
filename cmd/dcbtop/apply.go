// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop apply: set local DCB parameters (only the features given) and/or
// the DCBX Willing state, through a running dcbtop agent's control socket
// when one serves the interface, otherwise through the kernel (dcbnl
// IEEE_SET, read back and compared).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/statedir"
)

// applyUsage is dcbtop apply --help.
const applyUsage = `usage: dcbtop apply -i IFACE [PARAMS-FILE | -] [--willing on|off]
       dcbtop apply -i IFACE [--dry-run] [--trust LIST] [--dscp D=P,...]
                    [--dscp-delete D,...] [--pfc-delay N] [--buffer B]
                    [--maxrate TC:RATE,...] [--dcbx-mode MODE] [--pfc-storm-timeout MS]
                    [--rewr-dscp P:D,...] [--rewr-dscp-delete P,...] [--roce-tos DEV/PORT=TOS]
       dcbtop apply -i IFACE --forget

Sets the local DCB parameters the file gives (ets, ets_reco, pfc, app; a
PARAMS object as in dcbtop's JSON, - for stdin) and/or the DCBX Willing
state of IFACE: through the running dcbtop --agent on IFACE when there is
one (its control socket in /run/dcbtop, or $DCBTOP_RUN_DIR), otherwise
through the kernel (DCB netlink IEEE_SET, then read back and compared;
needs CAP_NET_ADMIN and a driver with DCB support). Nothing is reported as
applied unless it was read back.

  -i IFACE          the interface (exactly one)
  --willing on|off  the local DCBX Willing state (unchanged when not given)
  --forget          drop the parameters kept for IFACE's port: what an apply
                    or the screen set on a dcbtop agent is kept (per
                    permanent MAC, in /var/lib/dcbtop or $DCBTOP_STATE_DIR)
                    and the next agent there starts from it; a running
                    agent keeps advertising them until it stops
  -h, --help        this help

The host's QoS, which DCBX does not carry and the RoCE path judges, goes
straight to the kernel, previewed first (what changes, and what the RoCE
path, the diagnostics and dcbtop check say after it), then read back; the
command that undoes it is printed:
  --trust LIST      the trust table, most trusted first: dscp, pcp,
                    ethertype, tcp-port, udp-port, port (mlx5, which has
                    none, trusts DSCP while DSCP entries exist)
  --dscp D=P,...    DSCP → priority APP entries (each replaces its DSCP's)
  --dscp-delete D,...  remove the DSCP entries of these values
  --pfc-delay N     the PFC delay (bits; the cable length in metres on mlx5)
  --buffer B        the receive buffer split: 8 priority→buffer numbers,
                    a colon, the buffers' sizes in bytes
                    (0,0,0,1,0,0,0,0:131072,131072)
  --maxrate TC:RATE,...  per-TC transmit rate limits, as dcb maxrate's
                    tc-maxrate (3:25gbit,0:10gbit; all:RATE; 0 no limit;
                    kbit, mbit, gbit, tbit: bits per second), written as
                    struct ieee_maxrate's kbit/s; the other TCs' kept
  --dcbx-mode MODE  who runs DCBX on the NIC: host (an agent on this host:
                    lldpad, dcbtop --agent) or lld-managed (the NIC
                    firmware), optionally ,ieee or ,cee (one version;
                    without it the one in force, else IEEE)
  --pfc-storm-timeout MS  the PFC storm guard's timeout in ms, off or
                    auto: the ethtool tunable pfc-prevention-tout, where
                    the driver has it (mlx5: 80-8000 ms)
  --rewr-dscp P:D,...  the APP rewrite table's DSCP for the frames of a
                    priority, as dcb rewr's prio-dscp (each replaces its
                    priority's); Linux 6.3 and later
  --rewr-dscp-delete P,...  remove the DSCP rewrites of these priorities
  --roce-tos DEV/PORT=TOS  the ToS rdma_cm stamps on new connections of
                    an RDMA port (configfs; mkdir rdma_cm/DEV when needed):
                    106 is DSCP 26, ECT(0)
  --dry-run         preview the QoS fields only, write nothing

A file whose one member is "qos" gives the same fields:
  {"qos": {"trust": ["dscp", "pcp"], "dscp": [{"dscp": 26, "priority": 3}],
           "dscp_delete": [46], "pfc_delay": 7,
           "buffer": {"prio_buffer": [0,0,0,1,0,0,0,0], "size_bytes": [131072,131072,0,0,0,0,0,0]},
           "maxrate": [{"tc": 3, "kbps": 25000000}], "dcbx_mode": "host",
           "pfc_storm_timeout_ms": 100, "rewrite_dscp": [{"priority": 3, "dscp": 26}],
           "rewrite_dscp_delete": [5],
           "roce_tos": [{"device": "mlx5_0", "port": 1, "tos": 106}]}}

The file is checked whole before anything is sent: unknown fields, arrays
not of 8, a key or an APP entry given twice, values out of range. It may be
at most 1 MiB. Reading stdin from a terminal ends with Ctrl-D.

Examples:
  sudo dcbtop apply -i eth0 params.json
  sudo dcbtop apply -i eth0 --willing off
  echo '{"pfc": {"willing": true, "cap": 8, "enabled": [3]}}' | sudo dcbtop apply -i eth0 -
  sudo dcbtop apply -i eth0 --dry-run --trust dscp,pcp --dscp 26=3
  sudo dcbtop apply -i eth0 --roce-tos mlx5_0/1=106
  sudo dcbtop apply -i eth0 --maxrate 3:25gbit
  sudo dcbtop apply -i eth0 --dcbx-mode host

Exit status: 0 applied (or nothing to change), 1 not applied, 2 bad usage,
130 interrupted while waiting for input.
`

// applyOptions are the parsed arguments of dcbtop apply.
type applyOptions struct {
	iface   string
	file    string // "" when none; "-" is stdin
	willing *bool
	// qos are the host QoS fields; dryRun previews them only.
	qos    qos.Change
	dryRun bool
	// forget drops what is kept for the port (statedir.Dir.Forget).
	forget bool
}

// applyFlags defines dcbtop apply's flags on o and ifaces.
func applyFlags(o *applyOptions, ifaces *[]string) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop apply", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ifaceFlag(fs, ifaces)
	fs.Var(optOnOffValue{&o.willing}, "willing", "on|off")
	fs.Var(trustValue{&o.qos}, "trust", "trust table")
	fs.Var(dscpValue{&o.qos}, "dscp", "DSCP=PRIORITY,...")
	fs.Var(dscpDeleteValue{&o.qos}, "dscp-delete", "DSCP,...")
	fs.Var(pfcDelayValue{&o.qos}, "pfc-delay", "PFC delay")
	fs.Var(bufferValue{&o.qos}, "buffer", "buffer split")
	fs.Var(maxRateValue{&o.qos}, "maxrate", "TC:RATE,...")
	fs.Var(dcbxModeValue{&o.qos}, "dcbx-mode", "host|lld-managed")
	fs.Var(stormTimeoutValue{&o.qos}, "pfc-storm-timeout", "MS|off|auto")
	fs.Var(rewrDSCPValue{&o.qos}, "rewr-dscp", "PRIO:DSCP,...")
	fs.Var(rewrDSCPDeleteValue{&o.qos}, "rewr-dscp-delete", "PRIO,...")
	fs.Var(roceToSValue{&o.qos}, "roce-tos", "DEV/PORT=TOS")
	fs.BoolVar(&o.dryRun, "dry-run", false, "preview only")
	fs.BoolVar(&o.forget, "forget", false, "drop the kept parameters")
	return fs
}

// parseApply parses the arguments after "apply". Flags and the FILE may
// come in any order.
func parseApply(args []string) (*applyOptions, error) {
	o := &applyOptions{}
	var ifaces, files []string
	fs := applyFlags(o, &ifaces)
	for {
		if err := parseFlags(fs, args); err != nil {
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
		return nil, errors.New("name the interface with -i")
	case slices.Contains(ifaces, "any"):
		return nil, errors.New("-i any: apply changes one interface at a time; name it")
	case len(ifaces) > 1:
		return nil, errors.New("exactly one -i")
	case len(files) > 1:
		return nil, fmt.Errorf("unexpected argument %q (one PARAMS FILE at most)", files[1])
	case o.forget && (len(files) > 0 || o.willing != nil || !o.qos.Empty() || o.dryRun):
		return nil, errors.New("--forget drops the kept parameters and sets nothing: give it alone with -i")
	case o.forget: // nothing else to check
	case !o.qos.Empty() && (len(files) > 0 || o.willing != nil):
		return nil, errQoSWithAgentParams
	case o.dryRun && o.qos.Empty() && len(files) == 0:
		return nil, errors.New("--dry-run previews the QoS fields (" + qosFlagList + ", or a file's qos): give one")
	case len(files) == 0 && o.willing == nil && o.qos.Empty():
		return nil, errors.New("give a PARAMS FILE (- for stdin), --willing on|off, or both")
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
		return usageError(env, err, "apply", applyUsage)
	}
	return exitFor(env, apply(ctx, o, env))
}

// readParamsFile parses a PARAMS file, or stdin for "-": at most
// MaxParamsFile bytes, interruptibly (a FIFO without a writer, a terminal
// waiting for input), then checked as a whole (dcb.Params.Errors)
// before anything is sent anywhere. A file whose one member is "qos" is
// the host QoS fields instead (qos.Change's JSON: trust, dscp,
// dscp_delete, pfc_delay, buffer, maxrate, dcbx_mode,
// pfc_storm_timeout_ms, rewrite_dscp, rewrite_dscp_delete, roce_tos), read
// as strictly.
func readParamsFile(ctx context.Context, name string, env Env) (*dcb.Params, *qos.Change, error) {
	open := func() (io.ReadCloser, error) { return os.Open(name) }
	if name == "-" {
		stdin := env.Stdin
		if stdin == nil {
			if isTerminal(os.Stdin) {
				fmt.Fprintln(env.Stderr, "dcbtop: reading parameters from standard input; end with Ctrl-D")
			}
			stdin = os.Stdin
		}
		open, name = func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }, "stdin"
	}
	b, err := readBounded(ctx, name, open, MaxParamsFile)
	if err != nil {
		return nil, nil, err
	}
	if q, ok, err := qosFile(b); ok {
		if err != nil {
			return nil, nil, fmt.Errorf("%s: invalid qos, nothing applied: %w", name, err)
		}
		return nil, q, nil
	}
	p, err := dcb.ParseValidParams(bytes.NewReader(b))
	if err != nil {
		// Every problem at its line and column, one a line (errLines).
		return nil, nil, fmt.Errorf("%s: invalid parameters, nothing applied: %w", name, err)
	}
	if err := p.Errors(); err != nil {
		return nil, nil, fmt.Errorf("%s: invalid parameters, nothing applied: %w", name, err)
	}
	return p, nil, nil
}

// qosFile reads a file whose one member is "qos" (ok true), strictly:
// unknown fields are errors, and so is a qos that changes nothing or a
// file that holds PARAMS beside it.
func qosFile(b []byte) (q *qos.Change, ok bool, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return nil, false, nil // not an object: the PARAMS parser says why
	}
	raw, ok := top["qos"]
	switch {
	case !ok:
		return nil, false, nil
	case len(top) > 1:
		return nil, true, errors.New("a file with qos holds nothing else: apply PARAMS and the host QoS in two commands")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	q = &qos.Change{}
	if err := dec.Decode(q); err != nil {
		return nil, true, err
	}
	if q.Empty() {
		return nil, true, errors.New("qos changes nothing (give trust, dscp, dscp_delete, pfc_delay, buffer, maxrate, dcbx_mode, pfc_storm_timeout_ms, rewrite_dscp, rewrite_dscp_delete or roce_tos)")
	}
	return q, true, nil
}

func apply(ctx context.Context, o *applyOptions, env Env) error {
	if o.forget {
		return forgetKept(o.iface, env)
	}
	if !o.qos.Empty() {
		return applyQoS(o, env)
	}
	var params *dcb.Params
	if o.file != "" {
		var (
			qos *qos.Change
			err error
		)
		if params, qos, err = readParamsFile(ctx, o.file, env); err != nil {
			return err
		}
		switch {
		case qos != nil && o.willing != nil:
			return errQoSWithAgentParams
		case qos != nil:
			o.qos = *qos
			return applyQoS(o, env)
		case o.dryRun:
			return fmt.Errorf("%s: --dry-run previews the host QoS (a file's qos, or the QoS flags), not PARAMS", o.file)
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
	resp, err := control.Do(path, control.Request{Op: "apply", Params: params, Willing: o.willing}, control.Timeout)
	var de *control.DialError
	unreachable, dead := "", ""
	switch {
	case errors.As(err, &de):
		// No agent here: the kernel. (Or one we may not talk to, or a
		// socket an agent that died left behind: said below.)
		switch {
		case errors.Is(de.Err, os.ErrPermission):
			unreachable = path
		case errors.Is(de.Err, syscall.ECONNREFUSED):
			dead = path
		}
	case err != nil:
		return agentNoAnswer(o.iface, path, err)
	case !resp.OK:
		return fmt.Errorf("%s: the running dcbtop agent refused: %s", o.iface, resp.Error)
	default:
		fmt.Fprintln(env.Stdout, agentReport(o.iface, resp))
		return nil
	}
	if unreachable != "" && !control.Privileged() {
		// The real cause first: neither the agent nor the kernel takes
		// this process's writes.
		return fmt.Errorf("%s: permission denied: dcbtop apply needs root or CAP_NET_ADMIN (the dcbtop agent's control socket %s is root's, and DCB netlink writes need CAP_NET_ADMIN); run it with sudo", o.iface, unreachable)
	}
	// An agent that died (kill -9) leaves its socket: the apply goes to
	// the kernel, and what is said names the dead agent first.
	deadAgent := func(err error) error {
		if dead == "" {
			return err
		}
		return fmt.Errorf("%s: the dcbtop agent of %s no longer runs (its control socket %s refuses connections), and the kernel did not take it either: %w", o.iface, o.iface, dead, errors.Unwrap(err))
	}
	res, err := kernel.NewWriter(nil, nil).Apply(o.iface, params, o.willing)
	if de := (*kernel.DialError)(nil); errors.As(err, &de) {
		return deadAgent(fmt.Errorf("%s: DCB netlink: %w", o.iface, de.Err))
	}
	// The result's lines (notes, then what was applied) go to stdout, its
	// failure to stderr, each after the interface name.
	for _, l := range res.Lines() {
		fmt.Fprintf(env.Stdout, "%s: %s\n", o.iface, l)
	}
	if res.Err == nil {
		if dead != "" {
			fmt.Fprintf(env.Stdout, "%s: note: written to the kernel: the dcbtop agent of %s no longer runs (its control socket %s refuses connections); its LLDP peers see nothing until an agent runs again\n", o.iface, o.iface, dead)
		}
		return nil
	}
	if dead != "" {
		return deadAgent(fmt.Errorf("%s: %w", o.iface, res.Err))
	}
	if unreachable != "" {
		return fmt.Errorf("%s: %w (a dcbtop agent's control socket, %s, may not be reached without root)", o.iface, res.Err, unreachable)
	}
	return fmt.Errorf("%s: %w", o.iface, res.Err)
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
	out := fmt.Sprintf("%s: applied through %s: %s; its LLDP peers see it within 1 s", ifname, agent, strings.Join(resp.Changed, ", "))
	switch {
	case resp.Kept != "":
		out += "; kept for the next agent on this port (" + engine.Sanitize(resp.Kept) + ")"
	case resp.KeptError != "":
		out += "; not kept for the next agent: " + engine.Sanitize(resp.KeptError)
	}
	return out
}

// agentNoAnswer says what an agent that did not answer means for the
// request: with a deadline (control.NoAnswerError), exactly whether it
// may be applied.
func agentNoAnswer(iface, path string, err error) error {
	var na *control.NoAnswerError
	switch {
	case errors.As(err, &na) && na.Taken:
		return fmt.Errorf("%s: the dcbtop agent took the request but gave no answer (%v): it may be applied; dcbtop -i %s --json --duration 1s shows the local parameters", iface, na.Err, iface)
	case errors.As(err, &na) && !na.Deadline.IsZero():
		return fmt.Errorf("%s: not applied: the dcbtop agent (control socket %s) did not take the request by its deadline %s (%v; the agent is stopped or busy), and an agent never takes a request past its deadline", iface, path, na.Deadline.Format("15:04:05.000"), na.Err)
	default:
		return fmt.Errorf("%s: the dcbtop agent's control socket %s did not answer: %v", iface, path, err)
	}
}

// forgetKept is dcbtop apply --forget: it drops the local state kept for
// iface's port (its permanent MAC, else its MAC: statedir.KeyOf).
func forgetKept(iface string, env Env) error {
	l, err := capture.LinkByName(iface)
	if err != nil {
		return err
	}
	key, permanent := statedir.KeyOf(l.PermMAC, l.MAC)
	which := "permanent MAC"
	if !permanent {
		which = "MAC (it has no permanent one)"
	}
	path, removed, err := statedir.Default().Forget(key)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", iface, err)
	case !removed:
		fmt.Fprintf(env.Stdout, "%s: nothing kept for its %s %s (%s)\n", iface, which, key, path)
	default:
		fmt.Fprintf(env.Stdout, "%s: forgot the parameters kept for its %s %s (%s); a running dcbtop agent keeps advertising them until it stops\n", iface, which, key, path)
	}
	return nil
}
