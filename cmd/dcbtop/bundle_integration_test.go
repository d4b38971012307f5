// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
)

// lossPaneLine picks the Lossless pane's lines that say what was read
// (the NDK set, its masks, the congestion and ECN counters, the RoCE
// path's GID hop) and the peer's name, as the screen draws them.
var lossPaneLine = regexp.MustCompile(`NDK mlx5_0/1|missing 0x|np_cnp_sent|rp_cnp_handled|gid  |rdma_in_octets`)

// screenLines returns the lines of a screen that lossPaneLine picks,
// trimmed.
func screenLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if lossPaneLine.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// TestBundleReplayScreen runs the live screen on an mlx5-shaped port
// with an lldpd peer, records a bundle of the same port beside it, and
// replays the bundle on the screen: the Lossless pane shows what the live
// screen showed, line for line, and the peer by name. A redacted bundle
// replays the same pane, the peer's name and the port's MAC replaced.
func TestBundleReplayScreen(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "sys")
	if err := os.CopyFS(root, os.DirFS(mlx5Fixture)); err != nil {
		t.Fatal(err)
	}
	host, sw := testbed.NewNS(t, "bndh"), testbed.NewNS(t, "bnds")
	hostMAC, _ := testbed.Veth(t, host, "mlx0", sw, "sw0")
	testbed.StartLLDPD(t, sw, "sw0", testbed.LLDPDOpts{Hostname: "leaf1-bundle"})
	env := []string{"DCBTOP_SYSFS_ROOT=" + root, control.EnvRunDir + "=" + testbed.ShortTempDir(t)}

	live := startTmux(t, 160, 48, env, ipPath(t), "netns", "exec", host.Name, dcbtopBin, "-i", "mlx0")
	live.WaitText(15*time.Second, "mlx0", "leaf1-bundle")
	live.Keys("l")
	// The focused pane, not only the pane: with an RDMA device the log's
	// place shows the Lossless pane under the log before any key.
	live.WaitText(10*time.Second, "▶ Lossless", "NDK mlx5_0/1")

	bundle := filepath.Join(dir, "ticket.pcapng")
	redacted := filepath.Join(dir, "ticket-redacted.pcapng")
	for _, b := range []struct {
		path  string
		extra []string
	}{{bundle, nil}, {redacted, []string{"--redact"}}} {
		argv := append([]string{ipPath(t), "netns", "exec", host.Name, envPath(t), "DCBTOP_SYSFS_ROOT=" + root,
			dcbtopBin, "bundle", "-i", "mlx0", "--duration", "3s", "-o", b.path}, b.extra...)
		code, out, errOut := runOut(t, argv...)
		if code != 0 {
			t.Fatalf("dcbtop bundle %v: exit %d: %s", b.extra, code, errOut)
		}
		iface := "mlx0: "
		if b.extra != nil {
			iface = "if01: " // the interface's name is redacted too, to a name of its length
		}
		for _, want := range []string{"dcbtop bundle: wrote " + b.path, iface, "LLDPDUs received", "counters samples", "netlink exchanges", "replay: dcbtop -r " + b.path} {
			if !strings.Contains(out, want) {
				t.Errorf("dcbtop bundle %v says no %q:\n%s", b.extra, want, out)
			}
		}
		if fi, err := os.Stat(b.path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a 0600 file", b.path, err, fi.Mode().Perm())
		}
	}
	want := screenLines(live.Screen(false))
	if len(want) < 3 {
		t.Fatalf("the live Lossless pane shows %d of the lines compared:\n%s", len(want), live.Screen(false))
	}
	live.Quit()

	for _, b := range []struct {
		path, peer string
	}{{bundle, "leaf1-bundle"}, {redacted, ""}} {
		r := startTmux(t, 160, 48, nil, dcbtopBin, "-r", b.path)
		r.WaitText(20*time.Second, "END")
		r.Keys("l")
		s := r.WaitText(10*time.Second, "▶ Lossless", "NDK mlx5_0/1")
		// The replay's player takes a line of the screen: the pane may show
		// one line fewer at the bottom.
		got := screenLines(s)
		if len(got) < len(want)-1 || len(got) > len(want) {
			t.Errorf("%s: the replay's Lossless pane shows %d of the lines compared, the live one %d", filepath.Base(b.path), len(got), len(want))
		}
		if diff := cmp.Diff(want[:min(len(want), len(got))], got); diff != "" {
			t.Errorf("%s: the replay's Lossless pane differs from the live one (-live +replay):\n%s", filepath.Base(b.path), diff)
		}
		r.Keys("l") // back to the DCBX panes
		s = r.Screen(false)
		switch {
		case b.peer != "" && !strings.Contains(s, b.peer):
			t.Errorf("%s: the replay does not name the peer %s:\n%s", filepath.Base(b.path), b.peer, s)
		case b.peer == "" && (strings.Contains(s, "leaf1-bundle") || strings.Contains(s, hostMAC.String())):
			t.Errorf("%s: the redacted replay shows the peer's name or the port's MAC:\n%s", filepath.Base(b.path), s)
		}
		r.Quit()
	}
	raw, err := os.ReadFile(redacted)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range [][]byte{[]byte("leaf1-bundle"), hostMAC} {
		if strings.Contains(string(raw), string(secret)) {
			t.Errorf("the redacted bundle still holds %q", secret)
		}
	}
}

// TestBundleKilled: a bundle being recorded is a file without a name (an
// O_TMPFILE): its directory shows nothing while it records, and a kill -9
// leaves nothing there (7737732 left the unredacted capture: the system
// name 4 times, the interface name 89). Finished, the bundle is 0600 and,
// with --redact and no -o, its name carries no host name.
func TestBundleKilled(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, _, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "leaf-killed"})
	dir := t.TempDir()
	b := startProc(t, "dcbtop bundle --redact", []string{ipPath(t), "netns", "exec", host.Name, dcbtopBin, "bundle", "-i", "h0", "--duration", "30s", "--redact", "-o", filepath.Join(dir, "ticket.pcapng")})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.stderrText(), "recording h0") {
		if time.Now().After(deadline) || b.exited() {
			t.Fatalf("the bundle did not start recording: %q", b.stderrText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // frames and counters in the recording
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("while it records, the directory shows %v", ents)
	}
	b.signal(syscall.SIGKILL)
	b.wait(10 * time.Second)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("after kill -9 the directory holds %v", ents)
	}

	// Finished, in a directory of its own, with the default name.
	cwd := t.TempDir()
	cmd := exec.Command(ipPath(t), "netns", "exec", host.Name, dcbtopBin, "bundle", "-i", "h0", "--duration", "2s", "--redact")
	cmd.Dir = cwd
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dcbtop bundle --redact: %v\n%s", err, out)
	}
	ents, _ := os.ReadDir(cwd)
	hostname, _ := os.Hostname()
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "dcbtop-bundle-redacted-") || strings.Contains(ents[0].Name(), hostname) {
		t.Fatalf("the redacted bundle's default name: %v; want dcbtop-bundle-redacted-TIME.pcapng and nothing else", ents)
	}
	if fi, err := ents[0].Info(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, %v; want 0600", ents[0].Name(), fi.Mode().Perm(), err)
	}
}
