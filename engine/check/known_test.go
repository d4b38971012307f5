// SPDX-License-Identifier: Apache-2.0

package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// TestKnownBeforeJudged: every fact a check judges carries whether it was
// read, and no check says OK while a fact it judges is unknown. From a
// host where every check is OK, each input is made unknown in turn (as a
// replay, a driver without the counter, or a peer without DCBX leaves
// it); every check that judged that fact must then not be OK, and must
// say the fact was not read. Every fact the checks judge has its input
// here (a new fact without one fails), so a check cannot judge a fact
// this walk never takes away. At 7737732 link-pause said OK with its
// evidence "link-wide PAUSE rx unknown, tx unknown" (the driver's
// statistics present, the pause settings not), and roce-pfc said "the
// peer does not enable PFC" of a peer that sent no DCBX.
func TestKnownBeforeJudged(t *testing.T) {
	counters := func(f func(*lossless.Counters)) func(*engine.Interface) {
		return func(in *engine.Interface) {
			c := *in.Counters
			f(&c)
			in.Counters = &c
		}
	}
	remote := func(f func(*dcb.Params)) func(*engine.Interface) {
		return func(in *engine.Interface) {
			r := in.Remote.Clone()
			f(r)
			in.Remote = r
		}
	}
	hop := func(h lossless.RoCEHop) func(*engine.Interface) {
		return counters(func(c *lossless.Counters) {
			paths := slices.Clone(c.RoCEPaths)
			for i := range paths {
				paths[i].Hops = slices.Clone(paths[i].Hops)
				for j := range paths[i].Hops {
					if paths[i].Hops[j].Hop == h {
						paths[i].Hops[j].Verdict, paths[i].Hops[j].Value, paths[i].Hops[j].Reason = lossless.PathUnknown, nil, "made unknown"
					}
				}
				if h == lossless.HopPriority {
					paths[i].Priority = nil
				}
			}
			c.RoCEPaths = paths
		})
	}
	unknownPriority := hop(lossless.HopPriority)
	noLocal := func(in *engine.Interface) { in.Local, in.Operational, in.LocalSource = nil, nil, engine.SourceNone }
	facts := map[string]func(*engine.Interface){
		"where the NIC puts RoCE traffic": unknownPriority,
		"the RoCE priority":               unknownPriority,
		"the peer's PFC":                  remote(func(r *dcb.Params) { r.PFC = nil }),
		"the peer's ETS":                  remote(func(r *dcb.Params) { r.ETS = nil }),
		"the PFC in force here":           noLocal,
		"this host's PFC":                 noLocal,
		"this host's APP table":           noLocal,
		"the ETS in force here":           func(in *engine.Interface) { o := in.Operational.Clone(); o.ETS = nil; in.Operational = o },
		"the host's LLDP agent processes": func(in *engine.Interface) { in.HostAgents = nil },
		"the NIC's DCBX mode":             func(in *engine.Interface) { in.DCBXMode = nil },
		"the lossless counters":           func(in *engine.Interface) { in.Counters = nil },
		"per-priority pause counters":     counters(func(c *lossless.Counters) { c.PFC.Source = nil }),
		"pause rates": counters(func(c *lossless.Counters) {
			c.PFC.Priorities = slices.Clone(c.PFC.Priorities)
			c.PFC.Priorities[3].RxPauseRate = nil
		}),
		"RDMA devices": counters(func(c *lossless.Counters) { c.RDMA = []lossless.RDMAPortCounters{} }),
		"congestion counters": counters(func(c *lossless.Counters) {
			c.RDMA = slices.Clone(c.RDMA)
			for i := range c.RDMA {
				c.RDMA[i].Rates = map[string]float64{}
			}
		}),
		// The driver's statistics count PAUSE frames; nothing reports the
		// settings (7737732: OK).
		"link-wide PAUSE rx": counters(func(c *lossless.Counters) { lp := *c.LinkPause; lp.RX = nil; c.LinkPause = &lp }),
		"link-wide PAUSE tx": counters(func(c *lossless.Counters) { lp := *c.LinkPause; lp.TX = nil; c.LinkPause = &lp }),
		"RoCE ports": counters(func(c *lossless.Counters) {
			c.RoCE, c.RoCEPaths = []lossless.RoCEPortSample{}, []lossless.RoCEPath{}
		}),
		"the GID table": counters(func(c *lossless.Counters) {
			c.RoCE = slices.Clone(c.RoCE)
			for i := range c.RoCE {
				c.RoCE[i].RoutableV2, c.RoCE[i].RoutableV2Why = nil, nil
			}
		}),
		"the receive buffer split": counters(func(c *lossless.Counters) { q := *c.QoS; q.Buffer = nil; c.QoS = &q }),
		"the PFC delay":            counters(func(c *lossless.Counters) { q := *c.QoS; q.PFCDelay = nil; c.QoS = &q }),
		"the port's trust":         counters(func(c *lossless.Counters) { q := *c.QoS; q.Trust = nil; c.QoS = &q }),
	}
	for _, h := range lossless.RoCEHops {
		facts["the RoCE path's "+string(h)+" hop"] = hop(h)
	}
	// Facts always read: what the capture heard is the capture itself.
	always := []string{"the LLDPDUs on the link"}

	base := healthy(t)
	judged := map[string][]verdict.Name{}
	for _, r := range Run(&base, Options{}) {
		if r.Verdict != verdict.OK {
			t.Fatalf("the healthy host: %s is %s (%s)", r.Check, r.Verdict, r.Summary)
		}
		for _, f := range r.Facts {
			if !f.Read {
				t.Errorf("the healthy host: %s did not read %s", r.Check, f.Name)
			}
			judged[f.Name] = append(judged[f.Name], r.Check)
		}
	}
	for name, checks := range judged {
		if _, ok := facts[name]; !ok && !slices.Contains(always, name) {
			t.Errorf("fact %q (judged by %v) has no input in this walk: add one", name, checks)
		}
	}
	for name, unknown := range facts {
		checks, ok := judged[name]
		if !ok {
			t.Errorf("no check judges %q on the healthy host", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			in := healthy(t)
			unknown(&in)
			for _, r := range Run(&in, Options{}) {
				if !slices.Contains(checks, r.Check) {
					continue
				}
				if r.Verdict == verdict.OK {
					t.Errorf("%s is OK with %s unknown: %s %q", r.Check, name, r.Summary, r.Evidence)
				}
				if r.Verdict == verdict.Unknown && !slices.ContainsFunc(r.Facts, func(f verdict.Fact) bool { return !f.Read }) {
					t.Errorf("%s is UNKNOWN naming no fact it did not read: %+v", r.Check, r.Facts)
				}
				for _, e := range r.Evidence {
					if r.Verdict == verdict.OK && strings.Contains(e, "unknown") {
						t.Errorf("%s is OK beside the evidence %q", r.Check, e)
					}
				}
			}
		})
	}
}
