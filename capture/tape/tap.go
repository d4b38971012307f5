// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"errors"
	"slices"
	"sync"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A Tap collects the raw inputs of a group of readers as they read them,
// for the run to write to its recording (Take). It may be used from
// several goroutines. A nil *Tap collects nothing.
type Tap struct {
	mu   sync.Mutex
	recs []Record
}

// NewTap returns an empty Tap.
func NewTap() *Tap { return &Tap{} }

// Add collects r.
func (t *Tap) Add(r Record) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.recs = append(t.recs, r)
	t.mu.Unlock()
}

// Take returns what was collected since the last Take, in order, and
// forgets it.
func (t *Tap) Take() []Record {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.recs
	t.recs = nil
	return r
}

// FS returns fsys, its reads collected (hostfs.Recording).
func (t *Tap) FS(fsys hostfs.FS) hostfs.FS {
	if t == nil {
		return fsys
	}
	return hostfs.Recording(fsys, func(op hostfs.Op) { t.Add(File{Op: op}) })
}

// Netlink returns the recorder of a netlink client of protocol proto
// (nlclient.Conn.SetRecorder).
func (t *Tap) Netlink(proto int) nlclient.Recorder {
	if t == nil {
		return nil
	}
	return func(req netlink.Message, replies []netlink.Message, err error) {
		rs := make([]netlink.Message, len(replies))
		for i, m := range replies {
			rs[i] = netlink.Message{Header: m.Header, Data: slices.Clone(m.Data)}
		}
		t.Add(Netlink{Proto: proto, Request: netlink.Message{Header: req.Header, Data: slices.Clone(req.Data)}, Replies: rs, Err: err})
	}
}

// An EthtoolReader gives an interface's driver name and statistics:
// counters.Ethtool.
type EthtoolReader interface {
	DriverName(ifname string) (string, error)
	Stats(ifname string) (map[string]uint64, error)
}

// Ethtool returns e, its answers collected.
func (t *Tap) Ethtool(e EthtoolReader) EthtoolReader {
	if t == nil {
		return e
	}
	return recEthtool{e: e, t: t}
}

type recEthtool struct {
	e EthtoolReader
	t *Tap
}

// A stormTimeoutReader reads the driver's PFC storm prevention timeout
// (counters.StormTimeoutReader).
type stormTimeoutReader interface {
	PFCStormTimeout(ifname string) (uint16, error)
}

// PFCStormTimeout reads the timeout where the Ethtool it records reads
// one (the system's), and records its answer; an Ethtool that reads none
// (a recorded ethtool -S) answers errors.ErrUnsupported, not recorded.
func (r recEthtool) PFCStormTimeout(ifname string) (uint16, error) {
	t, ok := r.e.(stormTimeoutReader)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	v, err := t.PFCStormTimeout(ifname)
	r.t.Add(Tunable{Ifname: ifname, ID: TunablePFCPreventionTout, Value: uint64(v), Err: err})
	return v, err
}

func (r recEthtool) DriverName(ifname string) (string, error) {
	d, err := r.e.DriverName(ifname)
	r.t.Add(Ethtool{Ifname: ifname, Op: EthtoolDriver, Driver: d, Err: err})
	return d, err
}

func (r recEthtool) Stats(ifname string) (map[string]uint64, error) {
	m, err := r.e.Stats(ifname)
	stats := make([]Stat, 0, len(m))
	for n, v := range m {
		stats = append(stats, Stat{Name: n, Value: v})
	}
	slices.SortFunc(stats, func(a, b Stat) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	r.t.Add(Ethtool{Ifname: ifname, Op: EthtoolStats, Stats: stats, Err: err})
	return m, err
}
