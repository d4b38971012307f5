// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A capture that does not say which frames this host sent (a classic
// pcap, "tcpdump -i eth0 -w", a pcapng without direction flags) holds
// both ends of the link when it was taken on a host that runs an LLDP
// agent: the host's own LLDPDUs and the switch's. Read as they come, the
// two are two peers, and the NDIS rule for more than one peer invalidates
// the remote parameters (multi-peer). Two speakers, each with its own
// source address and one MSAP, may be the two ends of one link, but only
// evidence says which is this host: the user (--local-mac), the System
// Capabilities TLV (a bridge or router facing a station), this host's own
// addresses (a replay on the host where the capture was taken), or the
// only willing end. Without evidence (two switches on a mirror port,
// neither willing, neither this host's address) the interface is
// ambiguous: its frames stay as they came (two peers) and the snapshot
// gives both readings. More than two speakers is multi-peer as ever.

// A LinkEnd is one LLDP speaker heard on an interface of a capture
// without direction: its source address, its MSAP, when it first sent,
// whether it advertised DCBX with its Willing bit set, and its System
// Capabilities TLV (IEEE Std 802.1AB-2016, 8.5.8; nil: it sent none), all
// as its first LLDPDU said.
type LinkEnd struct {
	Interface    string
	MAC          lldp.MAC
	MSAP         string
	First        time.Time
	DCBX         bool
	Willing      bool
	Capabilities *lldp.SystemCapabilities
}

// EndsEvidence is what LocalEnds decides with besides the speakers.
type EndsEvidence struct {
	// LocalMAC is --local-mac: the user says which address is this
	// host's; nil when not given.
	LocalMAC *lldp.MAC
	// HostMACs are the addresses of the interfaces of the host the
	// replay runs on (capture.HostMACs): a speaker with one of them is
	// this host, when the replay runs where the capture was taken.
	HostMACs []lldp.MAC
}

// An EndsAssumed says how the speakers of an undirected capture's
// interface are read (LocalEnds): which end is this host, and by which
// rule, or that no evidence tells (Ends.Ambiguous). The engine shows it
// on the interface (Interface.CaptureEnds); the replay marks the frames
// of Ends.LocalMAC as this host's.
type EndsAssumed struct {
	Interface string
	At        time.Time
	Ends      CaptureEnds
}

func (EndsAssumed) isEvent() {}

// CaptureEnds is the snapshot's account of an EndsAssumed: how the
// speakers of a capture without direction were read.
type CaptureEnds struct {
	// Ambiguous: two ends of one link and no evidence which is this
	// host. LocalMAC and PeerMAC are then null, and Readings holds both
	// readings; the frames are read as they came (two peers).
	Ambiguous bool `json:"ambiguous"`
	// LocalMAC is the end taken as this host, PeerMAC the other (null
	// when --local-mac names a speaker that has not exactly one other).
	LocalMAC *lldp.MAC `json:"local_mac"`
	PeerMAC  *lldp.MAC `json:"peer_mac"`
	Rule     string    `json:"rule"`
	// Readings are the readings left open: both when Ambiguous, none
	// otherwise.
	Readings []EndsReading `json:"readings"`
}

// An EndsReading is one way to read an ambiguous capture's two ends:
// LocalMAC this host, PeerMAC its peer.
type EndsReading struct {
	LocalMAC lldp.MAC `json:"local_mac"`
	PeerMAC  lldp.MAC `json:"peer_mac"`
}

// clone returns a copy of c that shares nothing with it, Readings never
// nil (an empty array in the snapshot).
func (c CaptureEnds) clone() CaptureEnds {
	if c.LocalMAC != nil {
		m := *c.LocalMAC
		c.LocalMAC = &m
	}
	if c.PeerMAC != nil {
		m := *c.PeerMAC
		c.PeerMAC = &m
	}
	c.Readings = append([]EndsReading{}, c.Readings...)
	return c
}

// equal reports whether c and d say the same.
func (c CaptureEnds) equal(d CaptureEnds) bool {
	eq := func(a, b *lldp.MAC) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return c.Ambiguous == d.Ambiguous && eq(c.LocalMAC, d.LocalMAC) && eq(c.PeerMAC, d.PeerMAC) &&
		c.Rule == d.Rule && slices.Equal(c.Readings, d.Readings)
}

// The rules LocalEnds reads an interface's two ends by, in order, and
// the word for none.
const (
	EndRuleGiven        = "given by --local-mac"
	EndRuleCapabilities = "System Capabilities: the other end is a bridge or router, this one a station (IEEE 802.1AB 8.5.8)"
	EndRuleHostMAC      = "this host's own MAC address (the replay runs where the capture was taken)"
	EndRuleWilling      = "the willing end (a switch port is not willing: it is the DCBX source of truth)"
	EndRuleAmbiguous    = "ambiguous: no evidence which end is this host (no --local-mac; System Capabilities, this host's addresses and Willing do not tell)"
)

// relayCaps are the system capabilities of a system that relays frames
// between ports (IEEE Std 802.1AB-2016, Table 8-4): a MAC Bridge, a
// router, a C-VLAN or S-VLAN component of a VLAN Bridge, a TPMR.
const relayCaps = lldp.CapBridge | lldp.CapRouter | lldp.CapCVLAN | lldp.CapSVLAN | lldp.CapTPMR

// relay reports whether e enables a relay capability (a switch port, a
// router); station whether e sent System Capabilities enabling none (a
// station only, an end host).
func (e LinkEnd) relay() bool { return e.Capabilities != nil && e.Capabilities.Enabled&relayCaps != 0 }
func (e LinkEnd) station() bool {
	return e.Capabilities != nil && e.Capabilities.Enabled&relayCaps == 0
}

// LocalEnds decides, per interface of an undirected capture, how its
// speakers are read. Where ev.LocalMAC speaks, its frames are this
// host's (the other speaker, when there is exactly one, the peer).
// Elsewhere an interface with two speakers, each with its own address and
// one MSAP, is the two ends of one link when evidence says which is this
// host, in this order: the System Capabilities TLV (IEEE Std
// 802.1AB-2016, 8.5.8: one end enables a bridge or router capability,
// the other sent the TLV enabling none, a station: the station is this
// host); exactly one of them has an address of ev.HostMACs; exactly one
// advertises DCBX Willing (a switch port is not willing). Without
// evidence it is ambiguous (both readings, frames as they came). An
// ev.LocalMAC that speaks on no interface is an error naming the
// speakers there are.
func LocalEnds(ends []LinkEnd, ev EndsEvidence) ([]EndsAssumed, error) {
	byIface := map[string][]LinkEnd{}
	var names []string
	for _, e := range ends {
		if _, ok := byIface[e.Interface]; !ok {
			names = append(names, e.Interface)
		}
		byIface[e.Interface] = append(byIface[e.Interface], e)
	}
	slices.Sort(names)
	var out []EndsAssumed
	given := false
	for _, name := range names {
		es := byIface[name]
		slices.SortStableFunc(es, func(a, b LinkEnd) int { return a.First.Compare(b.First) })
		if ev.LocalMAC != nil {
			if a, ok := givenEnds(name, es, *ev.LocalMAC); ok {
				out, given = append(out, a), true
				continue
			}
		}
		if !twoEnds(es) {
			continue
		}
		out = append(out, decideEnds(name, es[0], es[1], ev.HostMACs))
	}
	if ev.LocalMAC != nil && !given {
		if len(names) == 0 {
			return nil, fmt.Errorf("--local-mac %s: no LLDP speaker in the capture's frames without direction (frames that say their direction, pcapng flags or Linux cooked packet types, say which are this host's)", *ev.LocalMAC)
		}
		var there []string
		for _, name := range names {
			var macs []string
			for _, e := range byIface[name] {
				if m := e.MAC.String(); !slices.Contains(macs, m) {
					macs = append(macs, m)
				}
			}
			there = append(there, name+": "+strings.Join(macs, ", "))
		}
		return nil, fmt.Errorf("--local-mac %s never speaks in the capture (its LLDP speakers: %s)", *ev.LocalMAC, strings.Join(there, "; "))
	}
	return out, nil
}

// givenEnds reads interface name's speakers es (first to send first)
// with local, --local-mac, as this host, when it is one of them.
func givenEnds(name string, es []LinkEnd, local lldp.MAC) (EndsAssumed, bool) {
	i := slices.IndexFunc(es, func(e LinkEnd) bool { return e.MAC == local })
	if i < 0 {
		return EndsAssumed{}, false
	}
	c := CaptureEnds{LocalMAC: &local, Rule: EndRuleGiven}
	var others []lldp.MAC
	for _, e := range es {
		if e.MAC != local && !slices.Contains(others, e.MAC) {
			others = append(others, e.MAC)
		}
	}
	if len(others) == 1 {
		c.PeerMAC = &others[0]
	}
	return EndsAssumed{Interface: name, At: es[0].First, Ends: c}, true
}

// decideEnds reads the two ends a and b (a sent first) of interface name
// by the first rule that tells which is this host, or ambiguous.
func decideEnds(name string, a, b LinkEnd, hostMACs []lldp.MAC) EndsAssumed {
	var local, peer *LinkEnd
	rule := EndRuleAmbiguous
	pick := func(l, p LinkEnd, r string) { local, peer, rule = &l, &p, r }
	switch aHost, bHost := slices.Contains(hostMACs, a.MAC), slices.Contains(hostMACs, b.MAC); {
	case a.station() && b.relay():
		pick(a, b, EndRuleCapabilities)
	case b.station() && a.relay():
		pick(b, a, EndRuleCapabilities)
	case aHost != bHost:
		if aHost {
			pick(a, b, EndRuleHostMAC)
		} else {
			pick(b, a, EndRuleHostMAC)
		}
	case a.DCBX && b.DCBX && a.Willing != b.Willing:
		if a.Willing {
			pick(a, b, EndRuleWilling)
		} else {
			pick(b, a, EndRuleWilling)
		}
	}
	ea := EndsAssumed{Interface: name, At: a.First, Ends: CaptureEnds{Rule: rule}}
	if local == nil {
		ea.Ends.Ambiguous = true
		ea.Ends.Readings = []EndsReading{{LocalMAC: a.MAC, PeerMAC: b.MAC}, {LocalMAC: b.MAC, PeerMAC: a.MAC}}
		return ea
	}
	ea.Ends.LocalMAC, ea.Ends.PeerMAC = &local.MAC, &peer.MAC
	return ea
}

// twoEnds reports whether an interface's speakers are two, with distinct
// addresses and one MSAP each.
func twoEnds(es []LinkEnd) bool {
	if len(es) != 2 || es[0].MAC == es[1].MAC {
		return false
	}
	return es[0].MSAP != "" && es[1].MSAP != "" && es[0].MSAP != es[1].MSAP
}
