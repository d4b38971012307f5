// SPDX-License-Identifier: Apache-2.0

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
	return (&AgentScan{ProcRoot: procRoot}).Scan(true)
}

// An AgentScan lists the LLDP agents as LLDPAgents does, again and
// again, reading only what may have changed since its last scan: the
// name (comm) of each process it has not seen before; a process it has
// seen keeps its name until it replaces its program (execve), so a full
// scan, every name read again, comes every AgentScanFull scans or when
// asked for. A host runs hundreds of processes; a scan every 5 s that
// read every one's name was a twentieth of a 64-port screen's CPU.
type AgentScan struct {
	// ProcRoot is the proc filesystem's root ("/proc").
	ProcRoot string
	agent    map[string]bool // a pid's directory: its name, as last read, is an LLDP agent's
	scans    int
}

// AgentScanFull is how many scans an AgentScan makes between two that
// read every process's name.
const AgentScanFull = 6

// Scan returns the agents now, as LLDPAgents does; full reads every
// process's name.
func (a *AgentScan) Scan(full bool) []engine.HostAgent {
	procRoot := a.ProcRoot
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
	if a.scans%AgentScanFull == 0 || a.agent == nil {
		full = true
	}
	a.scans++
	seen := a.agent
	if full || len(seen) > 2*len(names) {
		seen = nil // read every name; forget the processes gone
	}
	a.agent = make(map[string]bool, len(names))
	var out []engine.HostAgent
	var buf [64]byte // comm is at most TASK_COMM_LEN (16) bytes
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		isAgent, known := seen[n]
		if known && !isAgent {
			a.agent[n] = false
			continue
		}
		k, err := readSmall(procRoot+"/"+n+"/comm", buf[:])
		if err != nil {
			continue
		}
		b := bytes.TrimSpace(buf[:k])
		if a.agent[n] = string(b) == "lldpad" || string(b) == "lldpd"; !a.agent[n] {
			continue
		}
		d := filepath.Join(procRoot, n)
		name := string(b)
		if ns, err := os.Readlink(filepath.Join(d, "ns", "net")); err != nil || ns != self {
			continue
		}
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		ag := engine.HostAgent{Name: name, PID: pid, Transmits: true}
		if name == "lldpd" {
			if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil {
				ag.Transmits = !lldpdReceiveOnly(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
			}
		}
		out = append(out, ag)
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
