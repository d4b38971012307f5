// SPDX-License-Identifier: Apache-2.0

package check

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"

	"github.com/dcbtop/dcbtop/engine/verdict"

	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// roceLocal is a RoCE-ready host: ETS 50/50 with priority 3 on TC 1, PFC
// on 3, RoCEv2 on 3, Willing as given.
func roceLocal(willing bool) *dcb.Params {
	return &dcb.Params{
		ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: 1 << 3},
		App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: lossless.RoCEv2Port, Priority: 3}},
	}
}

// verdicts maps each check of rs to its verdict.
func verdicts(rs []verdict.Result) map[verdict.Name]verdict.Verdict {
	m := map[verdict.Name]verdict.Verdict{}
	for _, r := range rs {
		m[r.Check] = r.Verdict
	}
	return m
}

// withDSCP adds the APP entry DSCP 26 -> priority 3 to p.
func withDSCP(p *dcb.Params) *dcb.Params {
	p.App = append(p.App, dcb.App{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3})
	return p
}

// withQoS gives a sample DCB netlink's QoS facts: priority 3 on buffer 1
// of size bytes, the PFC delay, and the trust table.
func withQoS(s engine.CountersSampled, size uint32, delay uint16, trust ...string) engine.CountersSampled {
	s.QoS = &lossless.PortQoSSample{Trust: trust, PFCDelay: &delay, Source: "dcbnl IEEE_GET",
		Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, size}, TotalBytes: 130944 + size}}
	return s
}

func TestCheck(t *testing.T) {
	const (
		ok   = verdict.OK
		warn = verdict.Warning
		crit = verdict.Critical
		unkn = verdict.Unknown
	)
	pfcOff := &lldp.PFC{Cap: 8}
	strict := &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 0, 0, 2}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2, 0}}
	starved := &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{100, 0}, TSA: [8]lldp.TSA{2, 2}}
	noRoCE := &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 4, Selector: lldp.AppSelTCP, Protocol: 3260}}}
	dscpOnly := &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26}}}
	// good is a sample of a port ready for RoCE: DCB netlink reports DSCP
	// trust, a buffer with room for priority 3 and a PFC delay; DCQCN on
	// priority 3 in both roles.
	good := goodSample
	want := func(overrides map[verdict.Name]verdict.Verdict) map[verdict.Name]verdict.Verdict {
		m := map[verdict.Name]verdict.Verdict{verdict.CheckPeer: ok, verdict.CheckRoCEPriority: ok, verdict.CheckRoCEPFC: ok, verdict.CheckRoCEETS: ok,
			verdict.CheckPFCAgreement: ok, verdict.CheckAgents: ok, verdict.CheckPauses: ok, verdict.CheckECN: ok, verdict.CheckLinkPause: ok, verdict.CheckRoCEGID: ok, verdict.CheckRoCEPath: ok, verdict.CheckHeadroom: ok, verdict.CheckTrust: ok}
		for k, v := range overrides {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		local   *dcb.Params // nil: unknown
		events  func(t *testing.T) []engine.Event
		opts    Options
		file    bool // a capture file: the host never looked at
		blames  map[verdict.Name][]verdict.Side
		want    map[verdict.Name]verdict.Verdict
		summary map[verdict.Name]string // substrings of summaries
	}{
		{
			name:  "healthy RoCE",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want: want(nil),
		},
		{
			name:  "link-wide PAUSE on beside PFC, no routable RoCE v2 GID",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				s := good(at(3), 1)
				s.LinkPause.RX = bp(true)
				s.RoCE[0].RoutableV2, s.RoCE[0].RoutableV2Why = nil, sp("only link-local RoCE v2 GIDs")
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), s}
			},
			// The PFC hop warns of the link pause beside it: roce-pfc too.
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckLinkPause: warn, verdict.CheckRoCEGID: warn, verdict.CheckRoCEPath: warn, verdict.CheckRoCEPFC: warn}),
			summary: map[verdict.Name]string{verdict.CheckLinkPause: "802.3x link-wide PAUSE is on (rx on, tx off) beside PFC on priority 3",
				verdict.CheckRoCEGID: "mlx5_0 port 1 has no routable RoCE v2 GID on eth0"},
		},
		{
			name:  "link-wide PAUSE unknown (no pause operations)",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				s := good(at(3), 1)
				s.LinkPause = &lossless.LinkPauseSample{Source: "ethtool netlink PAUSE_GET", Unknown: sp("driver has no pause operations")}
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), s}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckLinkPause: unkn}),
			summary: map[verdict.Name]string{verdict.CheckLinkPause: "link-wide PAUSE unknown: driver has no pause operations"},
		},
		{
			name:  "the peer has PFC off on the RoCE priority",
			local: withDSCP(roceLocal(false)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfcOff, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: crit, verdict.CheckPFCAgreement: crit, verdict.CheckRoCEPath: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPFC: "the peer does not enable PFC on RoCE priority 3"},
		},
		{
			name:  "multi-peer",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macA, 120, etsA, pfc3, app2)), rx(2, frame(t, macB, 120, etsA, pfc3, app2)),
					good(at(2), 0), good(at(3), 1)}
			},
			// PFC is on here; the peer's is not known (7737732 said
			// CRITICAL, "the peer does not enable PFC", of a peer whose PFC
			// was never read).
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: crit, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn, verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "2 DCBX peers on one link", verdict.CheckRoCEPFC: "the peer's PFC is not known: several DCBX peers",
				verdict.CheckRoCEPriority: "APP dscp 26 in the APP table in force; trust dscp, pcp"},
		},
		{
			name:  "no peer",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: crit, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn, verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "no LLDP peer", verdict.CheckRoCEPFC: "PFC is on for priority 3 here; the peer's PFC is not known: no LLDP peer"},
		},
		{
			name:  "the peer expired",
			local: withDSCP(roceLocal(true)),
			// Gone 11 s of its 10 s TTL: a warning until two TTLs have
			// passed (TestPeerLost).
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 10, etsA, pfc3, app2)), engine.Tick{At: at(20)}, good(at(21), 0), good(at(22), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: warn, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn, verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "its information expired (no LLDPDU within its TTL)"},
		},
		{
			name:  "no APP entry for RoCE",
			local: &dcb.Params{ETS: withDSCP(roceLocal(true)).ETS, PFC: withDSCP(roceLocal(true)).PFC},
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, noRoCE)), good(at(2), 0), good(at(3), 1)}
			},
			// DSCP 26 has no entry: the default priority 0, where PFC and
			// DCQCN are off (54a24de: the priority UNKNOWN, the path OK).
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPriority: crit, verdict.CheckRoCEPFC: crit, verdict.CheckECN: warn, verdict.CheckTrust: warn, verdict.CheckRoCEPath: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPriority: "RoCE lands on priority 0, where PFC is off: DSCP 26 is not in the APP table in force: the default priority 0",
				verdict.CheckTrust: "the APP table maps no DSCP value"},
		},
		{
			name:  "RoCE by DSCP on a lossless priority",
			local: &dcb.Params{ETS: withDSCP(roceLocal(true)).ETS, PFC: withDSCP(roceLocal(true)).PFC},
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, dscpOnly)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(nil),
			summary: map[verdict.Name]string{verdict.CheckRoCEPriority: "APP dscp 26 in the APP table in force"},
		},
		{
			name:  "a strict class can starve RoCE",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, strict, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEETS: warn}),
			summary: map[verdict.Name]string{verdict.CheckRoCEETS: "strict-priority TC 2 can starve RoCE TC 1"},
		},
		{
			name:  "the RoCE class gets no bandwidth",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, starved, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEETS: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEETS: "gives RoCE priority 3's TC 1 no ETS bandwidth"},
		},
		{
			name: "a replay: local parameters and counters unknown",
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2))}
			},
			opts: Options{Replay: true},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn, verdict.CheckPFCAgreement: unkn, verdict.CheckPauses: unkn, verdict.CheckECN: unkn, verdict.CheckLinkPause: unkn, verdict.CheckRoCEGID: unkn, verdict.CheckRoCEPath: unkn,
				verdict.CheckHeadroom: unkn, verdict.CheckTrust: unkn}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPFC: "the peer enables PFC on priority 3; what is in force on this host is unknown",
				verdict.CheckPauses: "the capture carries no counters"},
		},
		{
			name:  "live without counters",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2))}
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPauses: unkn, verdict.CheckECN: unkn, verdict.CheckLinkPause: unkn, verdict.CheckRoCEGID: unkn, verdict.CheckRoCEPath: unkn, verdict.CheckHeadroom: unkn, verdict.CheckTrust: unkn}),
		},
		{
			name:  "buffers with room, trust DSCP with a DSCP map",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), withQoS(mlxSample(at(2), 0), 130944, 7, "dscp", "pcp"), withQoS(mlxSample(at(3), 1), 130944, 7, "dscp", "pcp")}
			},
			// No DCQCN settings sampled: the ECN hop, and so the check, are
			// unknown.
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckECN: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckHeadroom: "every PFC priority has a receive buffer with room"},
		},
		{
			// A pause counter that jumped by about 2^64 (a small negative
			// read as unsigned) counted no traffic: no rate, no storm, and
			// the pauses check is UNKNOWN for that interval, not OK.
			name:  "a pause counter jump no link can make",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				second := withQoS(mlxSample(at(3), 1), 130944, 7, "dscp", "pcp")
				second.PFC.Priorities[3].TxPause.Value = 1<<64 - 3
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), withQoS(mlxSample(at(2), 0), 130944, 7, "dscp", "pcp"), second}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckECN: unkn, verdict.CheckRoCEPath: unkn, verdict.CheckPauses: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPauses: "no pause rate over the last interval on priority 3: one sample so far, or a counter that moved by more than any link can count (a reset or a bad read)"},
		},
		{
			// A dcbtop -w recording carries the counters: a replay of one
			// judges them as live.
			name:  "a replay of a recording with counters",
			local: withDSCP(roceLocal(true)),
			opts:  Options{Replay: true},
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), withQoS(mlxSample(at(2), 0), 130944, 7, "dscp", "pcp"), withQoS(mlxSample(at(3), 1), 130944, 7, "dscp", "pcp")}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckECN: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckHeadroom: "every PFC priority has a receive buffer with room"},
		},
		{
			name:  "an empty buffer on the PFC priority, trust PCP with a DSCP map",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), withQoS(mlxSample(at(2), 0), 0, 7, "pcp"), withQoS(mlxSample(at(3), 1), 0, 7, "pcp")}
			},
			// Trusted by PCP, untagged RoCE carries none: the default
			// priority 0, without PFC.
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckHeadroom: crit, verdict.CheckTrust: warn, verdict.CheckRoCEPath: crit, verdict.CheckRoCEPriority: crit, verdict.CheckRoCEPFC: crit, verdict.CheckECN: unkn}),
			summary: map[verdict.Name]string{verdict.CheckHeadroom: "whose receive buffer has size 0",
				verdict.CheckTrust: "the DSCP map is not used", verdict.CheckRoCEPriority: "untagged (the GID is eth0's own): no PCP"},
		},
		{
			name:  "PFC delay 0",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), withQoS(good(at(2), 0), 130944, 0, "dscp", "pcp"), withQoS(good(at(3), 1), 130944, 0, "dscp", "pcp")}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckHeadroom: warn}),
			summary: map[verdict.Name]string{verdict.CheckHeadroom: "PFC delay (cable length) is 0"},
		},
		{
			name:  "policy met",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			opts: Options{Policy: mustPolicy(t, `{"pfc":{"enabled":[3]},"app":[{"selector":"udp-port","protocol":4791,"priority":3}],"ets":{"min_bandwidth":{"3":50}},"willing":true}`)},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPolicy: ok}),
		},
		// Issue 43's classes, each measured at 7737732.
		{
			// 14 of 34: the driver's statistics count PAUSE frames, nothing
			// reports the settings: OK at 7737732.
			name:  "link-wide PAUSE frames counted, settings unknown",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				s := good(at(3), 1)
				s.LinkPause = &lossless.LinkPauseSample{RxFrames: u64(0), TxFrames: u64(0), FramesSource: "ethtool -S rx_pause_ctrl_phy, tx_pause_ctrl_phy"}
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), s}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckLinkPause: unkn}),
			summary: map[verdict.Name]string{verdict.CheckLinkPause: "link-wide PAUSE unknown"},
		},
		{
			// 6 of 34: "the peer does not enable PFC" of a peer that sent
			// LLDP without DCBX.
			name:  "an LLDP peer without DCBX",
			local: withDSCP(roceLocal(false)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120)), good(at(2), 0), good(at(3), 1)}
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: crit, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn,
				verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "the LLDP peer sends no DCBX TLVs",
				verdict.CheckRoCEPFC: "PFC is on for priority 3 here; the peer's PFC is not known: no DCBX from the peer"},
			blames: map[verdict.Name][]verdict.Side{verdict.CheckRoCEPFC: {}, verdict.CheckPeer: {verdict.SidePeer}},
		},
		{
			// Both off: both are named, not the peer alone.
			name:  "PFC off on both sides",
			local: &dcb.Params{ETS: withDSCP(roceLocal(false)).ETS, PFC: &dcb.PFC{Cap: 8}, App: withDSCP(roceLocal(false)).App},
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, pfcOff, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: crit, verdict.CheckRoCEPriority: crit, verdict.CheckRoCEPath: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPFC: "PFC is off on RoCE priority 3 on both sides"},
			blames:  map[verdict.Name][]verdict.Side{verdict.CheckRoCEPFC: {verdict.SidePeer, verdict.SideHost}},
		},
		{
			// No LLDP peer and PFC off here: this host is named, the peer is
			// not (its side is not known).
			name:  "no LLDP peer, PFC off here",
			local: &dcb.Params{ETS: withDSCP(roceLocal(false)).ETS, PFC: &dcb.PFC{Cap: 8}, App: withDSCP(roceLocal(false)).App},
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{good(at(2), 0), good(at(3), 1)}
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: crit, verdict.CheckRoCEPFC: crit, verdict.CheckRoCEPriority: crit, verdict.CheckRoCEETS: unkn,
				verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPFC: "PFC is not in force on RoCE priority 3 on this host"},
			blames:  map[verdict.Name][]verdict.Side{verdict.CheckRoCEPFC: {verdict.SideHost}, verdict.CheckPeer: {verdict.SidePeer}},
		},
		{
			// A capture file: the host's agents were never looked at (9 of
			// 34: "OK one DCBX agent on the port", evidence "local source
			// none").
			name:  "a capture file: the host's agents unknown",
			file:  true,
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckAgents: unkn}),
			summary: map[verdict.Name]string{verdict.CheckAgents: "the host's LLDP agent processes"},
		},
		{
			// A pre-CEE CIN peer: OK at 7737732, every remote parameter null.
			name:  "a CIN DCBX peer",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				cin := &lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x1b, 0x21, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00}}
				return []engine.Event{rx(1, frame(t, macB, 120, cin)), good(at(2), 0), good(at(3), 1)}
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: warn, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn,
				verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "CIN DCBX", verdict.CheckRoCEPFC: "the peer's CIN DCBX (1.00) is not decoded"},
		},
		{
			// A CEE-only switch and dcbtop's willing agent, which sends IEEE
			// only: at 7737732 "operational = remote" and pfc-agreement OK.
			name:  "a CEE-only peer and dcbtop's IEEE agent",
			local: &dcb.Params{ETS: withDSCP(roceLocal(true)).ETS, PFC: &dcb.PFC{Willing: true, Cap: 8}, App: withDSCP(roceLocal(true)).App},
			events: func(t *testing.T) []engine.Event {
				cee := &lldp.CEE{Control: &lldp.CEEControl{SeqNo: 1}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8}}
				return []engine.Event{rx(1, frame(t, macB, 120, cee)), good(at(2), 0), good(at(3), 1)}
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPFCAgreement: crit, verdict.CheckRoCEPFC: crit, verdict.CheckRoCEETS: unkn,
				verdict.CheckRoCEPriority: crit, verdict.CheckRoCEPath: crit}),
			summary: map[verdict.Name]string{verdict.CheckPFCAgreement: "the peer speaks only CEE DCBX and dcbtop's agent sends IEEE 802.1Qaz DCBX only",
				verdict.CheckRoCEPFC: "PFC is not in force on RoCE priority 3 on this host"},
		},
		{
			// A DCBX switch and a BMC sharing the NIC: every speaker listed,
			// no finding at 7737732.
			name:  "a DCBX switch and a BMC on one port",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), rx(1.5, frame(t, macA, 120)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: warn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "2 LLDP speakers on this port"},
		},
		{
			name:  "six VMs through a vSwitch, none sends DCBX",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				var evs []engine.Event
				for i := range byte(6) {
					evs = append(evs, rx(1+float64(i)/10, frame(t, lldp.MAC{0x52, 0x54, 0, 0, 0, i}, 120)))
				}
				return append(evs, good(at(2), 0), good(at(3), 1))
			},
			want: want(map[verdict.Name]verdict.Verdict{verdict.CheckPeer: crit, verdict.CheckRoCEPFC: unkn, verdict.CheckRoCEETS: unkn,
				verdict.CheckPFCAgreement: unkn, verdict.CheckRoCEPath: unkn}),
			summary: map[verdict.Name]string{verdict.CheckPeer: "none of the 6 LLDP speakers on this port sends DCBX TLVs"},
		},
		{
			// One DSCP on two priorities in the peer's table.
			name:  "the peer maps DSCP 26 to priorities 3 and 4",
			local: roceLocal(true),
			events: func(t *testing.T) []engine.Event {
				two := &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26}, {Priority: 4, Selector: lldp.AppSelDSCP, Protocol: 26}}}
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, two)), good(at(2), 0), good(at(3), 1)}
			},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPriority: crit}),
			summary: map[verdict.Name]string{verdict.CheckRoCEPriority: "the peer's APP table maps dscp 26 to priorities 3,4"},
		},
		{
			name:  "policy not met",
			local: withDSCP(roceLocal(true)),
			events: func(t *testing.T) []engine.Event {
				return []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), good(at(2), 0), good(at(3), 1)}
			},
			opts:    Options{Policy: mustPolicy(t, `{"pfc":{"enabled":[3,4]},"ets":{"min_bandwidth":{"3":80}},"willing":false}`)},
			want:    want(map[verdict.Name]verdict.Verdict{verdict.CheckPolicy: crit}),
			summary: map[verdict.Name]string{verdict.CheckPolicy: "PFC on {3}, expected {3,4}; priority 3's TC 1 has ets 70%, expected ets >= 80%; Willing is on, expected off"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := liveHost()
			if tt.file {
				e = engine.New(engine.Config{})
				e.Apply(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceDCBNL, Mode: "host, IEEE", Withdrawn: true})
			}
			if tt.local != nil {
				e.Apply(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceAgent, Willing: tt.local.ETS.Willing, Params: tt.local})
			}
			for _, ev := range tt.events(t) {
				e.Apply(ev)
			}
			in, ok := e.Interface("eth0")
			if !ok {
				t.Fatal("no eth0")
			}
			got := Run(&in, tt.opts)
			if diff := cmp.Diff(tt.want, verdicts(got)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, dumpResults(got))
			}
			for _, r := range got {
				if s, ok := tt.summary[r.Check]; ok && !strings.Contains(r.Summary, s) {
					t.Errorf("%s summary %q, want it to say %q", r.Check, r.Summary, s)
				}
				if want, ok := tt.blames[r.Check]; ok {
					if diff := cmp.Diff(want, r.Blames); diff != "" {
						t.Errorf("%s blames (-want +got):\n%s", r.Check, diff)
					}
				}
				for _, side := range r.Blames {
					if !sideRead(r.Facts, side) {
						t.Errorf("%s blames %s, whose facts it did not read: %+v", r.Check, side, r.Facts)
					}
				}
				if r.Interface != "eth0" || r.Summary == "" || r.Evidence == nil {
					t.Errorf("incomplete result %+v", r)
				}
				if r.Verdict != verdict.OK && r.Verdict != verdict.Unknown && r.Fix == "" {
					t.Errorf("%s is %v without a fix", r.Check, r.Verdict)
				}
			}
		})
	}
}

func mustPolicy(t *testing.T, s string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func dumpResults(rs []verdict.Result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(string(r.Check) + " " + r.Verdict.String() + ": " + r.Summary + " [" + strings.Join(r.Evidence, "; ") + "]\n")
	}
	return b.String()
}

// TestParsePolicyErrors: a policy's errors name the line and column of
// the offending value (of the key of an unknown member), every one of
// them, by place.
func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"pfc":{"enabled":[8]}}`, []string{"policy: line 1, column 20: pfc.enabled[0]: priority 8 is not 0-7"}},
		{`{"pfc":{"enable":[3]}}`, []string{`policy: line 1, column 9: pfc: unknown field "enable" (want enabled)`}},
		{`{"ets":{"min_bandwidth":{"x":5}}}`, []string{`policy: line 1, column 26: ets.min_bandwidth["x"]: the key is not a priority 0-7`}},
		{`{"ets":{"min_bandwidth":{"3":101}}}`, []string{`policy: line 1, column 30: ets.min_bandwidth["3"]: 101% is over 100`}},
		{`{"app":[{"selector":"udp-port","protocol":4791,"priority":9}]}`, []string{"policy: line 1, column 59: app[0].priority: priority 9 is not 0-7"}},
		{`{"app":[{"selector":"bogus","protocol":1,"priority":1}]}`, []string{`policy: line 1, column 21: app[0].selector: unknown APP selector "bogus" (want ethertype, tcp-port, udp-port, port or dscp)`}},
		{`{"app":[{"selector":"reserved-0","protocol":1,"priority":1}]}`, []string{"policy: line 1, column 21: app[0].selector: selector reserved-0 is not one of ethertype, tcp-port, udp-port, port or dscp"}},
		{`{"app":[{"protocol":1}]}`, []string{"policy: line 1, column 9: app[0]: selector reserved-0 is not one of ethertype, tcp-port, udp-port, port or dscp"}},
		{`{} {}`, []string{"policy: line 1, column 4: trailing data after the object"}},
		{`{"pfc":{"enabled":[3]},"pfc":{"enabled":[4]}}`, []string{"policy: line 1, column 24: pfc: key given twice (first at line 1, column 2)"}},
		{`[`, []string{"policy: line 1, column 2: unexpected end of input (an array is not closed)"}},
		{`{"trust":"vlan"}`, []string{`policy: line 1, column 10: trust: "vlan" is not dscp or pcp`}},
		{`{"roce":{"dscp":64}}`, []string{"policy: line 1, column 17: roce.dscp: 64 is not 0-63"}},
		{`{"cnp":{"priority":8}}`, []string{"policy: line 1, column 20: cnp.priority: 8 is not 0-7"}},
		{`{"pfc":{"enabled":"Aw=="}}`, []string{`policy: line 1, column 19: pfc.enabled: want a list of priorities 0-7, got "Aw=="`}},
		{
			`{"pfc": {"enabled": [3, 8]},
 "ets": {"min_bandwidth": {"3": 50, "03": 20, "4": 101}},
 "app": [{"selector": "udp-port", "protocol": 4791, "priority": 9, "pri": 3}],
 "roce": {"dscp": 64, "ecn": true},
 "willing": "no",
 "cnp": {"dscp": 4, "prio": 6}}`,
			[]string{
				"policy: line 1, column 25: pfc.enabled[1]: priority 8 is not 0-7",
				`line 2, column 37: ets.min_bandwidth["03"]: the key is not a priority 0-7`,
				`line 2, column 52: ets.min_bandwidth["4"]: 101% is over 100`,
				"line 3, column 68: app[0]: unknown field \"pri\" (want selector, protocol or priority)",
				"line 4, column 19: roce.dscp: 64 is not 0-63",
				"line 4, column 23: roce: unknown field \"ecn\" (want dscp)",
				`line 5, column 13: willing: want true, false or null, got "no"`,
				"line 6, column 21: cnp: unknown field \"prio\" (want dscp or priority)",
			},
		},
		{
			"{\n  \"preset\": \"roce-k8s\",\n  \"pfc\": {\"enabled\": [3]}\n",
			[]string{"policy: line 4, column 1: unexpected end of input (an object is not closed)"},
		},
		{
			"{\n  \"preset\": \"roce-k8s\",\n  \"pfc\": {\"enabled\": [3]}\n}",
			[]string{`policy: line 2, column 3: unknown field "preset" (want pfc, app, ets, willing, trust, roce or cnp)`},
		},
	}
	for _, tt := range tests {
		_, err := ParsePolicy([]byte(tt.in))
		if diff := cmp.Diff(tt.want, errLines(err)); diff != "" {
			t.Errorf("ParsePolicy(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestVerdictWorst(t *testing.T) {
	order := []verdict.Verdict{verdict.OK, verdict.Unknown, verdict.Warning, verdict.Critical}
	for i, a := range order {
		for j, b := range order {
			want := order[max(i, j)]
			if got := a.Worst(b); got != want {
				t.Errorf("%v.Worst(%v) = %v, want %v", a, b, got, want)
			}
		}
	}
	var v verdict.Verdict
	for _, s := range []string{"OK", "WARNING", "CRITICAL", "UNKNOWN"} {
		if err := v.UnmarshalText([]byte(s)); err != nil || v.String() != s {
			t.Errorf("%s round trip: %v %v", s, v, err)
		}
	}
}

// TestCheckHoldDownWords: a multi-peer hold-down that outlasts the second
// peer says so, in words that count right (54a24de: "1 DCBX peers on one
// link").
func TestCheckHoldDownWords(t *testing.T) {
	for n, want := range map[int]string{
		0: "multi-peer hold-down: no DCBX peer live now",
		1: "multi-peer hold-down: 1 DCBX peer live now",
		2: "2 DCBX peers on one link",
	} {
		in := engine.Interface{Name: "eth0", MultiPeer: &engine.MultiPeer{Peers: []string{"a", "b"}[:n]}}
		if r := Run(&in, Options{})[0]; r.Check != verdict.CheckPeer || r.Verdict != verdict.Critical || !strings.HasPrefix(r.Summary, want) {
			t.Errorf("%d peers: %s %s %q, want CRITICAL %q", n, r.Check, r.Verdict, r.Summary, want)
		}
	}
}

// errLines returns the lines of err's message, nil for nil.
func errLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestPeerLostCheck: dcbx-peer takes peer-lost's severity (engine's
// TestPeerLost for the diagnostic itself): a warning while the peer is
// briefly gone, CRITICAL once gone for two TTLs or when the willing
// host's fallback changed the PFC in force; a new peer ends it, and a
// port that never had a DCBX peer is CRITICAL for that, not for a loss.
func TestPeerLostCheck(t *testing.T) {
	local := func(willing bool, pfc dcb.PrioSet) engine.LocalChanged {
		return engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceAgent, Willing: willing,
			Params: &dcb.Params{ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, TCBandwidth: [8]uint8{100}}, PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc}}}
	}
	up := engine.LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true}
	down := up
	down.At, down.Up = at(30), false
	for _, tt := range []struct {
		name string
		evs  []engine.Event
		want verdict.Verdict
	}{
		{"expired, not willing", []engine.Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), engine.Tick{At: at(20)}}, verdict.Warning},
		{"expired, gone two TTLs", []engine.Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), engine.Tick{At: at(20)}, engine.Tick{At: at(31)}}, verdict.Critical},
		{"shutdown, willing: PFC fell back", []engine.Event{local(true, 0), rx(1, frame(t, macB, 120, etsA, pfc3)), rx(2, frame(t, macB, 0))}, verdict.Critical},
		{"link down, willing, same PFC", []engine.Event{up, local(true, 1<<3), rx(1, frame(t, macB, 120, etsA, pfc3)), down}, verdict.Warning},
		{"a new peer ends it", []engine.Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), engine.Tick{At: at(20)}, rx(21, frame(t, macB, 120, etsA, pfc3))}, verdict.OK},
		{"never a DCBX peer: nothing lost", []engine.Event{local(false, 1<<3), rx(1, frame(t, macB, 10)), engine.Tick{At: at(20)}}, verdict.Critical},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(engine.Config{})
			for _, ev := range tt.evs {
				e.Apply(ev)
			}
			in, _ := e.Interface("eth0")
			if got := verdicts(Run(&in, Options{}))[verdict.CheckPeer]; got != tt.want {
				t.Errorf("dcbx-peer %s, want %s", got, tt.want)
			}
		})
	}
}

// The screen's w previews what the change does to the verdicts
// (engine.PreviewInterface, Changes): following neither-willing-
// mismatch's advice (Willing on) with PFC 3 here and 4 at the peer fixes
// pfc-agreement, and roce-pfc stays CRITICAL for another reason: the host
// takes the peer's PFC 4 while RoCE is on 3. At 7737732 the preview said
// "PFC priority 3 disabled" and nothing of the verdicts.
func TestPreviewVerdicts(t *testing.T) {
	e := liveHost()
	local := roceLocal(false)
	e.Apply(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceAgent, Willing: false, Params: local})
	e.Apply(rx(1, frame(t, macB, 120, etsA, &lldp.PFC{Cap: 8, Enabled: 1 << 4}, lldptest.App1)))
	before, _ := e.Interface("eth0")
	if _, ok := before.Diagnostic(diag.CodeNeitherWilling); !ok {
		t.Fatalf("no neither-willing-mismatch before: %+v", before.Diagnostics)
	}
	after := engine.PreviewInterface(before, true, nil)
	if _, ok := after.Diagnostic(diag.CodeNeitherWilling); ok {
		t.Errorf("neither-willing-mismatch stays in the preview of Willing on")
	}
	if after.Operational.PFC.Enabled != 1<<4 || after.Willing == nil || !*after.Willing {
		t.Errorf("preview: operational PFC %v, willing %v; want the peer's {4}, on", after.Operational.PFC.Enabled, after.Willing)
	}
	got := Changes(&before, &after, Options{})
	if !slices.Contains(got, "pfc-agreement: CRITICAL → OK") {
		t.Errorf("changes %q lack pfc-agreement: CRITICAL → OK", got)
	}
	for _, r := range Run(&after, Options{}) {
		if r.Check == verdict.CheckRoCEPFC && (r.Verdict != verdict.Critical || !strings.Contains(r.Summary, "at the peer, and so in force here too")) {
			t.Errorf("roce-pfc after Willing on: %s %q, want CRITICAL: the host took the peer's PFC off on 3", r.Verdict, r.Summary)
		}
	}
	// The engine, doing it, agrees with its preview.
	e.Apply(engine.LocalChanged{Interface: "eth0", At: at(2), Source: engine.SourceAgent, Willing: true, Params: local.WithWilling(true)})
	done, _ := e.Interface("eth0")
	if diff := cmp.Diff(verdicts(Run(&done, Options{})), verdicts(Run(&after, Options{}))); diff != "" {
		t.Errorf("the preview's verdicts differ from the change's (-done +preview):\n%s", diff)
	}
}
