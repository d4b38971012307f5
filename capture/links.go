// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Link is a network interface that can carry LLDP: an Ethernet interface
// (link type ether) with a 6-byte MAC address, other than loopback.
type Link struct {
	// Name is the interface name, such as "eth0". An interface can be
	// renamed: Index identifies it.
	Name string
	// Index is the interface index. An interface removed and created again
	// under the same name gets a new one.
	Index int
	// MAC is the interface's MAC address.
	MAC [6]byte
	// PermMAC is its permanent MAC address (IFLA_PERM_ADDRESS, Linux
	// 5.6 on: the address the NIC was made with, which a rename or a new
	// MAC keeps); all zero when the device has none (veth and most
	// virtual devices) or the kernel does not say.
	PermMAC [6]byte
	// Up reports whether the interface is administratively up and its
	// operational state is up (IFF_UP and IFF_RUNNING: carrier present,
	// or an operational state the driver leaves unknown), so that a
	// pulled cable counts as down.
	Up bool
	// MTU is the interface's MTU (IFLA_MTU); 0 when not known.
	MTU int
	// VLAN is the 802.1Q VLAN ID of a VLAN interface (IFLA_VLAN_ID),
	// on the interface of index Parent (IFLA_LINK); 0 for others.
	VLAN, Parent int
}

// A LinkEvent reports a Link that appeared, changed or disappeared.
type LinkEvent struct {
	// Link is the state of the link after the change; for a removal, its
	// last known state.
	Link
	// Removed reports that the link was deleted, or moved to another
	// network namespace.
	Removed bool
	// At is the time the event was received.
	At time.Time
}

// Interfaces returns the default capture set: the Links that are up (in
// the network namespace of the calling thread), sorted by name.
func Interfaces() ([]Link, error) {
	return interfaces()
}

// WatchLinks sends a LinkEvent to out for every Link of the system (of the
// network namespace of the calling thread) when it starts, then one each
// time a Link is added, changes (goes up or down, is renamed, changes MAC
// address) or is removed, until ctx is done. Loopback and links other than
// Ethernet (tunnels, for example) are left out, and so are notifications
// that change none of a Link's fields. Events of one link come in order.
//
// WatchLinks blocks until ctx is done, and then returns ctx.Err(); it blocks
// while out is full. If the kernel's notifications fail before, for example
// because the socket's buffer overflowed during a burst of changes, it
// returns the error: the Links may then be stale, and a new call starts
// over with every Link of the system. WatchLinks never closes out.
func WatchLinks(ctx context.Context, out chan<- LinkEvent) error {
	return watchLinks(ctx, out)
}

// LinkByName returns the named interface, up or down. An unknown name gives
// an error wrapping ErrNoInterface that lists the available interfaces; an
// interface that cannot carry LLDP (not Ethernet, or loopback) is an error
// too.
func LinkByName(name string) (Link, error) {
	return linkByName(name)
}

// PickLinks returns the interfaces a run captures on: those named (dcbtop
// -i; each must exist, a name given twice is taken once), or, none
// named, every up, non-loopback Ethernet interface (Interfaces; none is
// an error).
func PickLinks(names []string) ([]Link, error) {
	all, err := Interfaces()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if len(all) == 0 {
			return nil, errors.New("no up Ethernet interface to capture on; name one with -i")
		}
		return all, nil
	}
	var out []Link
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		l, err := LinkByName(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, l)
	}
	return out, nil
}
