// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Names of the kernel-mode demo link.
const (
	// HostIfPattern names the host end of the veth pair, in the caller's
	// network namespace: the kernel replaces %d with the lowest free
	// number (dcbdemo0, dcbdemo1, ...), so two demos never fight over a
	// name.
	HostIfPattern = "dcbdemo%d"
	// SwitchIf is the switch end of the veth pair, in the switch's own
	// (anonymous) network namespace.
	SwitchIf = "dcbtop-sw0"
	// aliasPrefix starts the alias (IFLA_IFALIAS) of the host end, which
	// names the process that owns it: "dcbtop demo pid 4242".
	aliasPrefix = "dcbtop demo pid "

	// legacyNamespacePrefix started the named network namespaces
	// (/run/netns/dcbtop-demo-PID) of dcbtop versions whose demo could
	// leave them behind; legacyHostIf was their host end's name.
	legacyNamespacePrefix = "dcbtop-demo-"
	legacyHostIf          = "dcbtop-demo0"
)

// switchMAC is the MAC of the switch end of the veth pair (the simulated
// switches send with their own chassis MACs as source).
var switchMAC = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0xfd}

// VethConfig configures NewVethLink. The zero value gives the defaults.
type VethConfig struct {
	// HostIf names the host end, or is a pattern with %d for the kernel to
	// number; HostIfPattern if empty.
	HostIf string
	// HostMAC is the host end's MAC address; DefaultHostMAC if zero.
	// Give the scenario's Host.MAC.
	HostMAC lldp.MAC
}

func (c *VethConfig) defaults() error {
	if c.HostIf == "" {
		c.HostIf = HostIfPattern
	}
	if c.HostMAC == (lldp.MAC{}) {
		c.HostMAC = DefaultHostMAC
	}
	if n := c.HostIf; len(n) > 15 || strings.ContainsAny(n, "/: \t\n") || n == "." || n == ".." {
		return fmt.Errorf("demo: invalid interface name %q (1-15 characters, no '/', ':' or spaces)", n)
	}
	if c.HostMAC[0]&1 != 0 {
		return fmt.Errorf("demo: host MAC %s is not unicast", c.HostMAC)
	}
	return nil
}

// A Leftover is something an older dcbtop demo left behind (killed before
// it could clean up): what it is, and the command that removes it.
// dcbtop never removes it itself.
type Leftover struct {
	What   string // "network namespace dcbtop-demo-4242 (pid 4242 has exited)"
	Remove string // "ip netns del dcbtop-demo-4242"
}

// String says what the leftover is and how to remove it, in one line.
func (l Leftover) String() string {
	return fmt.Sprintf("%s, left by an older dcbtop demo: remove it with '%s'", l.What, l.Remove)
}

// legacyNamespacePID returns the process ID in the name of a legacy demo
// namespace, and false when name is not one.
func legacyNamespacePID(name string) (int, bool) {
	return pidAfter(name, legacyNamespacePrefix)
}

// aliasPID returns the process ID in a host end's alias.
func aliasPID(alias string) (int, bool) {
	return pidAfter(alias, aliasPrefix)
}

func pidAfter(s, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(rest)
	return pid, err == nil && pid > 0
}
