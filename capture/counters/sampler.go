// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/dcbtop/dcbtop/capture/hostfs"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// EnvSysfsRoot is the environment variable that overrides the sysfs root
// the counters are read from (default "/sys"), to point dcbtop at a
// fixture tree such as testdata/sysfs/mlx5. The package itself never reads
// it: the command does, and passes the value in Config.SysfsRoot.
const EnvSysfsRoot = "DCBTOP_SYSFS_ROOT"

// DefaultSysfsRoot is the sysfs root used when Config.SysfsRoot is "".
const DefaultSysfsRoot = "/sys"

// A Source is one source of an interface's lossless counters (see the
// package comment, Sources): a Sampler runs its sources in order for
// each sample.
type Source interface {
	// Name names the source in the sample's errors and in the metrics:
	// one of lossless.SourceNames for the registry's sources.
	Name() string
	// Sample reads ifname's counters into s, which the sources before
	// it have filled (a source may complete or override what an
	// earlier one read). ifname is a valid interface name
	// (rdma.ValidIfname). It returns the failure to read something that
	// exists, one line, which the sample keeps as the source's error
	// (the counters-error diagnostic); nil when there is none. What
	// does not exist (no RDMA port, no dcbnl_ops on a veth) is no error.
	Sample(ifname string, s *lossless.Sample) error
}

// Config says where a host's counters are read from (New).
type Config struct {
	// SysfsRoot is the directory that stands for /sys ("" is "/sys"),
	// read unless FS is set.
	SysfsRoot string
	// FS, when set, is the tree that stands for /sys, instead of the
	// files under SysfsRoot (a recording's, hostfs.Replay).
	FS hostfs.FS
	// Ethtool gives the driver's statistics by name; nil reads none.
	Ethtool Ethtool
	// DCB reads the interface's IEEE DCB state (DCB_CMD_IEEE_GET) once
	// a sample, for the PFC counts and the NIC's QoS; nil reads none.
	DCB IEEEReader
	// Pause reads the link-wide PAUSE (ethtool netlink); nil reads none.
	Pause PauseReader
	// RDMAStats reads the RDMA ports' optional counters (RDMA netlink);
	// nil reads none. RDMAStatsErr, when RDMAStats is nil, is why there
	// is none, said on each RDMA port (nil: no RDMA subsystem, nothing
	// to say).
	RDMAStats    RDMAStats
	RDMAStatsErr error
}

// A PauseReader reads an interface's link-wide PAUSE settings and
// statistics: a *linkpause.Client.
type PauseReader interface {
	Get(ifname string) (*linkpause.Pause, error)
}

var _ PauseReader = (*linkpause.Client)(nil)

// An RDMAStats reads an RDMA port's optional counters: a
// *rdmastat.Client.
type RDMAStats interface {
	Port(device string, port int) (rdmastat.Port, error)
}

var _ RDMAStats = (*rdmastat.Client)(nil)

// A Sampler reads interfaces' lossless counters from its sources, run in
// order for each sample, and keeps how each source fared in each
// interface's last sample (Status). It may be used from several
// goroutines when its sources may.
type Sampler struct {
	sources []Source
	closers []func() // what Open dialled

	mu   sync.Mutex
	last map[string][]outcome // by interface: each source's, in order
}

// An outcome is how a source fared in one sample.
type outcome struct {
	failed bool
	took   time.Duration
}

// New returns the Sampler of a host's counters from cfg's sources, in
// this order: sysfs (the RDMA ports' counters and the ECN settings),
// dcbnl (the PFC counts and the NIC's QoS, from one IEEE_GET), ethtool
// (the driver's name, its PFC counts, which come after dcbnl's as the
// package comment says, and its link PAUSE frame counters), rdma (the
// RDMA ports' RoCE identity), rdmastat (their optional counters) and
// linkpause (the link-wide PAUSE, completed by the driver's counters).
// A source whose reader cfg leaves nil is left out.
func New(cfg Config) *Sampler {
	fsys := cfg.FS
	if fsys == nil {
		fsys = hostfs.Dir(cmp.Or(cfg.SysfsRoot, DefaultSysfsRoot))
	}
	var srcs []Source
	for _, r := range registry {
		if s := r.build(cfg, fsys); s != nil {
			srcs = append(srcs, s)
		}
	}
	return Compose(srcs...)
}

// Compose returns a Sampler running the given sources, in order.
func Compose(sources ...Source) *Sampler {
	return &Sampler{sources: sources, last: map[string][]outcome{}}
}

// Open returns the Sampler of this host's counters: sysfs under sysfsRoot
// ("" /sys), the driver's statistics from the ethtool ioctls or, when
// ethtoolRoot is set, from the recorded outputs under it (FileEthtool),
// DCB netlink, ethtool netlink's PAUSE and RDMA netlink's optional
// counters, each dialled now; one that cannot be dialled is left out.
// Close releases them.
//
// Every raw input its sources read is collected in tap (nil: none), from
// the netlink families resolved when dialling on: a recording's open
// round (capture/tape), which also says which sources there are
// (tape.Sources). Replayed makes the same Sampler from it.
func Open(sysfsRoot, ethtoolRoot string, tap *tape.Tap, d Dialers) *Sampler {
	cfg := Config{FS: tap.FS(hostfs.Dir(cmp.Or(sysfsRoot, DefaultSysfsRoot)))}
	o := opening{ethtoolRoot: ethtoolRoot, tap: tap, d: d}
	var closers []func()
	for _, r := range registry {
		if r.open != nil {
			if c := r.open(o, &cfg); c != nil {
				closers = append(closers, c)
			}
		}
	}
	s := New(cfg)
	s.closers = closers
	tap.Add(s.Tape(cfg.RDMAStatsErr))
	return s
}

// Tape is the record of the Sampler's sources for a recording's open
// round (Replayed makes the same Sampler from it); rdmaErr is why RDMA
// netlink could not be read (Config.RDMAStatsErr), nil for none.
func (s *Sampler) Tape(rdmaErr error) tape.Sources {
	var src tape.Sources
	for _, x := range s.sources {
		src.Names = append(src.Names, x.Name())
	}
	if rdmaErr != nil {
		src.RDMAStatsErr = rdmaErr.Error()
	}
	return src
}

// Dialers dial the host's netlink readers, each told of its exchanges
// (a recording's recorder, nil for none); a nil one dials the kernel
// (dcbnl.DialRecorded, linkpause.DialRecorded, rdmastat.DialRecorded).
// Tests give clients on an nltest fake kernel.
type Dialers struct {
	DCB   func(nlclient.Recorder) (*dcbnl.Client, error)
	Pause func(nlclient.Recorder) (*linkpause.Client, error)
	RDMA  func(nlclient.Recorder) (*rdmastat.Client, error)
}

func (d Dialers) dcb() func(nlclient.Recorder) (*dcbnl.Client, error) {
	if d.DCB != nil {
		return d.DCB
	}
	return dcbnl.DialRecorded
}

func (d Dialers) pause() func(nlclient.Recorder) (*linkpause.Client, error) {
	if d.Pause != nil {
		return d.Pause
	}
	return linkpause.DialRecorded
}

func (d Dialers) rdma() func(nlclient.Recorder) (*rdmastat.Client, error) {
	if d.RDMA != nil {
		return d.RDMA
	}
	return rdmastat.DialRecorded
}

// Replayed returns the Sampler of a recorded run: the sources src names,
// in New's order, each reading what d answers from the recording (its
// files, its netlink replies, its ethtool answers) through the same
// readers and decoders as the live run.
func Replayed(d *tape.Deck, src tape.Sources) *Sampler {
	cfg := Config{FS: d.FS()}
	for _, n := range src.Names {
		for _, r := range registry {
			if string(r.name) == n && r.replay != nil {
				r.replay(d, &cfg)
			}
		}
	}
	if src.RDMAStatsErr != "" {
		cfg.RDMAStats, cfg.RDMAStatsErr = nil, errors.New(src.RDMAStatsErr)
	}
	return New(cfg)
}

// Close releases what Open dialled (nothing for New's and Compose's).
func (s *Sampler) Close() {
	for _, c := range s.closers {
		c()
	}
	s.closers = nil
}

// Sample reads the counters of ifname now from every source, in order.
// It never fails as a whole: what has no source is left without one
// (RDMA empty, PFC or ECN nil, a Reading with Source ""), and a source
// that exists but cannot be read or parsed is left out and named in the
// sample's Errors, under its source's name. A name that is no possible
// interface name is never read: the sample says so, with no source's
// name. at and interval are passed through to the event.
func (s *Sampler) Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled {
	smp := lossless.Sample{Interface: ifname, At: at, Interval: interval, RDMA: []lossless.RDMAPortSample{}}
	if !rdma.ValidIfname(ifname) {
		// The name is never spliced into a path or an ioctl: it could
		// climb out of the sysfs root or name another interface.
		smp.Errors = []lossless.SourceError{{Err: "invalid interface name " + strconv.Quote(ifname)}}
		return engine.CountersSampled(smp)
	}
	out := make([]outcome, len(s.sources))
	for i, src := range s.sources {
		start := time.Now()
		err := src.Sample(ifname, &smp)
		out[i] = outcome{failed: err != nil, took: time.Since(start)}
		if err != nil {
			smp.Errors = append(smp.Errors, lossless.SourceError{Source: src.Name(), Err: err.Error()})
		}
	}
	s.mu.Lock()
	s.last[ifname] = out
	s.mu.Unlock()
	return engine.CountersSampled(smp)
}

// A SourceStatus is how a source fared in the last sample of each
// interface sampled (and not forgotten since, Keep).
type SourceStatus struct {
	// Name is the source's (Source.Name).
	Name string
	// OK says no interface's last sample had an error from it.
	OK bool
	// Duration is the time it took, summed over those samples.
	Duration time.Duration
}

// Status returns each source's status, in the sources' order; none
// before the first sample.
func (s *Sampler) Status() []SourceStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.last) == 0 {
		return nil
	}
	st := make([]SourceStatus, len(s.sources))
	for i, src := range s.sources {
		st[i] = SourceStatus{Name: src.Name(), OK: true}
	}
	for _, out := range s.last {
		for i, o := range out {
			st[i].OK = st[i].OK && !o.failed
			st[i].Duration += o.took
		}
	}
	return st
}

// Keep forgets the last samples of the interfaces not in names (removed
// ones), for Status.
func (s *Sampler) Keep(names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	present := 0 // names has no duplicates
	for _, n := range names {
		if _, ok := s.last[n]; ok {
			present++
		}
	}
	if present == len(s.last) {
		return
	}
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	maps.DeleteFunc(s.last, func(n string, _ []outcome) bool { return !keep[n] })
}

// maxErrors bounds the problems named in a source's error.
const maxErrors = 8

// errString joins the problems recorded so far into one line ("" when
// none).
func (r *reader) errString() string {
	if len(r.errs) == 0 {
		return ""
	}
	errs := r.errs
	more := 0
	if len(errs) > maxErrors {
		errs, more = errs[:maxErrors], len(errs)-maxErrors
	}
	s := strings.Join(errs, "; ")
	if more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return oneLine(s)
}

// oneLine escapes control characters (newlines in odd file names) so
// that s stays one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
