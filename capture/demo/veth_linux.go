// SPDX-License-Identifier: Apache-2.0

//go:build linux

package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture"
)

// netnsDir is where named network namespaces are bound (as by `ip netns`);
// the demo binds nothing there, but older versions did (see Leftovers).
// A variable for tests.
var netnsDir = "/run/netns"

// A VethLink is the kernel-mode demo link: a veth pair whose host end is
// in the caller's network namespace and whose switch end (SwitchIf) is in
// a network namespace of its own. That namespace is anonymous: nothing
// names it in /run/netns; only this process holds it (a file descriptor
// and the switch end's packet socket), so the kernel destroys it, and the
// veth pair with it, when the process ends, however it ends (SIGKILL
// included). Two demos, in one process or in two, each get their own.
//
// The simulated switches read and write on the switch end through an
// AF_PACKET socket (capture.Live); dcbtop captures on the host end like on
// any interface. Cleanup removes the pair and releases the namespace at
// once rather than at exit.
type VethLink struct {
	ns     netns.NsHandle // the switch's namespace, held open
	hostIf string
	live   *capture.Live
	once   sync.Once
	err    error
}

var _ Link = (*VethLink)(nil)

// NewVethLink creates the switch's network namespace and the veth pair,
// sets both ends up, and opens the switch end. It needs CAP_SYS_ADMIN and
// CAP_NET_ADMIN (root).
//
// The namespace is created by a goroutine locked to an OS thread that
// unshares its network namespace (CLONE_NEWNET) and is never unlocked (the
// runtime ends the thread with the goroutine), so no other goroutine ever
// runs in the switch's namespace.
func NewVethLink(cfg VethConfig) (*VethLink, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	caller, err := callerNS()
	if err != nil {
		return nil, fmt.Errorf("demo: network namespace of the caller: %w", err)
	}
	defer caller.Close()
	v := &VethLink{ns: -1}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		done <- v.setup(caller, cfg)
	}()
	if err := <-done; err != nil {
		v.release()
		return nil, err
	}
	return v, nil
}

// callerNS returns a handle on the network namespace of the calling
// goroutine's thread.
func callerNS() (netns.NsHandle, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return netns.Get()
}

// setup runs on a locked thread, which it moves into a new namespace.
func (v *VethLink) setup(caller netns.NsHandle, cfg VethConfig) error {
	hostH, err := netlink.NewHandleAt(caller)
	if err != nil {
		return fmt.Errorf("demo: netlink: %w", privHint(err))
	}
	defer hostH.Close()
	if v.ns, err = netns.New(); err != nil { // this thread is now in the new namespace
		return fmt.Errorf("demo: create a network namespace: %w", privHint(err))
	}
	veth := &netlink.Veth{
		LinkAttrs:        netlink.LinkAttrs{Name: cfg.HostIf, HardwareAddr: net.HardwareAddr(cfg.HostMAC[:])},
		PeerName:         SwitchIf,
		PeerHardwareAddr: net.HardwareAddr(switchMAC[:]),
		PeerNamespace:    netlink.NsFd(v.ns),
	}
	if err := hostH.LinkAdd(veth); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("demo: create veth pair: interface %s already exists", cfg.HostIf)
		}
		return fmt.Errorf("demo: create veth pair %s-%s: %w", cfg.HostIf, SwitchIf, privHint(err))
	}
	demoH, err := netlink.NewHandleAt(v.ns)
	if err != nil {
		return fmt.Errorf("demo: netlink in the switch's namespace: %w", err)
	}
	defer demoH.Close()
	sw, err := demoH.LinkByName(SwitchIf)
	if err != nil {
		return fmt.Errorf("demo: %s: %w", SwitchIf, err)
	}
	// The kernel named the host end (HostIfPattern): the switch end's
	// peer index (IFLA_LINK) finds it.
	host, err := hostH.LinkByIndex(sw.Attrs().ParentIndex)
	if err != nil || host.Type() != "veth" {
		return fmt.Errorf("demo: the host end of %s (ifindex %d) is not found: %v", SwitchIf, sw.Attrs().ParentIndex, err)
	}
	v.hostIf = host.Attrs().Name
	if err := hostH.LinkSetAlias(host, aliasPrefix+fmt.Sprint(os.Getpid())); err != nil {
		return fmt.Errorf("demo: %s: set alias: %w", v.hostIf, err)
	}
	if err := hostH.LinkSetUp(host); err != nil {
		return fmt.Errorf("demo: %s: set up: %w", v.hostIf, err)
	}
	for _, l := range []netlink.Link{nil, sw} {
		if l == nil {
			if l, err = demoH.LinkByName("lo"); err != nil {
				return fmt.Errorf("demo: lo in the switch's namespace: %w", err)
			}
		}
		if err := demoH.LinkSetUp(l); err != nil {
			return fmt.Errorf("demo: %s in the switch's namespace: set up: %w", l.Attrs().Name, err)
		}
	}
	if v.live, err = capture.OpenLive(SwitchIf); err != nil {
		return fmt.Errorf("demo: %s in the switch's namespace: %w", SwitchIf, err)
	}
	return nil
}

func privHint(err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("%w (run as root, or use the in-memory demo link)", err)
	}
	return err
}

// HostIf returns the name of the host end, in the caller's namespace.
func (v *VethLink) HostIf() string { return v.hostIf }

// ReadFrame returns the next LLDP frame the host sent (the switch end's
// incoming frames).
func (v *VethLink) ReadFrame(ctx context.Context) ([]byte, error) {
	for {
		f, err := v.live.ReadFrame(ctx)
		if err != nil {
			return nil, err
		}
		if f.Dir != capture.DirectionOutgoing {
			return f.Data, nil
		}
	}
}

// WriteFrame sends a frame from the switch end to the host.
func (v *VethLink) WriteFrame(b []byte) error { return v.live.WriteFrame(b) }

// Cleanup closes the switch end, deletes the veth pair (both ends) and
// releases the switch's namespace. It may be called more than once; it
// returns the first call's error.
func (v *VethLink) Cleanup() error {
	v.once.Do(func() { v.err = v.release() })
	return v.err
}

// release undoes what setup did, as far as it got.
func (v *VethLink) release() error {
	var errs []error
	if v.live != nil {
		if err := v.live.Close(); err != nil {
			errs = append(errs, fmt.Errorf("demo: close %s: %w", SwitchIf, err))
		}
		v.live = nil
	}
	if v.ns.IsOpen() {
		// Deleting the switch end deletes the host end with it, at once
		// rather than when the kernel frees the namespace.
		if h, err := netlink.NewHandleAt(v.ns); err == nil {
			if l, err := h.LinkByName(SwitchIf); err == nil {
				if err := h.LinkDel(l); err != nil && !errors.Is(err, unix.ENODEV) {
					errs = append(errs, fmt.Errorf("demo: delete %s: %w", SwitchIf, err))
				}
			}
			h.Close()
		}
		v.ns.Close()
		v.ns = -1
	}
	return errors.Join(errs...)
}

// processAlive reports whether process pid exists (or may: when /proc
// cannot tell, it is assumed alive).
func processAlive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return !errors.Is(err, fs.ErrNotExist)
}

// Leftovers lists what dcbtop demos of older versions, killed before they
// cleaned up, left behind: named namespaces /run/netns/dcbtop-demo-PID and
// veth host ends whose alias names a demo process, when that process no
// longer exists. Today's demo leaves nothing (its namespace is anonymous),
// and nothing of a running process is listed. It removes nothing.
func Leftovers() []Leftover {
	var out []Leftover
	entries, _ := os.ReadDir(netnsDir)
	for _, e := range entries {
		if pid, ok := legacyNamespacePID(e.Name()); ok && !processAlive(pid) {
			out = append(out, Leftover{
				What:   fmt.Sprintf("network namespace %s (pid %d has exited)", e.Name(), pid),
				Remove: "ip netns del " + e.Name(),
			})
		}
	}
	links, _ := netlink.LinkList()
	for _, l := range links {
		a := l.Attrs()
		pid, ok := aliasPID(a.Alias)
		if !ok || l.Type() != "veth" || processAlive(pid) || a.Name != legacyHostIf {
			continue
		}
		out = append(out, Leftover{
			What:   fmt.Sprintf("interface %s (pid %d has exited)", a.Name, pid),
			Remove: "ip link del " + a.Name,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].What < out[j].What })
	return out
}
