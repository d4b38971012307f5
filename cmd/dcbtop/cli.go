// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop's command line: Run parses the arguments, dispatches to the
// commands, wires capture sources to the engine and writes the headless
// outputs; main only calls Run.

import (
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/metricserver"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/capture/snapfile"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/jsondoc"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/ui"
)

// Exit statuses (docs/usage.md "Usage", dcbtop(8) EXIT STATUS).
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// version and revision are set with -ldflags -X by the Makefile; main
// fills them from the build information Go embeds when they are not (a
// plain go build, see versionInfo).
var (
	version  = "dev"
	revision = "unknown"
)

// An Env is what Run may touch of the process: its streams and whether
// stdout is a terminal. A nil Stdin is os.Stdin.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	StdoutTTY      bool
	// StderrTTY: stderr is a terminal (dcbtop check says there what it
	// waits for).
	StderrTTY bool
	// checkRuntime, when set, adjusts a live check's runtime
	// configuration (tests: an in-memory link and counters).
	checkRuntime func(*session.Config)
}

// options are the parsed command line.
type options struct {
	noMouse bool // --no-mouse
	// textEvents prints indications as plain lines (TERM=dumb), dumb says
	// so on stderr.
	textEvents, dumb bool
	// text is --text: the indications as plain lines, on any output.
	text       bool
	ifaces     []string
	read       string
	localMAC   *lldp.MAC // --local-mac
	json       bool
	events     bool
	duration   time.Duration
	speed      float64
	write      string
	agent      bool
	local      string
	willing    bool
	willingSet bool
	force      bool
	txInterval time.Duration
	// countersEvery is --counters-interval (negative: sampling off);
	// countersSet says it was given.
	countersEvery time.Duration
	// sampler, when set, samples the counters instead of this host's
	// sources (the demo's simulated NIC).
	sampler session.Sampler
	// configFS, when set, is where the screen's host QoS fixes write
	// rdma_cm's configfs (the demo's simulated NIC's).
	configFS    rdma.WriteFS
	countersSet bool
	// sysfsRoot is DCBTOP_SYSFS_ROOT ("" /sys); ethtoolRoot is
	// DCBTOP_ETHTOOL_ROOT ("" the ethtool ioctls).
	sysfsRoot, ethtoolRoot string
	version                bool
	// frames is --frames (or --frame): every LLDPDU of the replay, or the
	// one numbered frameN (--frame N; 0: every one), from the sender
	// fromMAC only (--from; nil: every sender).
	frames  bool
	frameN  uint64
	fromMAC *lldp.MAC
	// The interactive screen: tui when stdout is a terminal and no
	// headless output was asked for; notTTY when stdout is not a terminal
	// and --events was implied.
	tui    bool
	notTTY bool
	// quiet: nothing but the recording on standard output (-w -).
	quiet       bool
	color       ui.ColorMode
	snapshotDir string
	metrics     string // --metrics ADDR
	// The exporter's flags as exporter-toolkit spells them:
	// --web.listen-address (repeatable), --web.systemd-socket,
	// --web.config.file.
	webListen     []string
	systemdSocket bool
	webConfig     string

	// Set by dcbtop demo, never by flags: the agent's local parameters,
	// the links to capture on and how to open them, a banner, whether to
	// serve no control socket, and the clock (the zero value is the real
	// clock; the demo's may run faster).
	localParams *dcb.Params
	links       []capture.Link
	openLive    func(name string) (session.Conn, error)
	banner      string
	noControl   bool
	clock       capture.Clock
	// demoStart is when the demo's scenario started (its clock's origin).
	demoStart time.Time
	// The demo's screen: its progress (the initial status) and the poster
	// the simulated switch's observer posts status changes to.
	demo *ui.DemoStatus
	post *poster
}

// notTTYNotice is printed on stderr when stdout is not a terminal and no
// headless output was asked for: dcbtop then behaves as with --events.
const notTTYNotice = "dcbtop: stdout is not a terminal: printing indications as NDJSON (use --events, --json or run in a terminal)\n"

// usage is dcbtop --help (and dcbtop help).
const usage = `dcbtop: top for Data Center Bridging (LLDP / DCBX)

Usage:
  dcbtop [-i IFACE]... [--agent ...] [-w FILE]
                                   the interactive screen, live: every up
                                   Ethernet interface by default
  dcbtop -r FILE.pcap [--speed X]  the interactive screen on a capture
                                   (pcap or pcapng) replayed at its speed
  dcbtop ... --json | --events | --text
                                   headless: a snapshot, or indications as
                                   NDJSON, on stdout (no screen)
  dcbtop -r FILE --frames [--from MAC] [--json] | --frame N
                                   every LLDPDU of a capture and what
                                   changed, or one in hex and decoded
  dcbtop apply -i IFACE [FILE.json | -] [--willing on|off]
                                   set local parameters (see below)
  dcbtop demo [--json | --events | --text] [--duration D] [--speed X]
                                   against the built-in simulated switch
  dcbtop check [-i IFACE]... [-r FILE] [--expect POLICY] [--json | --junit]
                                   a lossless (RoCE) readiness verdict per
                                   interface, exit status as a Nagios plugin
  dcbtop bundle [-i IFACE]... [--duration D] [--redact] [-o FILE]
                                   record every LLDPDU and every input read
                                   from the host into one file for a ticket
  dcbtop show [-i IFACE]... [--json] [--wait D]
                                   what dcbtop knows of an interface, at
                                   once from its running agent
  dcbtop help [COMMAND]            this help, or COMMAND's (dcbtop help check)
  dcbtop version                   the version, as --version

Options:
  -i IFACE       capture on IFACE (repeatable; default every up Ethernet
                 interface); -i any also means every one, as in tcpdump;
                 without -i, one that comes up later is captured too
  -r FILE        replay FILE; capture timestamps drive the clock (- reads
                 standard input, with --json, --events or --frames)
  --json         print one snapshot (JSON) and exit: after the last frame
                 (replay) or after --duration / Ctrl-C (live)
  --events       print each indication as one JSON line (NDJSON)
  --text         print each indication as a plain line (time, interface,
                 status, reason, flags, peer and its system name)
  --duration D   live: stop after D (e.g. 35s)
  -w FILE        live: also record every LLDPDU seen, both directions, to
                 FILE (pcapng with interface names and directions; - writes
                 it to standard output and nothing else there)
  --speed X      replay pacing: 0 = as fast as possible, 1 = recorded speed,
                 4 = four times faster (default 1 on the screen, 0 headless)
  --frames       print every LLDPDU instead of the screen (live: each as
                 it comes, sent and received), one a line: its number,
                 time, interface, direction (in or out), sender, length
                 and what changed against that sender's previous LLDPDU;
                 with --json one NDJSON object each, with the LLDPDU's
                 hex and decode
  --frame N      replay: print the LLDPDU numbered N (as --frames numbers
                 them) in hex and decoded, as the screen's hex view
  --from MAC     with --frames or --frame: the LLDPDUs from MAC only
  --local-mac MAC
                 replay: this host's end of a capture that does not say
                 which frames it sent, a classic pcap of both ends of one
                 link (default the evidence: System Capabilities, this
                 host's MACs, the willing end); without any, the two ends
                 are ambiguous and read as they came
  --agent        act as the host DCBX agent: transmit LLDPDUs with the local
                 ETS/PFC/APP parameters on every captured interface (on the
                 screen, a starts and stops it per interface)
  --local FILE   the agent's local parameters (PARAMS JSON, see README;
                 default the driver's when it has DCB, else 8 TCs, all
                 priorities on TC0 at 100% ETS, PFC off)
  --willing on|off   the agent's DCBX Willing state (default on); unless
                 given, the driver's when the agent starts from the driver's
  --tx-interval D    the agent's transmit interval (default 30s; TTL = 4xD+1)
  --force        start the agent even if another LLDP agent runs here
` + screenOptionsHelp + `  --counters-interval D
                 how often RDMA, PFC pause and congestion counters are
                 sampled: 100ms to 1h, 0 = never (default 1s)
  --version      print the version and exit (as dcbtop version)
  -h, --help     this help (as dcbtop help)

The screen: ? lists the keys; q quits. w toggles Willing, e edits local
parameters, u undoes the last apply (each previewed, then confirmed), s
exports the snapshot, a starts or stops dcbtop's agent on the interface.
When stdout is not a terminal and neither --json nor --events is given,
dcbtop prints indications as NDJSON, as with --events, and says so on
stderr. On a TERM=dumb terminal there is no screen: dcbtop prints each
indication as a plain line, and says so on stderr.

dcbtop apply sets only the features FILE gives (ets, ets_reco, pfc, app; a
PARAMS object, - for stdin) and/or the Willing state: through the running
dcbtop --agent on IFACE when there is one (its control socket in /run/dcbtop,
or $DCBTOP_RUN_DIR), otherwise through the kernel (dcbnl IEEE_SET, then read
back and compared; needs CAP_NET_ADMIN and a driver with DCB support).

Exit status: 0 success, 1 runtime failure, 2 bad usage, 130 interrupted
while waiting for input (a FIFO without a writer, a terminal).
`

// screenOptionsHelp is the part of the help of dcbtop and dcbtop demo on
// the options they share (outputFlags) besides --json, --events and
// --duration.
const screenOptionsHelp = `  --color auto|always|never
                 colours on the screen (default auto; none when NO_COLOR
                 is set)
  --no-mouse     leave the mouse to the terminal (else a click focuses a
                 pane or selects a row, the wheel scrolls)
  --snapshot-dir DIR
                 where the screen's s key exports snapshots, as
                 dcbtop-IFACE-YYYYMMDDTHHMMSSZ.json (default the current
                 directory if writable, else $HOME, else the temporary
                 directory)
  --metrics ADDR serve Prometheus metrics on ADDR (e.g. :9424), headless
                 or beside the screen
  --web.listen-address ADDR
                 the same, as Prometheus exporters spell it (repeatable)
  --web.systemd-socket
                 serve the metrics on the sockets systemd passes (socket
                 activation) instead of an address
  --web.config.file FILE
                 TLS and basic auth for the metrics: a Prometheus web
                 configuration file (exporter-toolkit's; docs/fleet.md)
`

// Run executes dcbtop with args (without the program name) and returns the
// exit status. Errors are printed to env.Stderr as one line.
func Run(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 {
		if c := lookupCommand(args[0]); c != nil {
			return c.run(ctx, args[1:], env)
		}
	}
	o, err := parse(args, env)
	if err != nil {
		return usageError(env, err, "", usage)
	}
	if o.version {
		fmt.Fprint(env.Stdout, versionLine())
		return ExitOK
	}
	run := runLive
	if o.read != "" {
		run = runReplay
	}
	return exitFor(env, run(ctx, o, env))
}

// exitFor is a command's exit status for err (nil: ExitOK), its lines
// said on stderr: ExitInterrupted for an interrupted wait, else
// ExitFailure.
func exitFor(env Env, err error) int {
	if err == nil {
		return ExitOK
	}
	for _, l := range errLines(err) {
		fmt.Fprintf(env.Stderr, "dcbtop: %s\n", l)
	}
	if errors.Is(err, errInterrupted) {
		return ExitInterrupted
	}
	return ExitFailure
}

// sysfsRoot returns the sysfs root the counters are read from:
// DCBTOP_SYSFS_ROOT, or "" for /sys.
func sysfsRoot() (string, error) {
	return envDir(counters.EnvSysfsRoot, "it replaces /sys for the counters")
}

// ethtoolRoot returns the directory of recorded ethtool outputs the
// counters are read from instead of the ethtool ioctls:
// DCBTOP_ETHTOOL_ROOT, or "" for the ioctls.
func ethtoolRoot() (string, error) {
	return envDir(counters.EnvEthtoolRoot, "recorded ethtool -i and -S outputs, one directory per interface")
}

// envDir returns the directory the environment variable name gives, ""
// when it is unset or empty; one that is not a directory is an error
// that says what it is for.
func envDir(name, what string) (string, error) {
	dir := os.Getenv(name)
	if dir == "" {
		return "", nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s=%s: not a directory (%s)", name, dir, what)
	}
	return dir, nil
}

// announce prints, once the capture has opened, the notice that stdout is
// not a terminal (when --events was implied by it).
func (o *options) announce(env Env) {
	if o.notTTY {
		fmt.Fprint(env.Stderr, notTTYNotice)
	}
	if o.dumb {
		fmt.Fprint(env.Stderr, dumbNotice)
	}
}

const dumbNotice = "dcbtop: TERM=dumb: no screen; printing each indication as a line (use a terminal with cursor addressing for the screen)\n"

// usageError reports a command line that did not parse: the help text on
// stdout (exit 0) for -h/--help, else a one-line error on stderr that
// points to it, or gives its own hint (exit 2). sub names the subcommand
// ("" for dcbtop itself).
// errLines renders err for stderr, one string a line (without the
// "dcbtop: " prefix): a JSON document's problems (jsondoc.Error) one a
// line, each after what names the document ("params.json: parameters
// JSON: line 3, column 18: ..."), anything else on one line.
func errLines(err error) []string {
	var je *jsondoc.Error
	if !errors.As(err, &je) || len(je.Errors) == 0 {
		return []string{control.OneLine(err.Error())}
	}
	prefix := strings.TrimSuffix(err.Error(), je.Error()) + je.Doc + ": "
	lines := make([]string, 0, len(je.Errors)+1)
	for _, f := range je.Errors {
		lines = append(lines, control.OneLine(prefix+f.Error()))
	}
	if je.More > 0 {
		lines = append(lines, fmt.Sprintf("%sand %d more", prefix, je.More))
	}
	return lines
}

func usageError(env Env, err error, sub, help string) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, help)
		return ExitOK
	}
	prefix, see := "dcbtop: ", " (see dcbtop --help)"
	if sub != "" {
		prefix, see = "dcbtop: "+sub+": ", " (see dcbtop "+sub+" --help)"
	}
	if he := (*hintError)(nil); errors.As(err, &he) {
		see = ""
	}
	lines := errLines(err)
	for i, l := range lines {
		if i == len(lines)-1 {
			l += see
		}
		fmt.Fprintf(env.Stderr, "%s%s\n", prefix, l)
	}
	return ExitUsage
}

// outputFlags defines the flags dcbtop and dcbtop demo share: what to
// print instead of the screen, for how long, in which colours, where to
// export snapshots and serve metrics.
func outputFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.json, "json", false, "print a snapshot")
	fs.BoolVar(&o.events, "events", false, "print indications as NDJSON")
	fs.BoolVar(&o.text, "text", false, "print indications as plain lines")
	durationFlag(fs, &o.duration, "duration", 0, "stop after D")
	fs.BoolVar(&o.noMouse, "no-mouse", false, "leave the mouse to the terminal")
	fs.Var(colorValue{&o.color}, "color", "auto|always|never")
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics on ADDR")
	fs.Func("web.listen-address", "serve Prometheus metrics on ADDR (repeatable)", func(s string) error {
		if s == "" {
			return errors.New("empty address")
		}
		o.webListen = append(o.webListen, s)
		return nil
	})
	fs.BoolVar(&o.systemdSocket, "web.systemd-socket", false, "serve metrics on systemd's sockets")
	fs.StringVar(&o.webConfig, "web.config.file", "", "TLS and basic auth for the metrics")
	o.snapshotDir = snapfile.DefaultDir()
	fs.Func("snapshot-dir", "export directory", func(s string) error {
		if s == "" {
			return errors.New("empty directory name")
		}
		o.snapshotDir = s
		return nil
	})
	documentDefault(fs, "snapshot-dir", "the current directory if writable, else $HOME, else the temporary directory")
}

// metricsListen is where the metrics are served: --metrics and every
// --web.listen-address, or systemd's sockets, with --web.config.file.
func (o *options) metricsListen() metricserver.Listen {
	l := metricserver.Listen{Addrs: o.webListen, SystemdSocket: o.systemdSocket, ConfigFile: o.webConfig}
	if o.metrics != "" {
		l.Addrs = append([]string{o.metrics}, l.Addrs...)
	}
	return l
}

// checkOutput rejects the output flags that contradict each other.
func (o *options) checkOutput() error {
	l := o.metricsListen()
	switch {
	case l.SystemdSocket && len(l.Addrs) > 0:
		return errors.New("--web.systemd-socket and --metrics or --web.listen-address are exclusive (systemd's sockets say where)")
	case l.ConfigFile != "" && !l.Enabled():
		return errors.New("--web.config.file needs --metrics, --web.listen-address or --web.systemd-socket")
	case o.json && o.events:
		return errors.New("--json and --events are exclusive")
	case o.text && (o.json || o.events):
		return errors.New("--text, --json and --events are exclusive")
	case o.duration < 0:
		return errors.New("--duration must be positive")
	}
	return nil
}

// checkStdio checks "-" for -r (the capture on standard input) and -w
// (pcapng on standard output), as tcpdump takes them: -r - needs a
// headless output (the screen reads the keyboard there); -w - needs
// standard output to itself, not a terminal, and prints nothing else on
// it.
func (o *options) checkStdio(env Env) error {
	switch {
	case o.read == "-" && !o.json && !o.events && !o.frames && env.StdoutTTY:
		return errors.New("-r - reads the capture from standard input, which the screen needs for the keyboard: add --json, --events or --frames")
	case o.write == "-" && (o.json || o.events || o.frames):
		return errors.New("-w - writes pcapng to standard output: --json, --events and --frames would print there too")
	case o.write == "-" && env.StdoutTTY:
		return errors.New("-w - writes pcapng to standard output, which is a terminal: redirect or pipe it (dcbtop -i IF -w - | tshark -r -)")
	case o.write == "-":
		o.quiet = true
	}
	return nil
}

// settleOutput picks the screen when stdout is a terminal and neither
// --json nor --events was given, NDJSON events (with a notice, see
// announce) when it is not, and makes the export directory absolute.
func (o *options) settleOutput(env Env) {
	if o.frames {
		return // the frames, on stdout whatever it is
	}
	if o.text {
		o.events, o.textEvents = true, true
	}
	if !o.json && !o.events && !o.quiet {
		switch {
		case env.StdoutTTY && os.Getenv("TERM") == "dumb":
			// A dumb terminal has no cursor addressing: no screen, but
			// indications as plain lines, one per change.
			o.events, o.textEvents, o.dumb = true, true, true
		case env.StdoutTTY:
			o.tui = true
		default:
			o.events, o.notTTY = true, true
		}
	}
	if d, err := filepath.Abs(o.snapshotDir); err == nil {
		o.snapshotDir = d
	}
}

// ifaceFlag defines -i, repeatable, appending to ifaces.
func ifaceFlag(fs *flag.FlagSet, ifaces *[]string) {
	fs.Func("i", "interface (repeatable)", func(s string) error {
		if s == "" {
			return errors.New("empty interface name")
		}
		*ifaces = append(*ifaces, s)
		return nil
	})
}

// anyIfaces settles "-i any" as tcpdump takes it: every interface, which
// is what no -i gives (every up Ethernet interface); with another -i it is
// a mistake.
func anyIfaces(ifaces []string) ([]string, error) {
	if !slices.Contains(ifaces, "any") {
		return ifaces, nil
	}
	if len(ifaces) > 1 {
		return nil, errors.New("-i any means every interface: give it alone")
	}
	return nil, nil
}

// countersValue is --counters-interval: 0 is never (stored as -1), else
// 100ms to 1h; set records that it was given.
type countersValue struct {
	p   *time.Duration
	set *bool
}

func (v countersValue) String() string {
	switch {
	case v.p == nil:
		return ""
	case *v.p < 0:
		return "0"
	}
	return v.p.String()
}

func (v countersValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("want a duration like 1s or 500ms")
	case d == 0:
		d = -1
	case d < 100*time.Millisecond || d > time.Hour:
		return errors.New("want 0 (never) or 100ms to 1h")
	}
	*v.p, *v.set = d, true
	return nil
}

// parseCommand parses a command's arguments with fs: its flags, then -i
// any (ifaces) and no positional argument.
func parseCommand(fs *flag.FlagSet, args []string, ifaces *[]string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if *ifaces, err = anyIfaces(*ifaces); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// rootFlags defines dcbtop's own flags on o, with their defaults.
func rootFlags(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ifaceFlag(fs, &o.ifaces)
	documentDefault(fs, "i", "every up Ethernet interface")
	fs.StringVar(&o.read, "r", "", "replay a capture file")
	fs.BoolVar(&o.frames, "frames", false, "print every LLDPDU of the replay")
	fs.Var(frameValue{&o.frameN}, "frame", "print the LLDPDU numbered N")
	fs.Var(macValue{&o.fromMAC}, "from", "the LLDPDUs from MAC only")
	fs.Var(macValue{&o.localMAC}, "local-mac", "this host's end of an undirected capture")
	documentDefault(fs, "local-mac", "the evidence: System Capabilities, this host's MACs, the willing end")
	outputFlags(fs, o)
	o.speed = -1 // set by settleOutput once the mode is known
	fs.Var(speedValue{p: &o.speed, want: "want a number of 0 or more"}, "speed", "replay speed")
	documentDefault(fs, "speed", "1 on the screen, 0 headless")
	fs.StringVar(&o.write, "w", "", "record to FILE")
	fs.BoolVar(&o.agent, "agent", false, "act as the host DCBX agent")
	fs.StringVar(&o.local, "local", "", "the agent's local PARAMS")
	documentDefault(fs, "local", "the driver's when it has DCB, else 8 TCs, all priorities on TC0 at 100% ETS, PFC off")
	o.willing = true
	fs.Var(onOffValue{&o.willing, &o.willingSet}, "willing", "on|off")
	durationFlag(fs, &o.txInterval, "tx-interval", agent.DefaultTxInterval, "agent transmit interval")
	fs.BoolVar(&o.force, "force", false, "start the agent despite another agent")
	o.countersEvery = session.DefaultCountersInterval
	fs.Var(countersValue{&o.countersEvery, &o.countersSet}, "counters-interval", "counter sampling interval")
	fs.BoolVar(&o.version, "version", false, "print the version")
	return fs
}

// checkFrames checks --frames, --frame and --from: --frames a replay's
// or a live run's (each LLDPDU as it comes), --frame N a replay's
// (--frames for one LLDPDU), --from only with them, none with the
// indications (--events, --text).
func (o *options) checkFrames(live bool) error {
	if o.frameN > 0 {
		o.frames = true
	}
	switch {
	case !o.frames && o.fromMAC != nil:
		return errors.New("--from needs --frames or --frame")
	case !o.frames:
		return nil
	case live && o.frameN > 0:
		return errors.New("--frame applies to replay (-r) only: live, --frames prints each LLDPDU as it comes")
	case o.events || o.text:
		return errors.New("--frames prints the LLDPDUs: --events and --text print indications instead")
	}
	return nil
}

// parse parses dcbtop's own arguments (no command) and settles the
// output mode.
func parse(args []string, env Env) (*options, error) {
	o := &options{}
	fs := rootFlags(o)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, strayArgument(fs.Arg(0), len(args) > 0 && args[0] == fs.Arg(0))
	}
	var err error
	if o.ifaces, err = anyIfaces(o.ifaces); err != nil {
		return nil, err
	}
	if o.version {
		return o, nil
	}
	if err := o.checkOutput(); err != nil {
		return nil, err
	}
	if err := o.checkStdio(env); err != nil {
		return nil, err
	}
	live := o.read == ""
	if err := o.checkFrames(live); err != nil {
		return nil, err
	}
	switch {
	case !live && len(o.ifaces) > 0:
		return nil, errors.New("-r and -i are exclusive")
	case !live && o.duration != 0:
		return nil, errors.New("--duration applies to live capture only")
	case !live && o.metricsListen().Enabled():
		return nil, errors.New("--metrics, --web.listen-address and --web.systemd-socket apply to live capture and the demo only")
	case !live && o.countersSet:
		return nil, errors.New("--counters-interval applies to live capture and the demo only (a capture file has no counters)")
	case !live && o.write != "":
		return nil, errors.New("-w applies to live capture only (a replay records nothing new)")
	case !live && o.agent:
		return nil, errors.New("--agent applies to live capture only")
	case live && o.speed >= 0:
		return nil, errors.New("--speed applies to replay (-r) only")
	case live && o.localMAC != nil:
		return nil, errors.New("--local-mac applies to replay (-r) only")
	case !o.agent && (o.local != "" || o.willingSet || o.force):
		return nil, errors.New("--local, --willing and --force need --agent")
	case o.agent && (o.txInterval < time.Second || o.txInterval > time.Hour):
		return nil, errors.New("--tx-interval must be between 1s and 1h")
	}
	o.settleOutput(env)
	if o.speed < 0 {
		o.speed = 0
		if o.tui && !live {
			o.speed = 1
		}
	}
	return o, nil
}
