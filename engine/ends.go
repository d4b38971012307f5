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
// source address and one MSAP, are the two ends of one link: one is taken
// as this host (its LLDPDUs are what this host advertises, as a live run
// sees its own outgoing frames), the other as the peer; more than two is
// multi-peer as ever.

// A LinkEnd is one LLDP speaker heard on an interface of a capture
// without direction: its source address, its MSAP, when it first sent,
// and whether it advertised DCBX with its Willing bit set.
type LinkEnd struct {
	Interface string
	MAC       lldp.MAC
	MSAP      string
	First     time.Time
	DCBX      bool
	Willing   bool
}

// An EndsAssumed says which end of an undirected capture's link is taken
// as this host, and by which rule (LocalEnds); the engine shows it on the
// interface (Interface.CaptureEnds).
type EndsAssumed struct {
	Interface string
	At        time.Time
	Local     lldp.MAC
	Peer      lldp.MAC
	Rule      string
}

func (EndsAssumed) isEvent() {}

// CaptureEnds is the snapshot's account of an EndsAssumed: the capture
// was read as the two ends of one link.
type CaptureEnds struct {
	LocalMAC lldp.MAC `json:"local_mac"`
	PeerMAC  lldp.MAC `json:"peer_mac"`
	Rule     string   `json:"rule"`
}

// The rules LocalEnds takes this host's end by, in order.
const (
	EndRuleGiven   = "given by --local-mac"
	EndRuleWilling = "the willing end (a switch port is not willing: it is the DCBX source of truth)"
	EndRuleFirst   = "the first to send (say --local-mac to choose the other)"
)

// LocalEnds decides, per interface of an undirected capture, whether its
// speakers are the two ends of one link (exactly two source addresses,
// one MSAP each) and which is this host: the one whose address localMAC
// gives; else the only one advertising DCBX Willing; else the first to
// send. localMAC that is no end of a two-ended link, where there is one,
// is an error (the user named the wrong address).
func LocalEnds(ends []LinkEnd, localMAC *lldp.MAC) ([]EndsAssumed, error) {
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
	var unmatched []string
	for _, name := range names {
		es := byIface[name]
		if !twoEnds(es) {
			continue
		}
		a, b := es[0], es[1]
		if b.First.Before(a.First) {
			a, b = b, a // a sent first
		}
		local, rule := a, EndRuleFirst
		switch {
		case localMAC != nil:
			switch *localMAC {
			case a.MAC:
				rule = EndRuleGiven
			case b.MAC:
				local, rule = b, EndRuleGiven
			default:
				unmatched = append(unmatched, fmt.Sprintf("%s: %s, %s", name, a.MAC, b.MAC))
				continue
			}
		case a.DCBX && b.DCBX && a.Willing != b.Willing:
			rule = EndRuleWilling
			if b.Willing {
				local = b
			}
		}
		peer := a
		if local.MAC == a.MAC {
			peer = b
		}
		out = append(out, EndsAssumed{Interface: name, At: a.First, Local: local.MAC, Peer: peer.MAC, Rule: rule})
	}
	if localMAC != nil && len(out) == 0 {
		if len(unmatched) == 0 {
			return nil, fmt.Errorf("--local-mac %s: the capture has no link with two ends to choose from (it says which frames were sent, or it holds more or fewer than two speakers)", *localMAC)
		}
		return nil, fmt.Errorf("--local-mac %s is not an end of the capture's link (%s)", *localMAC, strings.Join(unmatched, "; "))
	}
	return out, nil
}

// twoEnds reports whether an interface's speakers are two, with distinct
// addresses and one MSAP each.
func twoEnds(es []LinkEnd) bool {
	if len(es) != 2 || es[0].MAC == es[1].MAC {
		return false
	}
	return es[0].MSAP != "" && es[1].MSAP != "" && es[0].MSAP != es[1].MSAP
}
