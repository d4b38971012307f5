// SPDX-License-Identifier: Apache-2.0

package session

// Link watching: the kernel's link changes, carried out on the engine
// goroutine (an interface's capture woken, one that appears captured, one
// removed let go).

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// watchLinks hands the link changes to the loop (linkChanged). The
// watcher follows each link by its own messages (capture.WatchLinks),
// never by listing them all again.
func (r *liveRun) watchLinks(ctx context.Context) {
	for ctx.Err() == nil {
		if err := capture.WatchLinks(ctx, r.linkEvents); err != nil && ctx.Err() == nil {
			select { // resubscribe after an overflow
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// linkChanged carries out a link change on the loop's goroutine and
// returns the captured interfaces after it. A captured interface's
// capture is woken (it reopens its socket at once) and the engine told.
// In an all-interfaces run, an Ethernet interface that comes up is
// captured from now on (start starts its capture), up to the engine's
// bound past which the engine counts it (too-many-interfaces); one that is
// removed is let go (its capture stopped and its socket closed, unless
// dcbtop's agent runs there), and captured afresh should it come back.
// The engine keeps its port, down, until then.
func (r *liveRun) linkChanged(le capture.LinkEvent, ifaces []*liveIface, start func(*liveIface)) []*liveIface {
	// The changes already queued are carried out together and the
	// sockets settled once for all of them: a thousand interfaces coming
	// up would otherwise check up to a thousand sockets each.
	var evs []engine.Event
	evs = r.vlanChange(le, evs)
	ifaces, evs = r.linkChange(le, ifaces, start, evs)
	for n := len(r.linkEvents); n > 0; n-- {
		le := <-r.linkEvents
		evs = r.vlanChange(le, evs)
		ifaces, evs = r.linkChange(le, ifaces, start, evs)
	}
	if len(evs) > 0 {
		r.settle(ifaces, evs...)
	}
	return ifaces
}

// linkChange is one change of linkChanged: it returns the captured
// interfaces after it and evs with the engine's event, if any, appended.
func (r *liveRun) linkChange(le capture.LinkEvent, ifaces []*liveIface, start func(*liveIface), evs []engine.Event) ([]*liveIface, []engine.Event) {
	li := r.byName[le.Name]
	if old := r.renamed(le); li == nil && old != nil {
		return r.rename(old, le, ifaces, start, evs)
	}
	switch {
	case li == nil && (!r.dynamic || !le.Up || le.Removed):
		return ifaces, evs // not captured (-i names others), or not up
	case li == nil && len(r.byName) >= engine.DefaultMaxInterfaces:
		// Applied below: the engine counts it past its bound.
	case li == nil:
		li = newIface(le.Link, nil, r.cfg.open)
		r.byName[li.Name()] = li
		delete(r.letGoNames, li.Name())
		r.added = append(r.added, li)
		ifaces = append(ifaces, li)
		r.publishNames(ifaces)
		start(li)
	case le.Removed && r.dynamic && li.seat == nil:
		li.stop()
		r.letGo.Go(li.Drop) // not on the loop: a close waits ~10 ms
		delete(r.byName, li.Name())
		r.markLetGo(li.Name())
		ifaces = slices.DeleteFunc(ifaces, func(x *liveIface) bool { return x == li })
		r.added = slices.DeleteFunc(r.added, func(x *liveIface) bool { return x == li })
		r.publishNames(ifaces)
	default:
		li.Kick()
	}
	ev := engine.LinkChanged{Interface: le.Name, At: r.clk.Stamp(le.At).UTC(), Ifindex: le.Index, MAC: lldp.MAC(le.MAC), Up: le.Up, Removed: le.Removed, MTU: le.MTU, VLANs: r.links.VLANsOn(le.Index)}
	r.writeTape(ev.At, poll.LinkRecord(ev))
	return ifaces, append(evs, ev)
}

// renamed returns the captured interface that le renames: another name
// with le's interface index; nil otherwise.
func (r *liveRun) renamed(le capture.LinkEvent) *liveIface {
	if le.Removed || le.Index == 0 || r.cfg.Links != nil {
		return nil // given links (the demo's) are no kernel interfaces
	}
	for name, li := range r.byName {
		if name != le.Name && li.link.Index == le.Index {
			return li
		}
	}
	return nil
}

// rename follows a captured interface renamed (ip link set name: the
// kernel names the link by its new name only, with the same index), in
// every run, -i included: a rename is a rename. The capture under the old
// name stops and one under the new name starts on the same socket (a
// packet socket is bound to the index, which a rename keeps), with its
// counts; dcbtop's agent keeps its lock (the index's) and its
// control socket moves to the new name; the engine and the host get one
// LinkChanged with Was, which carries the port over (its peers, its local
// parameters, the agent, whose Port ID is the interface's name: a new
// MSAP, announced after a shutdown LLDPDU for the old one); the metrics'
// indication counts go on under the new name. Nothing stays under a name
// that no longer exists.
func (r *liveRun) rename(old *liveIface, le capture.LinkEvent, ifaces []*liveIface, start func(*liveIface), evs []engine.Event) ([]*liveIface, []engine.Event) {
	old.stop()
	li := newIface(le.Link, nil, r.cfg.open)
	li.TakeOver(old.Port, old.done)
	li.seat, old.seat = old.seat, nil
	if err := li.seat.Rename(li.Name()); err != nil {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s (was %s): dcbtop apply cannot reach the agent: %v\n", li.Name(), old.Name(), err)
	}
	delete(r.byName, old.Name())
	r.markLetGo(old.Name())
	if r.metrics != nil {
		r.metrics.Rename(old.Name(), li.Name()) // no series under the old name
	}
	r.byName[li.Name()] = li
	delete(r.letGoNames, li.Name())
	ifaces = slices.DeleteFunc(ifaces, func(x *liveIface) bool { return x == old })
	r.added = slices.DeleteFunc(r.added, func(x *liveIface) bool { return x == old })
	ifaces, r.added = append(ifaces, li), append(r.added, li)
	r.publishNames(ifaces)
	start(li)
	ev := engine.LinkChanged{Interface: le.Name, Was: old.Name(), At: r.clk.Stamp(le.At).UTC(), Ifindex: le.Index, MAC: lldp.MAC(le.MAC), Up: le.Up, MTU: le.MTU, VLANs: r.links.VLANsOn(le.Index)}
	r.writeTape(ev.At, poll.LinkRecord(ev))
	return ifaces, append(evs, ev)
}

// markLetGo notes that name is no longer captured (liveRun.letGoNames).
func (r *liveRun) markLetGo(name string) {
	if r.letGoNames == nil {
		r.letGoNames = map[string]bool{}
	}
	r.letGoNames[name] = true
}

// publishNames publishes the captured interfaces' names to the samplers.
func (r *liveRun) publishNames(ifaces []*liveIface) {
	names := make([]string, len(ifaces))
	for i, li := range ifaces {
		names[i] = li.Name()
	}
	r.names.Store(&names)
}

// ifaceNames returns the captured interfaces' names (samplers' goroutines).
func (r *liveRun) ifaceNames() []string {
	if p := r.names.Load(); p != nil {
		return *p
	}
	return nil
}
