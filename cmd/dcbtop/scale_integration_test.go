// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
)

// manyLinks is how many interfaces TestThousandInterfaces makes appear.
const manyLinks = 1000

// TestThousandInterfaces runs the screen on every interface of a
// namespace that starts with one port and an lldpd peer, then makes a
// thousand veth interfaces appear there and go, three times. Each time
// the overview counts and shows them, a key press still moves the screen,
// the capture sockets follow the interfaces (one a captured interface,
// closed when it goes), the peer of the first port stays valid, and the
// heap the garbage collector finds live with the interfaces there is,
// in the third round, within 12 MB of the second's: nothing grows with
// each interface that comes and goes (the RSS, which depends on when the
// last collection ran, is logged and bounded at 150 MB in the first
// round). Memory means something only without the race detector,
// whose shadow memory grows with every allocation (204 MB, then 405 MB):
// under -race (CI) the test's binary runs one round and, beside it, a
// plain build of it the three for the memory.
func TestThousandInterfaces(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux", "lldpd")
	t.Parallel()
	if !raceEnabled {
		thousandInterfaces(t, dcbtopBin, 3, true)
		return
	}
	// The race detector needs one round (each is the same code); memory,
	// judged on the plain build, three.
	t.Run("race", func(t *testing.T) {
		t.Parallel()
		thousandInterfaces(t, dcbtopBin, 1, false)
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		plain := filepath.Join(t.TempDir(), "dcbtop")
		if err := buildDcbtop(plain, false); err != nil {
			t.Fatal(err)
		}
		thousandInterfaces(t, plain, 3, true)
	})
}

// thousandInterfaces is TestThousandInterfaces with the dcbtop binary bin
// for the given rounds; memory says whether its RSS is judged.
func thousandInterfaces(t *testing.T, bin string, rounds int, memory bool) {
	host := testbed.NewNS(t, "scaleh")
	sw := testbed.NewNS(t, "scales")
	testbed.Veth(t, sw, "p0", host, "seed")
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "leaf1", TLVs: swTLVs(swPFC3)})

	env := []string{control.EnvRunDir + "=" + testbed.ShortTempDir(t)}
	argv := []string{ipPath(t), "netns", "exec", host.Name, bin}
	// The garbage collector's trace says what the heap keeps live after
	// each collection: unlike the RSS, it does not depend on when the
	// last collection ran, so a round on a loaded machine reads the same.
	gcLog := filepath.Join(t.TempDir(), "gctrace")
	if memory {
		env = append(env, "GODEBUG=gctrace=1")
		argv = append([]string{"sh", "-c", `exec "$@" 2>>` + testbed.ShQuote(gcLog), "sh"}, argv...)
	}
	p := startTmux(t, 160, 48, env, argv...)
	// One interface: the screen opens on its port.
	p.WaitText(20*time.Second, "seed", "leaf1")
	pid := p.CommandPid(bin)

	round := func(n int) (rss, live int) {
		far := testbed.NewNS(t, fmt.Sprintf("scalef%d", n))
		var add, up, farUp strings.Builder
		for i := range manyLinks {
			fmt.Fprintf(&add, "link add x%d netns %s type veth peer name y%d netns %s\n", i, host.Name, i, far.Name)
			fmt.Fprintf(&up, "link set x%d up\n", i)
			fmt.Fprintf(&farUp, "link set y%d up\n", i)
		}
		ipBatch(t, "", add.String())
		ipBatch(t, far.Name, farUp.String())
		ipBatch(t, host.Name, up.String())

		total := fmt.Sprintf("%d interfaces", manyLinks+1)
		if !strings.Contains(p.Screen(false), "all ports") {
			p.Keys("o") // the overview
		}
		p.WaitText(60*time.Second, "all ports", total, "x0 ")
		waitPacketSockets(t, host, manyLinks+1, 30*time.Second)
		// A key still moves the screen: End shows the last row.
		p.Keys("End")
		p.WaitText(10*time.Second, "x999 ", fmt.Sprintf("of %d", manyLinks+1))
		p.Keys("Home")
		p.WaitText(10*time.Second, "seed ", "leaf1")
		rss = vmRSS(t, pid)
		if memory {
			live = liveHeapFloor(t, gcLog)
		}

		// Removing the far namespace removes both ends of every pair.
		if out, err := exec.Command("ip", "netns", "del", far.Name).CombinedOutput(); err != nil {
			t.Fatalf("ip netns del %s: %v\n%s", far.Name, err, out)
		}
		waitPacketSockets(t, host, 1, 60*time.Second)
		p.WaitText(10*time.Second, "seed ", "leaf1", "valid")
		return rss, live
	}
	var rss, live []int
	for n := range rounds {
		r, l := round(n + 1)
		rss, live = append(rss, r), append(live, l)
	}
	t.Logf("RSS with %d interfaces, %d rounds: %v kB; live heap %v MB", manyLinks+1, rounds, rss, live)
	if memory {
		// What a thousand interfaces hold (~25 MB here) would come back
		// each round were any of it kept after they go.
		if grew := live[2] - live[1]; grew > 12 {
			t.Errorf("live heap %v MB in three rounds: %d MB more in the third than in the second; it grows with interfaces that come and go", live, grew)
		}
		if rss[0] > 150*1024 {
			t.Errorf("RSS %d kB with %d interfaces, want at most 150 MB", rss[0], manyLinks+1)
		}
	}
	p.Quit()
}

// ipBatch runs `ip [-n ns] -batch -` on commands.
func ipBatch(t *testing.T, ns, commands string) {
	t.Helper()
	args := []string{"-batch", "-"}
	if ns != "" {
		args = append([]string{"-n", ns}, args...)
	}
	cmd := exec.Command(ipPath(t), args...)
	cmd.Stdin = strings.NewReader(commands)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// waitPacketSockets waits until ns holds n packet sockets (lines of
// /proc/net/packet after its header, read in the namespace).
func waitPacketSockets(t *testing.T, ns *testbed.NS, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, err := ns.Run("cat", "/proc/net/packet")
		if err != nil {
			t.Fatalf("/proc/net/packet: %v", err)
		}
		got := strings.Count(strings.TrimSpace(out), "\n") // the header is the first line
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d packet sockets in %s, want %d", got, ns.Name, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// vmRSS returns a process's resident set size in kB.
func vmRSS(t *testing.T, pid string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb
		}
	}
	t.Fatalf("no VmRSS in /proc/%s/status", pid)
	return 0
}

// gcLine finds the heap sizes of a gctrace line: at the start of the
// collection, at its end, and live (marked) after it, in MB.
var gcLine = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`)

// liveHeapFloor follows the trace at path for five seconds and at least
// three collections and returns the least heap they found live, in MB.
// Collections come most often while the interfaces' events are still
// being taken in, and find them live too (tens of MB for a moment, more
// on a loaded machine); what is kept stays under every collection's
// figure, the quiet ones' included.
func liveHeapFloor(t *testing.T, path string) int {
	t.Helper()
	count := func() ([][]string, error) {
		b, err := os.ReadFile(path)
		return gcLine.FindAllStringSubmatch(string(b), -1), err
	}
	before, err := count()
	if err != nil {
		t.Fatal(err)
	}
	quiet, deadline := time.Now().Add(5*time.Second), time.Now().Add(30*time.Second)
	for {
		lines, err := count()
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) >= len(before)+3 && time.Now().After(quiet) {
			floor := -1
			for _, l := range lines[len(before):] {
				if live, _ := strconv.Atoi(l[3]); floor < 0 || live < floor {
					floor = live
				}
			}
			return floor
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d garbage collections in 30 s, want 3 (%d in the trace)", len(lines)-len(before), len(lines))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
