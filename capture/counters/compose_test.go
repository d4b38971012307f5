// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"errors"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// sourceNames returns the names of s's sources, in order, from a sample
// of an interface of no sysfs tree.
func sourceNames(t *testing.T, s *counters.Sampler) []string {
	t.Helper()
	s.Sample("x0", t0, time.Second)
	var names []string
	for _, st := range s.Status() {
		names = append(names, st.Name)
	}
	return names
}

// A fakeSource takes its time and fails on the interfaces named, and
// records the driver the sources before it set.
type fakeSource struct {
	name string
	took time.Duration
	fail map[string]bool
}

func (f fakeSource) Name() string { return f.name }

func (f fakeSource) Sample(ifname string, s *lossless.Sample) error {
	time.Sleep(f.took)
	s.Driver += f.name
	if f.fail[ifname] {
		return errors.New(f.name + " failed on " + ifname)
	}
	return nil
}

// The composer runs every source in order on the same sample, keeps each
// failure under its source's name, and says how each source fared in the
// last sample of each interface: failed on one, and its time summed.
func TestCompose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := counters.Compose(
			fakeSource{name: "a", took: time.Millisecond},
			fakeSource{name: "b", took: 2 * time.Millisecond, fail: map[string]bool{"eth1": true}},
			fakeSource{name: "c", took: 3 * time.Millisecond, fail: map[string]bool{"eth1": true}},
		)
		if st := s.Status(); st != nil {
			t.Errorf("status before any sample: %+v", st)
		}
		e0 := s.Sample("eth0", t0, time.Second)
		e1 := s.Sample("eth1", t0, time.Second)
		if e0.Driver != "abc" || len(e0.Errors) != 0 {
			t.Errorf("eth0: sources ran as %q, errors %q", e0.Driver, e0.Errors)
		}
		want := []lossless.SourceError{{Source: "b", Err: "b failed on eth1"}, {Source: "c", Err: "c failed on eth1"}}
		if diff := cmp.Diff(want, e1.Errors); diff != "" {
			t.Errorf("eth1 errors (-want +got):\n%s", diff)
		}
		for _, tc := range []struct {
			name string
			keep []string // nil: no Keep
			want []counters.SourceStatus
		}{
			{"both interfaces", nil, []counters.SourceStatus{
				{Name: "a", OK: true, Duration: 2 * time.Millisecond},
				{Name: "b", OK: false, Duration: 4 * time.Millisecond},
				{Name: "c", OK: false, Duration: 6 * time.Millisecond},
			}},
			{"both kept", []string{"eth1", "eth0"}, []counters.SourceStatus{
				{Name: "a", OK: true, Duration: 2 * time.Millisecond},
				{Name: "b", OK: false, Duration: 4 * time.Millisecond},
				{Name: "c", OK: false, Duration: 6 * time.Millisecond},
			}},
			{"eth1 removed", []string{"eth0", "eth2"}, []counters.SourceStatus{
				{Name: "a", OK: true, Duration: time.Millisecond},
				{Name: "b", OK: true, Duration: 2 * time.Millisecond},
				{Name: "c", OK: true, Duration: 3 * time.Millisecond},
			}},
		} {
			if tc.keep != nil {
				s.Keep(tc.keep)
			}
			if diff := cmp.Diff(tc.want, s.Status()); diff != "" {
				t.Errorf("%s: status (-want +got):\n%s", tc.name, diff)
			}
		}
		// A name that is no interface's: no source asked, the sample says
		// why under no source's name.
		bad := s.Sample("../x", t0, time.Second)
		if diff := cmp.Diff([]lossless.SourceError{{Err: `invalid interface name "../x"`}}, bad.Errors); diff != "" || bad.Driver != "" {
			t.Errorf("invalid name: sources ran as %q; errors (-want +got):\n%s", bad.Driver, diff)
		}
	})
}

// fakePause answers ethtool netlink's PAUSE_GET: PAUSE off, or err.
type fakePause struct{ err error }

func (f fakePause) Get(string) (*linkpause.Pause, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &linkpause.Pause{Settings: linkpause.Settings{RX: linkpause.Off, TX: linkpause.Off}, Source: linkpause.SourceNetlink}, nil
}

// fakeStats answers RDMA netlink with err for every port.
type fakeStats struct{ err error }

func (f fakeStats) Port(string, int) (rdmastat.Port, error) { return rdmastat.Port{}, f.err }

// New composes a host's sources in their order, those without a reader
// left out; a failing link pause is the linkpause source's error, a
// missing interface none.
func TestNewSources(t *testing.T) {
	all := counters.Config{SysfsRoot: t.TempDir(), Ethtool: &fakeEthtool{driver: "veth"}, DCB: &fakeDCB{},
		Pause: fakePause{}, RDMAStats: fakeStats{errors.New("no")}}
	if got, want := sourceNames(t, counters.New(all)), []string{"sysfs", "dcbnl", "ethtool", "rdma", "rdmastat", "linkpause"}; !cmp.Equal(got, want) {
		t.Errorf("sources %q, want %q", got, want)
	}
	// The registry is lossless.SourceNames, which the metrics' source
	// label takes its values from: a source added to one is in the other.
	var names []string
	for _, n := range lossless.SourceNames {
		names = append(names, string(n))
	}
	if got := sourceNames(t, counters.New(all)); !cmp.Equal(got, names) {
		t.Errorf("sources %q, lossless.SourceNames %q", got, names)
	}
	for _, tc := range []struct {
		name string
		err  error
		want []lossless.SourceError
	}{
		{"answered", nil, nil},
		{"no such interface", &linkpause.Error{Op: "PAUSE_GET", Ifname: "x0", Err: syscall.ENODEV}, nil},
		{"refused", errors.New("PAUSE_GET x0: operation not permitted"), []lossless.SourceError{{Source: "linkpause", Err: "PAUSE_GET x0: operation not permitted"}}},
	} {
		cfg := all
		cfg.Pause = fakePause{tc.err}
		got := counters.New(cfg).Sample("x0", t0, time.Second)
		if diff := cmp.Diff(tc.want, got.Errors); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, diff)
		}
		if tc.err == nil && (got.LinkPause == nil || got.LinkPause.On()) {
			t.Errorf("%s: link pause %+v, want off", tc.name, got.LinkPause)
		}
	}
}
