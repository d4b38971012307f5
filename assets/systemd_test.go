// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

const (
	unitFile     = "systemd/dcbtop.service"
	defaultsFile = "systemd/dcbtop.default"
	// installedDefaults is where the package installs defaultsFile.
	installedDefaults = "/etc/default/dcbtop"
)

// unitSettings reads a unit file: "Section.Key" to its values in order
// (comments and blank lines skipped; the unit uses no continuation lines
// or quotes, which the test refuses rather than misreads).
func unitSettings(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{}
	section := ""
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.HasSuffix(line, `\`) || strings.ContainsAny(v, `"'`) {
				t.Fatalf("%s:%d: %q: not a simple Key=value line", path, i+1, line)
			}
			m[section+"."+k] = append(m[section+"."+k], v)
		}
	}
	return m
}

// envFile reads an environment file as systemd does for the simple
// KEY=VALUE lines the package's has (comments skipped, surrounding
// quotes removed).
func envFile(t *testing.T, path string, env map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`).MatchString(k) {
			t.Fatalf("%s:%d: %q is not KEY=VALUE", path, i+1, line)
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		env[k] = v
	}
}

// execStart returns the unit's command line as systemd runs it, and the
// environment it gives the process: Environment= first, then the
// environment file (the repository's copy of /etc/default/dcbtop), and
// in ExecStart a word ${NAME} replaced by NAME's value as one word and a
// word $NAME by its value split at white space (no word when empty or
// unset), as systemd.service(5) says.
//
// A drop-in's Environment= lines come after the unit's, with %d (the
// credentials directory, systemd.unit(5) "Specifiers") replaced by
// dropIn.creds.
func execStart(t *testing.T, defaults string, dropIns ...dropIn) (argv []string, env map[string]string) {
	t.Helper()
	u := unitSettings(t, unitFile)
	env = map[string]string{}
	envs := slices.Clone(u["Service.Environment"])
	for _, d := range dropIns {
		for _, e := range unitSettings(t, d.path)["Service.Environment"] {
			envs = append(envs, strings.ReplaceAll(e, "%d", d.creds))
		}
	}
	for _, e := range envs {
		for _, kv := range strings.Fields(e) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	files := u["Service.EnvironmentFile"]
	if len(files) != 1 || strings.TrimPrefix(files[0], "-") != installedDefaults {
		t.Fatalf("EnvironmentFile=%v, want %s", files, installedDefaults)
	}
	envFile(t, defaults, env)
	ex := u["Service.ExecStart"]
	if len(ex) != 1 {
		t.Fatalf("ExecStart=%v: want one", ex)
	}
	braced := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	for _, w := range strings.Fields(ex[0]) {
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") {
			argv = append(argv, strings.Fields(env[name])...)
			continue
		}
		argv = append(argv, braced.ReplaceAllStringFunc(w, func(m string) string {
			return env[braced.FindStringSubmatch(m)[1]]
		}))
	}
	return argv, env
}

// TestUnitCommand checks the command line the unit runs: the headless
// exporter, read-only, on the port docs/fleet.md documents, its settings
// from /etc/default/dcbtop; and that the commented DCBTOP_ARGS example
// there is a command line dcbtop accepts.
func TestUnitCommand(t *testing.T) {
	argv, env := execStart(t, defaultsFile)
	want := []string{"/usr/bin/dcbtop", "--metrics", ":9424", "--events"}
	if !slices.Equal(argv, want) {
		t.Errorf("ExecStart runs %q, want %q", argv, want)
	}
	if env["DCBTOP_METRICS"] != ":9424" {
		t.Errorf("DCBTOP_METRICS=%q, want :9424", env["DCBTOP_METRICS"])
	}
	// Without the environment file the unit's own default applies.
	argv, _ = execStart(t, testbed.WriteFile(t, "dcbtop", "# nothing\n"))
	if !slices.Equal(argv, want) {
		t.Errorf("without /etc/default/dcbtop, ExecStart runs %q, want %q", argv, want)
	}

	b, err := os.ReadFile(defaultsFile)
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile(`(?m)^#(DCBTOP_ARGS=.*)$`).FindStringSubmatch(string(b))
	if example == nil {
		t.Fatal("dcbtop.default has no commented DCBTOP_ARGS example")
	}
	argv, env = execStart(t, testbed.WriteFile(t, "dcbtop", example[1]+"\n"))
	if env["DCBTOP_ARGS"] == "" || !slices.Equal(argv[:4], want) || len(argv) != 4+len(strings.Fields(env["DCBTOP_ARGS"])) {
		t.Errorf("with %s, ExecStart runs %q", example[1], argv)
	}
	for _, a := range argv {
		if a == "--agent" || a == "apply" {
			t.Errorf("the unit runs %q: it must stay read-only", argv)
		}
	}
	// dcbtop reads the example's options: the only complaint is that its
	// interfaces do not exist here (exit 1), never bad usage (exit 2). As
	// root, in a network namespace of its own (unshare --net), so that it
	// never captures on this machine's interfaces.
	buildPackage(t)
	args := slices.Clone(argv[1:])
	args[1] = "127.0.0.1:0" // --metrics: whatever port is free
	args = append([]string{built.bin}, append(args, "--duration", "1s")...)
	if os.Geteuid() == 0 {
		testbed.RequireCommands(t, "unshare")
		args = append([]string{"unshare", "--net", "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); !errors.As(err, &ee) || ee.ExitCode() != 1 ||
		len(lines) != 1 || !strings.HasPrefix(lines[0], "dcbtop: ") || !strings.Contains(lines[0], "eth") {
		t.Errorf("%s: %v, want exit status 1 and a one-line complaint about the interfaces (2 is bad usage)\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
}

// exposureMax is the highest overall exposure systemd-analyze security
// may give the unit: the figure it gives it today (1.6 with systemd 252).
// What it still counts is what the exporter needs (see unitExposed).
const exposureMax = 1.6

// unitExposed are the checks of systemd-analyze security the unit may
// fail, each with the reason; any other ✗ fails the test.
var unitExposed = map[string]string{
	"RootDirectory=/RootImage=": "dcbtop runs from the host's /usr",
	"AmbientCapabilities=":      "CAP_NET_RAW, for the capture's packet socket",
	"CapabilityBoundingSet=~CAP_NET_(BIND_SERVICE|BROADCAST|RAW)": "CAP_NET_RAW, for the capture's packet socket",
	"RestrictAddressFamilies=~AF_PACKET":                          "the capture",
	"RestrictAddressFamilies=~AF_NETLINK":                         "DCB, ethtool and RDMA netlink reads",
	"RestrictAddressFamilies=~AF_UNIX":                            "other dcbtop agents' control sockets",
	"RestrictAddressFamilies=~AF_(INET|INET6)":                    "the /metrics listener, and the ethtool ioctl's socket",
	"PrivateNetwork=":                                             "the host's interfaces are what dcbtop watches",
	"PrivateUsers=":                                               "capabilities in a user namespace would not open a packet socket in the host's network namespace",
	"DeviceAllow=":                                                "char-rtc:r, which ProtectClock= itself adds",
	"IPAddressDeny=":                                              "who may scrape is the site's choice (a drop-in, see the unit)",
}

// TestUnitSecurity scores the unit's hardening with systemd-analyze
// security --offline=true: the overall exposure must stay at or below
// exposureMax, and every check but those in unitExposed must pass
// (DynamicUser, NoNewPrivileges, the Protect*, Restrict* and Private*
// settings, the system call filter, UMask and the capability bounding
// set among them).
func TestUnitSecurity(t *testing.T) {
	// The settings themselves, which systemd-analyze cannot always tell
	// from what other settings imply (NoNewPrivileges= is implied by
	// SystemCallFilter=, for one).
	u := unitSettings(t, unitFile)
	for k, want := range map[string]string{
		"Service.Type": "exec", "Service.DynamicUser": "yes",
		"Service.AmbientCapabilities": "CAP_NET_RAW", "Service.CapabilityBoundingSet": "CAP_NET_RAW",
		"Service.NoNewPrivileges": "yes", "Service.ProtectSystem": "strict", "Service.ProtectHome": "yes",
		"Service.PrivateTmp": "yes", "Service.PrivateDevices": "yes", "Service.PrivateMounts": "yes",
		"Service.ProtectKernelTunables": "yes", "Service.ProtectKernelModules": "yes", "Service.ProtectKernelLogs": "yes",
		"Service.ProtectControlGroups": "yes", "Service.ProtectClock": "yes", "Service.ProtectHostname": "yes",
		"Service.ProtectProc": "invisible", "Service.ProcSubset": "pid", "Service.RestrictNamespaces": "yes",
		"Service.RestrictRealtime": "yes", "Service.RestrictSUIDSGID": "yes", "Service.LockPersonality": "yes",
		"Service.MemoryDenyWriteExecute": "yes", "Service.SystemCallArchitectures": "native",
		"Service.RestrictAddressFamilies": "AF_PACKET AF_NETLINK AF_UNIX AF_INET AF_INET6",
		"Service.UMask":                   "0077", "Service.Restart": "on-failure", "Service.RestartSec": "10s",
		"Unit.StartLimitIntervalSec": "10min", "Unit.StartLimitBurst": "20",
		"Install.WantedBy": "multi-user.target",
	} {
		if v := u[k]; len(v) != 1 || v[0] != want {
			t.Errorf("%s=%v, want %s", k, v, want)
		}
	}
	if v := u["Service.SystemCallFilter"]; !slices.Contains(v, "@system-service") {
		t.Errorf("SystemCallFilter=%v: no @system-service", v)
	}
	testbed.RequireCommands(t, "systemd-analyze")
	out, err := run(t, "", []string{"SYSTEMD_COLORS=0", "LC_ALL=C.UTF-8"}, "systemd-analyze", "security", "--offline=true", "--no-pager", unitFile)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^→ Overall exposure level for dcbtop\.service: ([0-9.]+) (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no overall exposure in:\n%s", out)
	}
	t.Logf("%s", strings.TrimPrefix(m[0], "→ "))
	if x, err := strconv.ParseFloat(m[1], 64); err != nil || x > exposureMax {
		t.Errorf("overall exposure %s, want at most %.1f:\n%s", m[1], exposureMax, out)
	}
	seen := map[string]bool{}
	passed := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "✓":
			passed++
		case "✗":
			seen[f[1]] = true
			if _, ok := unitExposed[f[1]]; !ok {
				t.Errorf("systemd-analyze security: %s", strings.TrimSpace(line))
			}
		}
	}
	if passed < 60 {
		t.Errorf("only %d checks pass:\n%s", passed, out)
	}
	for k := range unitExposed {
		if !seen[k] {
			t.Errorf("%s passes now: remove it from unitExposed and lower exposureMax", k)
		}
	}
}

// setpriv runs a command as nobody with CAP_NET_RAW alone, the
// credentials the unit gives dcbtop (DynamicUser=, AmbientCapabilities=
// and CapabilityBoundingSet=CAP_NET_RAW, NoNewPrivileges=).
var setpriv = []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
	"--inh-caps=-all,+net_raw", "--ambient-caps=-all,+net_raw", "--bounding-set=-all,+net_raw", "--no-new-privs"}

// unitProc is the unit's command, started in a network namespace.
type unitProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

// startUnit starts the unit's command line (the built binary for
// /usr/bin/dcbtop) in ns, with the unit's environment only, as nobody
// with CAP_NET_RAW alone; wrap is put before setpriv (strace).
func startUnit(t *testing.T, ns *testbed.NS, wrap ...string) *unitProc {
	t.Helper()
	return startUnitWith(t, ns, nil, wrap...)
}

// startUnitWith is startUnit with the unit's drop-ins.
func startUnitWith(t *testing.T, ns *testbed.NS, dropIns []dropIn, wrap ...string) *unitProc {
	t.Helper()
	argv, env := execStart(t, defaultsFile, dropIns...)
	args := append([]string{"netns", "exec", ns.Name}, wrap...)
	args = append(append(args, setpriv...), built.bin)
	args = append(args, argv[1:]...)
	p := &unitProc{cmd: exec.Command("ip", args...), done: make(chan struct{})}
	p.cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to exit and returns its exit status (-1
// when it has not exited within d).
func (p *unitProc) wait(d time.Duration) int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		return -1
	}
}

// scrape GETs http://ADDR/metrics from inside ns, retrying until
// deadline, and returns the body.
func scrape(t *testing.T, ns *testbed.NS, addr string, deadline time.Time) (string, error) {
	t.Helper()
	for {
		code, body, err := ns.HTTP(t, addr, testbed.HTTPRequest{Path: "/metrics"})
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("%d %s", code, http.StatusText(code))
		}
		if err == nil || time.Now().After(deadline) {
			return body, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metricsAddr is where a client reaches the unit's --metrics address.
func metricsAddr(t *testing.T) string {
	_, env := execStart(t, defaultsFile)
	host, port, err := net.SplitHostPort(env["DCBTOP_METRICS"])
	if err != nil {
		t.Fatal(err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// TestUnitRuns runs the unit's command line as systemd would (its
// environment file expanded, nothing else in the environment) as nobody
// with CAP_NET_RAW alone, in a network namespace with a veth pair:
// /metrics answers with the interfaces' series, and nothing is written
// to stderr (the journal) nor anything but NDJSON to stdout. A second
// instance, the port taken, exits with status 1 and one line on stderr
// (what Restart=on-failure retries). SIGTERM, systemctl stop's signal,
// ends the first with status 0.
func TestUnitRuns(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "setpriv")
	buildPackage(t)
	ns := testbed.NewNS(t, "debunit")
	testbed.Veth(t, ns, "dcb0", ns, "dcb1")
	addr := metricsAddr(t)

	p := startUnit(t, ns)
	body, err := scrape(t, ns, addr, time.Now().Add(15*time.Second))
	if err != nil {
		t.Fatalf("/metrics: %v\nstderr: %s", err, p.stderr.Bytes())
	}
	for _, want := range []string{`dcbtop_build_info{`, `version="deb-test"`, `interface="dcb0"`, `interface="dcb1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s:\n%s", want, body)
		}
	}

	second := startUnit(t, ns)
	if code := second.wait(15 * time.Second); code != 1 {
		t.Errorf("the port taken: exit status %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(second.stderr.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "dcbtop: ") || !strings.Contains(lines[0], "address already in use") {
		t.Errorf("the port taken: stderr %q, want one line: dcbtop: ... address already in use", second.stderr.String())
	} else {
		t.Logf("the port taken: %s", lines[0])
	}
	if second.stdout.Len() > 0 {
		t.Errorf("the port taken: stdout %q", second.stdout.String())
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(10 * time.Second); code != 0 {
		t.Errorf("after SIGTERM: exit status %d, want 0", code)
	}
	if p.stderr.Len() > 0 {
		t.Errorf("the service wrote to stderr (the journal): %q", p.stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(p.stdout.String()), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Errorf("stdout: not an NDJSON line: %q", line)
		}
	}
}

// syscallGroups reads systemd's system call groups (systemd-analyze
// syscall-filter) and returns a function expanding a filter list
// (groups and names) into system call names.
func syscallGroups(t *testing.T) func(list []string) map[string]bool {
	t.Helper()
	out, err := run(t, "", []string{"SYSTEMD_COLORS=0"}, "systemd-analyze", "syscall-filter", "--no-pager")
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		s := strings.TrimSpace(line)
		switch {
		case s == "" || strings.HasPrefix(s, "#"):
		case strings.HasPrefix(line, "@"):
			cur = s
		case cur != "":
			groups[cur] = append(groups[cur], s)
		}
	}
	if len(groups["@system-service"]) == 0 {
		t.Fatalf("no @system-service in systemd-analyze syscall-filter:\n%s", out)
	}
	var expand func(list []string, into map[string]bool)
	expand = func(list []string, into map[string]bool) {
		for _, n := range list {
			if strings.HasPrefix(n, "@") {
				if _, ok := groups[n]; !ok {
					t.Fatalf("no system call group %s", n)
				}
				expand(groups[n], into)
			} else {
				into[n] = true
			}
		}
	}
	return func(list []string) map[string]bool {
		m := map[string]bool{}
		expand(list, m)
		return m
	}
}

// TestUnitSyscallFilter runs the unit's command as TestUnitRuns does,
// under strace, through a scrape of /metrics, a counter sample and
// SIGTERM, and checks that every system call dcbtop made (after its
// execve) is one the unit's SystemCallFilter= lines allow: an allowed
// call would otherwise fail with EPERM (SystemCallErrorNumber=) under
// systemd, which this machine does not run.
func TestUnitSyscallFilter(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "setpriv", "strace", "systemd-analyze")
	buildPackage(t)
	expand := syscallGroups(t)
	var allow, deny []string
	for _, f := range unitSettings(t, unitFile)["Service.SystemCallFilter"] {
		if rest, ok := strings.CutPrefix(f, "~"); ok {
			deny = append(deny, strings.Fields(rest)...)
		} else {
			allow = append(allow, strings.Fields(f)...)
		}
	}
	allowed := expand(allow)
	for n := range expand(deny) {
		delete(allowed, n)
	}

	ns := testbed.NewNS(t, "debscf")
	testbed.Veth(t, ns, "dcb0", ns, "dcb1")
	trace := filepath.Join(t.TempDir(), "strace")
	p := startUnit(t, ns, "strace", "-f", "-qq", "-o", trace)
	if _, err := scrape(t, ns, metricsAddr(t), time.Now().Add(20*time.Second)); err != nil {
		t.Fatalf("/metrics: %v\nstderr: %s", err, p.stderr.Bytes())
	}
	time.Sleep(1500 * time.Millisecond) // a counter sample (every 1 s)
	// SIGTERM to dcbtop itself (strace would detach on its own).
	pids, err := ns.Run("ip", "netns", "pids", ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	signalled := false
	for _, s := range strings.Fields(pids) {
		pid, _ := strconv.Atoi(s)
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == built.bin {
			signalled = syscall.Kill(pid, syscall.SIGTERM) == nil
		}
	}
	if !signalled {
		t.Fatalf("dcbtop is not running in %s (pids %q)", ns.Name, pids)
	}
	if code := p.wait(10 * time.Second); code != 0 {
		t.Errorf("strace ... dcbtop: exit status %d\n%s", code, p.stderr.Bytes())
	}

	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`^[0-9]+ +([a-z0-9_]+)\(`)
	used := map[string]int{}
	execd := false
	for _, line := range strings.Split(string(b), "\n") {
		if !execd {
			execd = strings.Contains(line, `execve("`+built.bin+`"`) && strings.HasSuffix(line, "= 0")
			continue
		}
		if m := call.FindStringSubmatch(line); m != nil {
			used[m[1]]++
		}
	}
	if !execd || len(used) < 20 {
		t.Fatalf("no execve of %s, or too few calls after it (%d) in the trace", built.bin, len(used))
	}
	var names []string
	for n := range used {
		names = append(names, n)
		if !allowed[n] {
			t.Errorf("dcbtop calls %s (%d times), which SystemCallFilter= does not allow", n, used[n])
		}
	}
	slices.Sort(names)
	t.Logf("%d system calls: %s", len(names), strings.Join(names, " "))
}
