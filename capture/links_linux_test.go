// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture"
)

// linkOf returns the Link the capture package should report for l.
func linkOf(l netlink.Link, up bool) capture.Link {
	a := l.Attrs()
	k := capture.Link{Name: a.Name, Index: a.Index, Up: up, MTU: a.MTU}
	if k.MTU == 0 {
		k.MTU = 1500 // made without one: ether_setup's ETH_DATA_LEN
	}
	copy(k.MAC[:], a.HardwareAddr)
	return k
}

// TestInterfaces checks the default capture set: Ethernet links that are
// up, loopback excluded.
func TestInterfaces(t *testing.T) {
	n := newNS(t)
	n.up("lo")
	va, vb := n.veth("va", "vb")
	n.veth("vc", "vd")
	n.down("vd") // vc is up, but without a carrier
	want := []capture.Link{linkOf(va, true), linkOf(vb, true)}
	// A dummy link's operational state is "unknown", which counts as up.
	if err := n.nl.LinkAdd(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: "d0"}}); err != nil {
		t.Logf("no dummy link (%v): testing without", err)
	} else {
		want = append([]capture.Link{linkOf(n.up("d0"), true)}, want...)
	}

	var (
		got []capture.Link
		err error
	)
	// Carrier changes reach the link state asynchronously.
	for deadline := time.Now().Add(3 * time.Second); ; {
		n.run(func() { got, err = capture.Interfaces() })
		if err != nil {
			t.Fatalf("Interfaces: %v", err)
		}
		if cmp.Equal(want, got) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Interfaces (-want +got):\n%s", diff)
	}
}

// linkWatch collects the events of a WatchLinks in a namespace.
type linkWatch struct {
	t      *testing.T
	events chan capture.LinkEvent
	seen   []capture.LinkEvent
	state  map[string]capture.LinkEvent // the last event of each link, by name
	cancel context.CancelFunc
	errc   chan error
	since  time.Time // when the watch started
}

func watch(t *testing.T, n *testNS) *linkWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &linkWatch{
		since:  time.Now(),
		t:      t,
		events: make(chan capture.LinkEvent),
		state:  make(map[string]capture.LinkEvent),
		cancel: cancel,
		errc:   make(chan error, 1),
	}
	n.start(func() { w.errc <- capture.WatchLinks(ctx, w.events) })
	t.Cleanup(func() {
		cancel()
		<-w.errc
	})
	return w
}

// waitUntil reads events until the last event of each link satisfies
// cond (which it may already do).
func (w *linkWatch) waitUntil(desc string, cond func(last map[string]capture.LinkEvent) bool) {
	w.t.Helper()
	timeout := time.After(5 * time.Second)
	for !cond(w.state) {
		select {
		case ev := <-w.events:
			if ev.At.Before(w.since) || ev.At.After(time.Now()) {
				w.t.Errorf("event %+v: At is not the time it was received (after the watch started at %v, not in the future)", ev, w.since)
			}
			w.seen = append(w.seen, ev)
			w.state[ev.Name] = ev
		case err := <-w.errc:
			w.t.Fatalf("WatchLinks returned %v while waiting for %s", err, desc)
		case <-timeout:
			w.t.Fatalf("not %s within 5s; events so far: %+v", desc, w.seen)
		}
	}
}

func TestWatchLinks(t *testing.T) {
	n := newNS(t)
	n.up("lo")
	va, vb := n.veth("va", "vb")
	w := watch(t, n)

	// Existing links.
	w.waitUntil("va and vb listed, up", func(last map[string]capture.LinkEvent) bool {
		return last["va"].Up && last["vb"].Up
	})
	if diff := cmp.Diff(linkOf(va, true), w.state["va"].Link); diff != "" {
		t.Errorf("va (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(linkOf(vb, true), w.state["vb"].Link); diff != "" {
		t.Errorf("vb (-want +got):\n%s", diff)
	}

	// Down, up, new MAC address.
	n.down("va")
	w.waitUntil("va down", func(last map[string]capture.LinkEvent) bool { return !last["va"].Up })
	n.up("va")
	w.waitUntil("va up again", func(last map[string]capture.LinkEvent) bool { return last["va"].Up })
	mac := [6]byte{0x02, 0, 0, 0, 0, 0xaa}
	if err := n.nl.LinkSetHardwareAddr(n.link("va"), mac[:]); err != nil {
		t.Fatal(err)
	}
	w.waitUntil("va with its new MAC", func(last map[string]capture.LinkEvent) bool { return last["va"].MAC == mac })

	// Removed, then created again.
	index := va.Attrs().Index
	if err := n.nl.LinkDel(n.link("va")); err != nil {
		t.Fatal(err)
	}
	w.waitUntil("va and vb removed", func(last map[string]capture.LinkEvent) bool {
		return last["va"].Removed && last["vb"].Removed
	})
	if got := w.state["va"].Index; got != index {
		t.Errorf("removal of va: Index = %d, want %d", got, index)
	}
	n.veth("va", "vb")
	w.waitUntil("va created again, up", func(last map[string]capture.LinkEvent) bool {
		return !last["va"].Removed && last["va"].Up
	})
	if w.state["va"].Index == index {
		t.Errorf("va created again with the index of the old one, %d", index)
	}

	// Loopback is not a Link, and no event repeats the previous one of
	// its link.
	last := make(map[int]capture.LinkEvent)
	for _, ev := range w.seen {
		if ev.Name == "lo" {
			t.Errorf("event about lo: %+v", ev)
		}
		if prev, ok := last[ev.Index]; ok && prev.Link == ev.Link && prev.Removed == ev.Removed {
			t.Errorf("event %+v repeats the previous one", ev)
		}
		last[ev.Index] = ev
	}
	t.Logf("%d events", len(w.seen))

	start := time.Now()
	w.cancel()
	select {
	case err := <-w.errc:
		if err != context.Canceled {
			t.Errorf("WatchLinks = %v, want context.Canceled", err)
		}
		w.errc <- err // for the cleanup
	case <-time.After(time.Second):
		t.Fatal("WatchLinks still running 1s after cancel")
	}
	t.Logf("WatchLinks returned %v after cancel", time.Since(start))
}

// TestLinkByName looks up links up or down, and refuses loopback and
// unknown names.
func TestLinkByName(t *testing.T) {
	n := newNS(t)
	va, _ := n.veth("va", "vb")
	n.down("vb")
	// va has no carrier once vb is down: it is found all the same, as down.
	for deadline := time.Now().Add(3 * time.Second); n.link("va").Attrs().RawFlags&unix.IFF_RUNNING != 0; {
		if time.Now().After(deadline) {
			t.Fatal("va still running 3s after vb went down")
		}
		time.Sleep(50 * time.Millisecond)
	}
	tests := []struct {
		name string
		want capture.Link
		err  string
		is   error
	}{
		{name: "va", want: linkOf(va, false)},
		{name: "vb", want: linkOf(n.link("vb"), false)},
		{name: "lo", err: "not an Ethernet interface (LLDP needs one)"},
		{name: "vc", err: "no such interface (available: lo, va, vb)", is: capture.ErrNoInterface},
	}
	for _, tt := range tests {
		var (
			got capture.Link
			err error
		)
		n.run(func() { got, err = capture.LinkByName(tt.name) })
		if tt.err == "" {
			if err != nil {
				t.Errorf("LinkByName(%q): %v", tt.name, err)
			} else if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LinkByName(%q) (-want +got):\n%s", tt.name, diff)
			}
			continue
		}
		if err == nil || err.Error() != tt.err {
			t.Errorf("LinkByName(%q) = %+v, %v; want error %q", tt.name, got, err, tt.err)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("LinkByName(%q) = %v, want it to match %v", tt.name, err, tt.is)
		}
	}
}

// TestPickLinks: the links named, each once, in the order named, or,
// none named, the default capture set; an unknown name is refused with
// the name, and no up Ethernet link at all is an error.
func TestPickLinks(t *testing.T) {
	n := newNS(t)
	n.up("lo")
	empty := func() ([]capture.Link, error) { return capture.PickLinks(nil) }
	var (
		got []capture.Link
		err error
	)
	n.run(func() { got, err = empty() })
	if err == nil || err.Error() != "no up Ethernet interface to capture on; name one with -i" {
		t.Errorf("no link: %v, %v", got, err)
	}
	va, vb := n.veth("va", "vb")
	tests := []struct {
		names []string
		want  []capture.Link
		err   string
	}{
		{[]string{"vb", "va", "vb"}, []capture.Link{linkOf(vb, true), linkOf(va, true)}, ""},
		{[]string{"va", "vc"}, nil, "vc: no such interface (available: lo, va, vb)"},
	}
	for _, tt := range tests {
		// Carrier changes reach the link state asynchronously.
		for deadline := time.Now().Add(3 * time.Second); ; {
			n.run(func() { got, err = capture.PickLinks(tt.names) })
			if tt.err != "" || cmp.Equal(tt.want, got) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("PickLinks(%q) = %v, %v; want error %q", tt.names, got, err, tt.err)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, got); err != nil || diff != "" {
			t.Errorf("PickLinks(%q): %v (-want +got):\n%s", tt.names, err, diff)
		}
	}
	n.run(func() { got, err = empty() })
	if diff := cmp.Diff([]capture.Link{linkOf(va, true), linkOf(vb, true)}, got); err != nil || diff != "" {
		t.Errorf("PickLinks(nil): %v (-want +got):\n%s", err, diff)
	}
}

// TestNetAdmin: root (this test's privilege) has CAP_NET_ADMIN.
func TestNetAdmin(t *testing.T) {
	requirePriv(t)
	if !capture.NetAdmin() {
		t.Error("NetAdmin is false with the privileges of a network namespace's creator")
	}
}
