package counters

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

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

// Config says where a Sampler reads from.
type Config struct {
	// SysfsRoot is the directory that stands for /sys ("" is "/sys").
	SysfsRoot string
	// Ethtool gives the driver's statistics by name; nil reads none.
	Ethtool Ethtool
	// DCB gives the dcbnl per-priority PFC frame counters; nil reads none.
	DCB DCB
}

// A Sampler reads interfaces' lossless-Ethernet counters. It keeps no
// state between samples (the engine computes rates), so it may be used
// from several goroutines when its Ethtool and DCB may.
type Sampler struct {
	root    string
	ethtool Ethtool
	dcb     DCB
}

// New returns a Sampler reading from cfg's sources.
func New(cfg Config) *Sampler {
	root := cfg.SysfsRoot
	if root == "" {
		root = DefaultSysfsRoot
	}
	return &Sampler{root: root, ethtool: cfg.Ethtool, dcb: cfg.DCB}
}

// Sample reads the counters of ifname now: its RDMA device ports' NDK and
// congestion counters, its per-priority pause counters and its ECN
// settings. It never fails as a whole: what has no source is left without
// one (RDMA empty, PFC or ECN nil, a Reading with Source ""), and a source
// that exists but cannot be read or parsed is left out and named in Err.
// at and interval are passed through to the event.
func (s *Sampler) Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled {
	ev := engine.CountersSampled{Interface: ifname, At: at, Interval: interval, RDMA: []lossless.RDMAPortSample{}}
	if !validIfname(ifname) {
		// The name is never spliced into a path or an ioctl: it could
		// climb out of the sysfs root or name another interface.
		ev.Err = "invalid interface name " + strconv.Quote(ifname)
		return ev
	}
	r := &reader{root: s.root}
	ev.RDMA = r.rdma(ifname)
	drv := s.driver(ifname)
	if drv.err == nil {
		ev.Driver = drv.name
	}
	stats, table := s.ethtoolStats(ifname, drv)
	ev.PFC = s.pfc(ifname, stats, table)
	ev.LinkPause = table.linkPause(stats)
	ev.ECN = r.ecn(ifname, len(ev.RDMA) > 0)
	ev.Err = r.errString()
	return ev
}

// validIfname reports whether name is a possible Linux interface name
// (the kernel's dev_valid_name): 1-15 bytes, not "." or "..", without '/',
// ':', whitespace or NUL.
func validIfname(name string) bool {
	if name == "" || len(name) > 15 || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '/', ':', 0, ' ', '\t', '\n', '\v', '\f', '\r':
			return false
		}
	}
	return true
}

// maxErrors bounds the problems named in CountersSampled.Err.
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
