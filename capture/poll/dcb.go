// SPDX-License-Identifier: Apache-2.0

package poll

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"github.com/dcbtop/dcbtop/capture/tape"
)

// dcbPollEvery is how often local parameters are re-read from the kernel:
// an RTNLGRP_DCB notification is only a hint (mlx5 sends none).
const dcbPollEvery = 10 * time.Second

// DCB reads the local parameters of the run's interfaces from DCB
// netlink now, then again on every RTNLGRP_DCB notification for them and
// every dcbPollEvery, feeding the host layer through events. Where dcbtop's
// agent runs, the engine keeps the reading aside for when the agent stops
// (a local source of lower precedence) and compares it with what the
// agent negotiated. Polls follow the captured names as they are now (an
// interface renamed is read under its new name). It returns a stop
// function; without DCB netlink (no socket, or no interface whose driver
// has DCB at the start) it does nothing. dial, when set, stands in for
// dcbnl.DialWatching (a fake kernel's, which has no multicast groups:
// polling only).
func DCB(r Run, dial func(nlclient.Recorder) (*dcbnl.Client, error)) (stop func()) {
	names := r.Names()
	if len(names) == 0 {
		return func() {}
	}
	tap := r.Tap() // -w: every reply, recorded
	watch := dial == nil
	if watch {
		dial = dcbnl.DialWatching // the local parameters follow RTNLGRP_DCB
	}
	c, err := dial(tap.Netlink(tape.ProtoRoute))
	if err != nil {
		return func() {}
	}
	now := r.Now()
	// noDCB holds the names whose driver never answered (kernel.Local
	// not ok the first time): not asked again. Another name (an interface
	// renamed, or one that appeared) is asked; a name that answered once
	// is asked on.
	noDCB, hasDCB := map[string]bool{}, map[string]bool{}
	for _, n := range names {
		ev, ok := kernel.Local(c, n, now)
		t := Taped{At: now, Begin: tape.Begin{Round: tape.RoundDCB, Ifname: n}, Recs: tap.Take()}
		if ok {
			t.Event = ev
		}
		noDCB[n], hasDCB[n] = !ok, ok
		r.Apply(t)
	}
	if !slices.ContainsFunc(names, func(n string) bool { return hasDCB[n] }) {
		c.Close() // no interface's driver has DCB
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	kick := make(chan struct{}, 1)
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		for ctx.Err() == nil {
			if !watch {
				return // a fake kernel's connection has no multicast groups: polling only
			}
			poke := func() {
				select {
				case kick <- struct{}{}:
				default:
				}
			}
			// Read again once subscribed: a change made between the
			// first reading and the join would wait for the poll.
			err := c.WatchJoined(ctx, poke, func(dcbnl.Notification) { poke() })
			if err == nil || errors.Is(err, context.Canceled) {
				return
			}
			select { // a failed watch: fall back on polling, retry later
			case <-ctx.Done():
			case <-time.After(dcbPollEvery):
			}
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		every(ctx, r, dcbPollEvery, kick, func(now time.Time) {
			for _, n := range r.Names() {
				if noDCB[n] {
					continue
				}
				ev, ok := kernel.Local(c, n, now)
				hasDCB[n] = hasDCB[n] || ok
				noDCB[n] = !hasDCB[n]
				if tap != nil {
					t := Taped{At: now, Begin: tape.Begin{Round: tape.RoundDCB, Ifname: n}, Recs: tap.Take()}
					if ok {
						t.Event = ev
					}
					if !r.Send(ctx, t) {
						return
					}
					continue
				}
				if ok && !r.SendEvent(ctx, ev) {
					return
				}
			}
		})
	}()
	return func() {
		cancel()
		<-done
		<-done
		c.Close()
	}
}
