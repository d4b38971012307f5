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
