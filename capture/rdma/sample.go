// SPDX-License-Identifier: Apache-2.0

package rdma

import "github.com/dcbtop/dcbtop/engine/lossless"

// Sample maps a port onto the engine's sample (lossless.RoCEPortSample):
// every unknown value null, the reasons of those that matter kept in
// Problems (a GID, a type, a default that could not be read); an empty
// rdma_cm default is not a problem (it is simply not configured).
func (p *Port) Sample() lossless.RoCEPortSample {
	s := lossless.RoCEPortSample{Device: p.Device, Port: p.Port, GIDs: make([]lossless.RoCEGID, 0, len(p.GIDs)), Problems: []string{}}
	s.Problems = append(s.Problems, p.Problems...)
	if p.LinkLayer.Known {
		s.LinkLayer = ptr(p.LinkLayer.V)
	} else if p.LinkLayer.Why != "" {
		s.Problems = append(s.Problems, p.LinkLayer.Source+": "+p.LinkLayer.Why)
	}
	for _, g := range p.GIDs {
		e := lossless.RoCEGID{Index: g.Index}
		if g.Addr.Known {
			e.GID = ptr(g.Addr.V.String())
		} else {
			s.Problems = append(s.Problems, g.Addr.Source+": "+g.Addr.Why)
		}
		if g.IPv4.IsValid() {
			e.IPv4 = ptr(g.IPv4.String())
		}
		if g.Type.Known && g.Type.V != GIDTypeUnknown {
			e.Type = ptr(g.Type.V.String())
		} else if g.Type.Why != "" {
			s.Problems = append(s.Problems, g.Type.Source+": "+g.Type.Why)
		}
		if g.Netdev.Known {
			e.Netdev = ptr(g.Netdev.V)
		}
		s.GIDs = append(s.GIDs, e)
	}
	if p.RoutableV2.Known {
		s.RoutableV2 = ptr(p.RoutableV2.V)
	} else if p.RoutableV2.Why != "" {
		s.RoutableV2Why = ptr(p.RoutableV2.Why)
	}
	if t := p.DefaultToS; t.Known {
		s.DefaultToS = &lossless.RoCEToS{ToS: t.V.Byte, DSCP: t.V.DSCP, ECN: t.V.ECN, Source: t.Source}
	}
	if m := p.DefaultMode; m.Known {
		s.DefaultMode = ptr(m.V)
	}
	return s
}

func ptr[T any](v T) *T { return &v }
