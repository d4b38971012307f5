package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
)

// LLDPAgents lists the LLDP agent processes (lldpd, lldpad) running in
// this process's network namespace, read from the proc filesystem at
// procRoot ("/proc" on a live host; a directory shaped like it in tests).
// An lldpd started with -r (receive-only) transmits nothing and is listed
// with Transmits false. The list is sorted by pid; nil when the namespace
// of this process cannot be read.
func LLDPAgents(procRoot string) []engine.HostAgent {
	self, err := os.Readlink(filepath.Join(procRoot, "self", "ns", "net"))
	if err != nil {
		return nil
	}
	dir, err := os.Open(procRoot)
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	var out []engine.HostAgent
	var buf [64]byte // comm is at most TASK_COMM_LEN (16) bytes
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		k, err := readSmall(procRoot+"/"+n+"/comm", buf[:])
		if err != nil {
			continue
		}
		if b := bytes.TrimSpace(buf[:k]); string(b) != "lldpad" && string(b) != "lldpd" {
			continue
		}
		d := filepath.Join(procRoot, n)
		name := string(bytes.TrimSpace(buf[:k]))
		if ns, err := os.Readlink(filepath.Join(d, "ns", "net")); err != nil || ns != self {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		a := engine.HostAgent{Name: name, PID: pid, Transmits: true}
		if name == "lldpd" {
			if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil {
				a.Transmits = !lldpdReceiveOnly(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
			}
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b engine.HostAgent) int { return a.PID - b.PID })
	return out
}

// lldpdArgOptions are lldpd's short options that take an argument, from
// its getopt string (lldpd src/daemon/lldpd.c, lldpd_main:
// "H:vhkrdD:xX:m:u:4:6:I:C:p:M:P:S:iL:" followed by the protocol letters,
// which take none).
const lldpdArgOptions = "HDXmu46ICpMPSL"

// lldpdReceiveOnly reports whether an lldpd command line (argv, program
// name first) has -r, lldpd's receive-only mode (lldpd(8): "lldpd will
// not send any frame"), alone or among grouped options (-dr), and not as
// the argument of another option (-S "r").
func lldpdReceiveOnly(argv []string) bool {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if c == 'r' {
				return true
			}
			if strings.IndexByte(lldpdArgOptions, c) >= 0 {
				if j == len(a)-1 {
					i++ // the argument is the next word
				}
				break
			}
		}
	}
	return false
}
