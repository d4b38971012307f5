// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Side is one of the three parameter sets of an interface (the NDIS
// QoS parameter kinds: local, remote, operational).
type Side string

// The sides.
const (
	SideLocal       Side = "local"
	SideRemote      Side = "remote"
	SideOperational Side = "operational"
)

// A ConfigDigest is one side's DCB configuration of an interface reduced
// to what a fleet compares: a canonical text (ConfigText) and its hash,
// so that hosts configured alike have the same Hash whatever their names,
// addresses and counters, and a host that differs from the rest stands
// out (dcbtop_config_info and the DCBConfigDrift alert).
type ConfigDigest struct {
	Side Side
	// Text is the canonical text hashed; its first line is its version
	// ("dcbtop-config v1").
	Text string
	// Hash is the first 16 hexadecimal digits of Text's SHA-256.
	Hash string
	// PFC is the side's PFC priorities ("3,4", "none"), "" without PFC.
	PFC string
	// RoCEPriority is the priority the RoCE path found (operational side
	// only), "" when none was found or there is no RoCE port.
	RoCEPriority string
}

// ConfigDigests returns the digests of the sides the interface has: the
// local parameters when known, the remote ones while valid, the
// operational ones when known. The operational digest also covers the
// RoCE path's settings (see ConfigText).
func ConfigDigests(in *engine.Interface) []ConfigDigest {
	var out []ConfigDigest
	add := func(side Side, p *dcb.Params, willing *bool, paths []lossless.RoCEPath) {
		if p == nil {
			return
		}
		d := ConfigDigest{Side: side, Text: ConfigText(p, willing, paths)}
		sum := sha256.Sum256([]byte(d.Text))
		d.Hash = hex.EncodeToString(sum[:8])
		if p.PFC != nil {
			d.PFC = p.PFC.Enabled.PrioWords()
		}
		for _, r := range paths {
			if r.Priority != nil {
				d.RoCEPriority = fmt.Sprint(*r.Priority)
				break
			}
		}
		out = append(out, d)
	}
	add(SideLocal, in.Local, in.Willing, nil)
	if in.RemoteValid {
		add(SideRemote, in.Remote, nil, nil)
	}
	var paths []lossless.RoCEPath
	if in.Counters != nil {
		paths = in.Counters.RoCEPaths
	}
	add(SideOperational, in.Operational, nil, paths)
	return out
}

// configHops are the RoCE path's hops whose values are settings (the
// same on hosts configured alike). The GID's value is an address, so
// only its verdict counts (a routable RoCE v2 GID or not); the pauses
// are counts and the PFC hop repeats the parameters and the peer's, so
// they are left out.
var configHops = []lossless.RoCEHop{lossless.HopToS, lossless.HopTrust, lossless.HopPriority, lossless.HopTC, lossless.HopBuffer, lossless.HopETS, lossless.HopECN}

// ConfigText is the canonical text of one side's configuration: its
// first line "dcbtop-config v1", then one line per feature (ETS, the
// ETS recommendation, PFC, the APP table sorted; "none" for a feature
// the side lacks), the Willing state when given (local side), and a line
// per RoCE port with its path's settings (sorted; without the RDMA
// device's name, which differs between hosts of one kind). Names,
// addresses and counters are left out so that hosts configured alike
// give the same text. A change of this format changes its version.
func ConfigText(p *dcb.Params, willing *bool, paths []lossless.RoCEPath) string {
	var b strings.Builder
	b.WriteString("dcbtop-config v1\n")
	nums := func(v [8]uint8) string { return dcb.JoinNums(v[:], ",") }
	tsas := func(t [8]lldp.TSA) string {
		s := make([]string, len(t))
		for i, x := range t {
			s[i] = x.String()
		}
		return strings.Join(s, ",")
	}
	if e := p.ETS; e != nil {
		fmt.Fprintf(&b, "ets max_tcs=%d cbs=%s cee=%s prio_tc=%s bw=%s tsa=%s\n", e.MaxTCs, dcb.OnOff(e.CBS), dcb.OnOff(e.FromCEE),
			nums(e.PrioTC), nums(e.TCBandwidth), tsas(e.TSA))
	} else {
		b.WriteString("ets none\n")
	}
	if r := p.ETSReco; r != nil {
		fmt.Fprintf(&b, "ets_reco prio_tc=%s bw=%s tsa=%s\n", nums(r.PrioTC), nums(r.TCBandwidth), tsas(r.TSA))
	} else {
		b.WriteString("ets_reco none\n")
	}
	if f := p.PFC; f != nil {
		fmt.Fprintf(&b, "pfc cap=%d mbc=%s enabled=%s\n", f.Cap, dcb.OnOff(f.MBC), f.Enabled.PrioWords())
	} else {
		b.WriteString("pfc none\n")
	}
	if p.App == nil {
		b.WriteString("app none\n")
	} else {
		apps := make([]string, len(p.App))
		for i, a := range p.App {
			apps[i] = fmt.Sprintf("%s:%d:%d", a.Selector, a.Protocol, a.Priority)
		}
		slices.Sort(apps)
		b.WriteString("app " + strings.Join(apps, " ") + "\n")
	}
	if willing != nil {
		b.WriteString("willing " + dcb.OnOff(*willing) + "\n")
	}
	var ports []string
	for _, r := range paths {
		var parts []string
		for _, h := range r.Hops {
			switch {
			case h.Hop == lossless.HopGID:
				parts = append(parts, string(h.Hop)+"="+string(h.Verdict))
			case slices.Contains(configHops, h.Hop):
				v := "?"
				if h.Value != nil {
					v = *h.Value
				}
				parts = append(parts, string(h.Hop)+"="+v)
			}
		}
		ports = append(ports, "roce "+strings.Join(parts, "; ")+"\n")
	}
	slices.Sort(ports)
	for _, l := range ports {
		b.WriteString(l)
	}
	return b.String()
}
