// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
)

// TestLLDPDReceiveOnly: -r alone, grouped and not as another option's
// argument, as lldpd's getopt reads it.
func TestLLDPDReceiveOnly(t *testing.T) {
	tests := []struct {
		argv string
		want bool
	}{
		{"lldpd", false},
		{"lldpd -r", true},
		{"lldpd -d -r -I eth0", true},
		{"lldpd -dr", true},
		{"lldpd -rd", true},
		{"lldpd -S r", false},
		{"lldpd -Sr", false},
		{"lldpd -I r", false},
		{"lldpd -d -c", false},
		{"lldpd -- -r", false},
		{"/usr/sbin/lldpd -u /run/x.sock -r", true},
	}
	for _, tt := range tests {
		if got := lldpdReceiveOnly(strings.Fields(tt.argv)); got != tt.want {
			t.Errorf("%q: receive-only %v, want %v", tt.argv, got, tt.want)
		}
	}
}

// TestLLDPAgents reads a proc tree shaped like the kernel's: agents in
// this network namespace only, a receive-only lldpd as not transmitting,
// other processes ignored.
func TestLLDPAgents(t *testing.T) {
	root := t.TempDir()
	proc := func(pid, comm, cmdline, ns string) {
		d := filepath.Join(root, pid)
		if err := os.MkdirAll(filepath.Join(d, "ns"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "comm"), []byte(comm+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cmdline"), []byte(strings.ReplaceAll(cmdline, " ", "\x00")+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(ns, filepath.Join(d, "ns", "net")); err != nil {
			t.Fatal(err)
		}
	}
	proc("1", "systemd", "/sbin/init", "net:[4026531840]")
	proc("42", "lldpd", "lldpd -d", "net:[4026531840]")
	proc("43", "lldpd", "lldpd -r -I eth0", "net:[4026531840]")
	proc("44", "lldpad", "lldpad -d", "net:[4026531840]")
	proc("45", "lldpd", "lldpd", "net:[4026532000]") // another namespace
	if err := os.Symlink("1", filepath.Join(root, "self")); err != nil {
		t.Fatal(err)
	}
	want := []engine.HostAgent{{Name: "lldpd", PID: 42, Transmits: true}, {Name: "lldpd", PID: 43}, {Name: "lldpad", PID: 44, Transmits: true}}
	if diff := cmp.Diff(want, LLDPAgents(root)); diff != "" {
		t.Errorf("LLDPAgents (-want +got):\n%s", diff)
	}
	if got := LLDPAgents(t.TempDir()); got != nil {
		t.Errorf("an empty proc tree: %v", got)
	}
}

// TestAgentScan: a scan reads the names of processes it has not seen;
// one it has seen as not an agent is not read again until a full scan
// (every AgentScanFull scans, or asked for), which also catches a
// process that replaced its program; agents are always read again, and
// gone ones are gone.
func TestAgentScan(t *testing.T) {
	root := t.TempDir()
	proc := func(pid, comm string) {
		d := filepath.Join(root, pid)
		if err := os.MkdirAll(filepath.Join(d, "ns"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "comm"), []byte(comm+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cmdline"), []byte(comm+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(d, "ns", "net"))
		if err := os.Symlink("net:[1]", filepath.Join(d, "ns", "net")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("1", filepath.Join(root, "self")); err != nil {
		t.Fatal(err)
	}
	proc("1", "systemd")
	proc("7", "sh")
	a := &AgentScan{ProcRoot: root}
	pids := func(full bool) []int {
		var out []int
		for _, ag := range a.Scan(full) {
			out = append(out, ag.PID)
		}
		return out
	}
	if got := pids(false); got != nil {
		t.Fatalf("first scan: %v", got)
	}
	proc("42", "lldpd") // a new process: read at once
	if diff := cmp.Diff([]int{42}, pids(false)); diff != "" {
		t.Errorf("a new lldpd (-want +got):\n%s", diff)
	}
	proc("7", "lldpad") // sh replaced its program: seen at the next full scan
	if diff := cmp.Diff([]int{42}, pids(false)); diff != "" {
		t.Errorf("before a full scan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{7, 42}, pids(true)); diff != "" {
		t.Errorf("a full scan asked for (-want +got):\n%s", diff)
	}
	if err := os.RemoveAll(filepath.Join(root, "42")); err != nil {
		t.Fatal(err)
	}
	proc("7", "sh")
	if got := pids(false); got != nil { // agents are read again each scan
		t.Fatalf("after lldpd exited and lldpad became sh again: %v", got)
	}
	proc("7", "lldpd")
	found := false
	for range AgentScanFull {
		if len(pids(false)) == 1 {
			found = true
			break
		}
	}
	if !found {
		t.Errorf("a process that became lldpd was not seen within %d scans", AgentScanFull)
	}
}
