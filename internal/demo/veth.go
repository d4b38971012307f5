package demo

import (
	"fmt"
	"strconv"
	"strings"

	"dcbtop/engine/lldp"
)

// Names of the kernel-mode demo link.
const (
	// NamespacePrefix starts the name of the network namespace of the
	// simulated switches; the process ID follows: dcbtop-demo-4242.
	NamespacePrefix = "dcbtop-demo-"
	// DefaultHostIf is the host end of the veth pair, in the caller's
	// network namespace.
	DefaultHostIf = "dcbtop-demo0"
	// SwitchIf is the switch end of the veth pair, in the demo namespace.
	SwitchIf = "dcbtop-sw0"
	// aliasPrefix starts the alias (IFLA_IFALIAS) of the host end, which
	// names the process that owns it: "dcbtop demo pid 4242".
	aliasPrefix = "dcbtop demo pid "
)

// switchMAC is the MAC of the switch end of the veth pair (the simulated
// switches send with their own chassis MACs as source).
var switchMAC = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0xfd}

// VethConfig configures NewVethLink. The zero value gives the defaults.
type VethConfig struct {
	// HostIf names the host end; DefaultHostIf if empty.
	HostIf string
	// HostMAC is the host end's MAC address; DefaultHostMAC if zero.
	// Give the scenario's Host.MAC.
	HostMAC lldp.MAC
}

func (c *VethConfig) defaults() error {
	if c.HostIf == "" {
		c.HostIf = DefaultHostIf
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

// namespacePID returns the process ID in a demo namespace's name, and
// false when name is not one.
func namespacePID(name string) (int, bool) {
	return pidAfter(name, NamespacePrefix)
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
