//go:build linux

package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"dcbtop/capture"
)

// netnsDir is where named network namespaces are bound (as by `ip netns`).
const netnsDir = "/run/netns"

// A VethLink is the kernel-mode demo link: a veth pair whose host end is
// in the caller's network namespace and whose switch end (SwitchIf) is in
// a network namespace of its own, named NamespacePrefix + the process ID.
// The simulated switches read and write on the switch end through an
// AF_PACKET socket (capture.Live); dcbtop captures on the host end like on
// any interface. Cleanup removes the pair and the namespace.
type VethLink struct {
	ns     string
	hostIf string
	live   *capture.Live
	once   sync.Once
	err    error
}

var _ Link = (*VethLink)(nil)

// NewVethLink creates the demo namespace and the veth pair, sets both ends
// up, and opens the switch end. It needs CAP_SYS_ADMIN and CAP_NET_ADMIN
// (root). Call CleanStale first to remove what an earlier run killed
// before its Cleanup left behind. One VethLink per process at a time.
//
// The switch end is opened from a goroutine locked to an OS thread that
// was switched into the namespace, and that is never unlocked (the runtime
// ends the thread with the goroutine), so no other goroutine ever runs in
// the demo namespace.
func NewVethLink(cfg VethConfig) (*VethLink, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	caller, err := callerNS()
	if err != nil {
		return nil, fmt.Errorf("demo: network namespace of the caller: %w", err)
	}
	defer caller.Close()
	v := &VethLink{ns: NamespacePrefix + fmt.Sprint(os.Getpid()), hostIf: cfg.HostIf}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		done <- v.setup(caller, cfg)
	}()
	if err := <-done; err != nil {
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

// setup runs on a locked thread, which it moves into the new namespace.
func (v *VethLink) setup(caller netns.NsHandle, cfg VethConfig) (err error) {
	if _, err := os.Stat(filepath.Join(netnsDir, v.ns)); err == nil {
		return fmt.Errorf("demo: network namespace %s already exists (one demo link per process; CleanStale removes leftovers)", v.ns)
	}
	hostH, err := netlink.NewHandleAt(caller)
	if err != nil {
		return fmt.Errorf("demo: netlink: %w", privHint(err))
	}
	defer hostH.Close()
	if l, err := hostH.LinkByName(cfg.HostIf); err == nil {
		owner := "not created by dcbtop demo"
		if pid, ok := aliasPID(l.Attrs().Alias); ok {
			owner = fmt.Sprintf("created by dcbtop demo pid %d", pid)
			if !processAlive(pid) {
				owner += ", which has exited: CleanStale removes it"
			}
		}
		return fmt.Errorf("demo: interface %s already exists (%s)", cfg.HostIf, owner)
	}
	demo, err := netns.NewNamed(v.ns) // this thread is now in the new namespace
	if err != nil {
		return fmt.Errorf("demo: create network namespace %s: %w", v.ns, privHint(err))
	}
	defer demo.Close()
	defer func() {
		if err != nil {
			_ = removeNamespace(v.ns)
		}
	}()
	veth := &netlink.Veth{
		LinkAttrs:        netlink.LinkAttrs{Name: cfg.HostIf, HardwareAddr: net.HardwareAddr(cfg.HostMAC[:])},
		PeerName:         SwitchIf,
		PeerHardwareAddr: net.HardwareAddr(switchMAC[:]),
		PeerNamespace:    netlink.NsFd(demo),
	}
	if err := hostH.LinkAdd(veth); err != nil {
		return fmt.Errorf("demo: create veth pair %s-%s: %w", cfg.HostIf, SwitchIf, privHint(err))
	}
	host, err := hostH.LinkByName(cfg.HostIf)
	if err != nil {
		return fmt.Errorf("demo: %s: %w", cfg.HostIf, err)
	}
	if err := hostH.LinkSetAlias(host, aliasPrefix+fmt.Sprint(os.Getpid())); err != nil {
		return fmt.Errorf("demo: %s: set alias: %w", cfg.HostIf, err)
	}
	if err := hostH.LinkSetUp(host); err != nil {
		return fmt.Errorf("demo: %s: set up: %w", cfg.HostIf, err)
	}
	demoH, err := netlink.NewHandleAt(demo)
	if err != nil {
		return fmt.Errorf("demo: netlink in %s: %w", v.ns, err)
	}
	defer demoH.Close()
	for _, name := range []string{"lo", SwitchIf} {
		l, err := demoH.LinkByName(name)
		if err == nil {
			err = demoH.LinkSetUp(l)
		}
		if err != nil {
			return fmt.Errorf("demo: %s in %s: set up: %w", name, v.ns, err)
		}
	}
	if v.live, err = capture.OpenLive(SwitchIf); err != nil {
		return fmt.Errorf("demo: %s in %s: %w", SwitchIf, v.ns, err)
	}
	return nil
}

func privHint(err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("%w (run as root, or use the in-memory demo link)", err)
	}
	return err
}

// Namespace returns the name of the demo network namespace
// (`ip netns exec NAME ...` works on it).
func (v *VethLink) Namespace() string { return v.ns }

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

// Cleanup closes the switch end, deletes the veth pair (both ends) and the
// demo namespace. It may be called more than once; it returns the first
// call's error.
func (v *VethLink) Cleanup() error {
	v.once.Do(func() {
		var errs []error
		if v.live != nil {
			if err := v.live.Close(); err != nil {
				errs = append(errs, fmt.Errorf("demo: close %s: %w", SwitchIf, err))
			}
		}
		if err := removeNamespace(v.ns); err != nil {
			errs = append(errs, err)
		}
		v.err = errors.Join(errs...)
	})
	return v.err
}

// removeNamespace deletes the veths of the named namespace (their peers,
// wherever they are, go with them, at once rather than when the kernel
// frees the namespace) and unbinds it.
func removeNamespace(name string) error {
	var errs []error
	if h, err := netns.GetFromName(name); err == nil {
		if nh, err := netlink.NewHandleAt(h); err == nil {
			links, _ := nh.LinkList()
			for _, l := range links {
				if l.Type() == "veth" {
					if err := nh.LinkDel(l); err != nil && !errors.Is(err, unix.ENODEV) {
						errs = append(errs, fmt.Errorf("demo: delete %s in %s: %w", l.Attrs().Name, name, err))
					}
				}
			}
			nh.Close()
		}
		h.Close()
	}
	path := filepath.Join(netnsDir, name)
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		errs = append(errs, fmt.Errorf("demo: unmount %s: %w", path, err))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("demo: remove %s: %w", path, err))
	}
	return errors.Join(errs...)
}

// processAlive reports whether process pid exists (or may: when /proc
// cannot tell, it is assumed alive, so nothing of it is removed).
func processAlive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return !errors.Is(err, fs.ErrNotExist)
}

// CleanStale removes what earlier demo runs left behind when they died
// before Cleanup (killed, crashed): network namespaces named
// NamespacePrefix + PID in /run/netns, with their veths, and veth host
// ends in the caller's network namespace whose alias names a demo PID,
// when that process no longer exists (/proc/PID). It returns what it
// removed ("netns dcbtop-demo-4242", "link dcbtop-demo0"). Namespaces and
// links of running processes are left alone.
func CleanStale() ([]string, error) {
	var removed []string
	var errs []error
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("demo: %w", err))
	}
	for _, e := range entries {
		pid, ok := namespacePID(e.Name())
		if !ok || processAlive(pid) {
			continue
		}
		if err := removeNamespace(e.Name()); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, "netns "+e.Name())
	}
	caller, err := callerNS()
	if err != nil {
		return removed, errors.Join(append(errs, fmt.Errorf("demo: network namespace of the caller: %w", err))...)
	}
	defer caller.Close()
	h, err := netlink.NewHandleAt(caller)
	if err != nil {
		return removed, errors.Join(append(errs, fmt.Errorf("demo: netlink: %w", privHint(err)))...)
	}
	defer h.Close()
	links, err := h.LinkList()
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		errs = append(errs, fmt.Errorf("demo: list links: %w", err))
	}
	for _, l := range links {
		pid, ok := aliasPID(l.Attrs().Alias)
		if !ok || l.Type() != "veth" || processAlive(pid) {
			continue
		}
		if err := h.LinkDel(l); err != nil && !errors.Is(err, unix.ENODEV) {
			errs = append(errs, fmt.Errorf("demo: delete %s: %w", l.Attrs().Name, err))
			continue
		}
		removed = append(removed, "link "+l.Attrs().Name)
	}
	return removed, errors.Join(errs...)
}
