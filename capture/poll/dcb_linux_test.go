// SPDX-License-Identifier: Apache-2.0

package poll

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// dcbRun is a Run for DCB alone: it collects the events sent.
type dcbRun struct {
	names  []string
	mu     sync.Mutex
	events []engine.LocalChanged
}

func (r *dcbRun) Now() time.Time                                  { return time.Now() }
func (r *dcbRun) NewTicker(d time.Duration) *time.Ticker          { return time.NewTicker(d) }
func (r *dcbRun) Names() []string                                 { return r.names }
func (r *dcbRun) Tap() *tape.Tap                                  { return nil }
func (r *dcbRun) WriteRound(time.Time, tape.Begin, []tape.Record) {}
func (r *dcbRun) Apply(t Taped)                                   { r.add(t.Event) }
func (r *dcbRun) Send(_ context.Context, t Taped) bool            { r.add(t.Event); return true }
func (r *dcbRun) SendEvent(_ context.Context, ev engine.Event) bool {
	r.add(ev)
	return true
}

func (r *dcbRun) add(ev engine.Event) {
	if lc, ok := ev.(engine.LocalChanged); ok {
		r.mu.Lock()
		r.events = append(r.events, lc)
		r.mu.Unlock()
	}
}

func (r *dcbRun) last() (engine.LocalChanged, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 {
		return engine.LocalChanged{}, 0
	}
	return r.events[len(r.events)-1], len(r.events)
}

// The driver's parameters are read at the start and again every
// dcbPollEvery: a change another program made (dcb, lldpad) reaches the
// run. From 27c3ff2 to this test the poller stopped at once whenever every
// interface had DCB (it counted the interfaces asked, not those without
// DCB), so a change never arrived: found on the real kernel
// (testbed/realkernel TestDCBNotificationDelay).
func TestDCBPollsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := kerneltest.NewFake()
		r := &dcbRun{names: []string{"h0"}}
		stop := DCB(r, func(nlclient.Recorder) (*dcbnl.Client, error) { return f.Netlink(t), nil })
		defer stop()
		if ev, n := r.last(); n != 1 || ev.Params == nil || ev.Params.PFC == nil || ev.Params.PFC.Enabled != 0 {
			t.Fatalf("first reading: %d events, last %+v", n, ev)
		}
		res := kernel.Apply(f.Netlink(t), "h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		time.Sleep(dcbPollEvery + time.Second)
		synctest.Wait()
		ev, n := r.last()
		if n < 2 || ev.Params == nil || ev.Params.PFC == nil || ev.Params.PFC.Enabled != 1<<3 {
			t.Errorf("%v after the change: %d readings, the last %+v; want PFC on priority 3 read again", dcbPollEvery, n, ev.Params)
		}
	})
}
