// SPDX-License-Identifier: Apache-2.0

//go:build unix

package kernel

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// A gateClient is a driver whose reads on one interface wait at a gate:
// it counts the writes in flight per interface.
type gateClient struct {
	*kerneltest.Fake
	in     *sync.Map // ifname → *atomic.Int32: requests in flight
	peak   *atomic.Int32
	both   *atomic.Bool // two interfaces were in flight at once
	inside chan<- string
	wait   <-chan struct{}
}

func (g gateClient) IEEE(ifname string) (*dcbnl.IEEE, error) {
	v, _ := g.in.LoadOrStore(ifname, new(atomic.Int32))
	n := v.(*atomic.Int32).Add(1)
	defer v.(*atomic.Int32).Add(-1)
	if n > g.peak.Load() {
		g.peak.Store(n)
	}
	others := 0
	g.in.Range(func(k, v any) bool {
		if k != ifname && v.(*atomic.Int32).Load() > 0 {
			others++
		}
		return true
	})
	if others > 0 {
		g.both.Store(true)
	}
	g.inside <- ifname
	<-g.wait
	return g.Fake.IEEE(ifname)
}

// TestWriter: every write dials a request socket of its own and closes
// it; writes on one interface never overlap, writes on two run side by
// side; a socket that cannot be opened is a DialError and writes nothing.
func TestWriter(t *testing.T) {
	var dials, closes atomic.Int32
	in, peak, both := &sync.Map{}, &atomic.Int32{}, &atomic.Bool{}
	inside, gate := make(chan string, 64), make(chan struct{})
	w := NewWriter(func() (Client, func(), error) {
		dials.Add(1)
		return gateClient{Fake: kerneltest.NewFake(), in: in, peak: peak, both: both, inside: inside, wait: gate}, func() { closes.Add(1) }, nil
	}, nil)
	var wg sync.WaitGroup
	willing := true
	for _, ifname := range []string{"a", "a", "b"} {
		wg.Go(func() {
			if res, err := w.Apply(ifname, nil, &willing); err != nil || res.Err != nil {
				t.Errorf("%s: %v, %v", ifname, err, res.Err)
			}
		})
	}
	// Both interfaces get in before the gate opens; the second write on a
	// waits for the first.
	got := map[string]int{}
	for range 2 {
		select {
		case n := <-inside:
			got[n]++
		case <-time.After(10 * time.Second):
			t.Fatalf("in flight: %v; want a and b at once", got)
		}
	}
	if got["a"] != 1 || got["b"] != 1 {
		t.Errorf("first in flight: %v, want one write on a and one on b", got)
	}
	close(gate)
	wg.Wait()
	if !both.Load() {
		t.Error("writes on a and b never ran side by side")
	}
	if peak.Load() != 1 {
		t.Errorf("%d writes on one interface at once, want 1", peak.Load())
	}
	if dials.Load() != 3 || closes.Load() != 3 {
		t.Errorf("%d dials, %d closes; want one socket per write (3)", dials.Load(), closes.Load())
	}

	bad := NewWriter(func() (Client, func(), error) { return nil, nil, errors.New("protocol not supported") }, nil)
	_, err := bad.Apply("a", nil, &willing)
	var de *DialError
	if !errors.As(err, &de) || err.Error() != "DCB netlink: protocol not supported" {
		t.Fatalf("dial error: %v", err)
	}
	res := Failed("a", err)
	if res.Err == nil || res.Err.Kind != engine.WriteReadFailed || !strings.Contains(res.Err.Error(), "open DCB netlink") ||
		!strings.Contains(res.Err.Error(), "protocol not supported") {
		t.Errorf("Failed: %+v", res.Err)
	}
	if _, err := bad.ApplyQoS("a", qos.Change{}); !errors.As(err, &de) {
		t.Errorf("ApplyQoS dial error: %v", err)
	}
	if _, ok := bad.Read("a", time.Now()); ok {
		t.Error("Read without DCB netlink said ok")
	}
}
