// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"errors"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A registration is one counter source: its name, how New builds it from
// a Config (nil: not configured, left out), how Open dials what it reads
// on this host (nil: nothing to dial; it returns what Close releases),
// and how Replayed serves it from a recording (nil: the recorded files,
// Config.FS, are all it reads).
type registration struct {
	name   lossless.SourceName
	build  func(cfg Config, fsys hostfs.FS) Source
	open   func(o opening, cfg *Config) (closer func())
	replay func(d *tape.Deck, cfg *Config)
}

// opening is what Open's dialling takes.
type opening struct {
	ethtoolRoot string
	tap         *tape.Tap
	d           Dialers
}

// registry is every counter source, in the order a sample reads them
// (lossless.SourceNames, TestRegistry): New, Open, Replayed and the
// metrics' source names all come from it.
var registry = []registration{
	{name: lossless.SourceSysfs, build: func(_ Config, fsys hostfs.FS) Source { return SysfsSource(fsys) }},
	{
		name: lossless.SourceDCBNL,
		build: func(cfg Config, _ hostfs.FS) Source {
			if cfg.DCB == nil {
				return nil
			}
			return DCBNLSource(cfg.DCB)
		},
		open: func(o opening, cfg *Config) func() {
			c, err := o.d.dcb()(o.tap.Netlink(tape.ProtoRoute))
			if err != nil {
				return nil
			}
			cfg.DCB = c
			return func() { c.Close() }
		},
		replay: func(d *tape.Deck, cfg *Config) { cfg.DCB = dcbnl.NewClient(d.Conn(tape.ProtoRoute)) },
	},
	{
		name: lossless.SourceEthtool,
		build: func(cfg Config, _ hostfs.FS) Source {
			if cfg.Ethtool == nil {
				return nil
			}
			return EthtoolSource(cfg.Ethtool)
		},
		open: func(o opening, cfg *Config) func() {
			if o.ethtoolRoot != "" {
				cfg.Ethtool = o.tap.Ethtool(FileEthtool{Root: o.ethtoolRoot})
				return nil
			}
			et, err := OpenEthtool()
			if err != nil {
				return nil
			}
			cfg.Ethtool = o.tap.Ethtool(et)
			return et.Close
		},
		replay: func(d *tape.Deck, cfg *Config) { cfg.Ethtool = d.Ethtool() },
	},
	{name: lossless.SourceRDMA, build: func(_ Config, fsys hostfs.FS) Source { return RoCESource(fsys) }},
	{
		name: lossless.SourceRDMAStat,
		build: func(cfg Config, _ hostfs.FS) Source {
			if cfg.RDMAStats == nil && cfg.RDMAStatsErr == nil {
				return nil
			}
			return RDMAStatSource(cfg.RDMAStats, cfg.RDMAStatsErr)
		},
		open: func(o opening, cfg *Config) func() {
			sc, err := o.d.rdma()(o.tap.Netlink(tape.ProtoRDMA))
			switch {
			case err == nil:
				cfg.RDMAStats = sc
				return func() { sc.Close() }
			case !errors.Is(err, rdmastat.ErrNoRDMA):
				cfg.RDMAStatsErr = err // said on each RDMA port; no RDMA subsystem needs no word
			}
			return nil
		},
		replay: func(d *tape.Deck, cfg *Config) { cfg.RDMAStats = rdmastat.NewClient(d.Conn(tape.ProtoRDMA)) },
	},
	{
		name: lossless.SourceLinkPause,
		build: func(cfg Config, _ hostfs.FS) Source {
			if cfg.Pause == nil {
				return nil
			}
			return LinkPauseSource(cfg.Pause)
		},
		open: func(o opening, cfg *Config) func() {
			pc, err := o.d.pause()(o.tap.Netlink(tape.ProtoGeneric))
			if err != nil {
				return nil
			}
			cfg.Pause = pc
			return func() { pc.Close() }
		},
		replay: func(d *tape.Deck, cfg *Config) { cfg.Pause = linkpause.NewClient(d.Conn(tape.ProtoGeneric)) },
	},
}
