// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"runtime"
	"strings"
	"sync"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine"
)

// A Collector is a prometheus.Collector for dcbtop: every scrape calls the
// snapshot function once and exports what it returns, plus the indication
// counts passed to Observe. Its methods may be called concurrently.
type Collector struct {
	snap     func() engine.Snapshot
	version  string
	revision string
	codes    []diag.Code
	d        descs
	l        losslessDescs
	s        sourceDescs
	// sources returns the counter sources' status (nil: none exported).
	sources func() []CounterSource

	mu          sync.Mutex
	indications map[indicationKey]uint64
}

// indicationKey is one series of dcbtop_indications_total.
type indicationKey struct{ iface, status, reason string }

// descs are the Collector's metric descriptions.
type descs struct {
	buildInfo *prometheus.Desc

	up                *prometheus.Desc
	localSource       *prometheus.Desc
	willing           *prometheus.Desc
	remoteValid       *prometheus.Desc
	remoteInvalid     *prometheus.Desc
	dialect           *prometheus.Desc
	agentDialect      *prometheus.Desc
	multiPeer         *prometheus.Desc
	multiPeerHoldDown *prometheus.Desc
	peers             *prometheus.Desc
	remoteTTL         *prometheus.Desc
	minTTL            *prometheus.Desc
	peerInfo          *prometheus.Desc
	configInfo        *prometheus.Desc

	etsBandwidth *prometheus.Desc
	etsPrioTC    *prometheus.Desc
	etsTSA       *prometheus.Desc
	pfcEnabled   *prometheus.Desc
	appEntries   *prometheus.Desc

	diagnostic  *prometheus.Desc
	diagnostics *prometheus.Desc
	mismatch    *prometheus.Desc
	nicState    *prometheus.Desc
	// readiness and readinessWorst are the snapshot's verdicts (one
	// evaluation, engine.Interface.Checks).
	readiness      *prometheus.Desc
	readinessWorst *prometheus.Desc

	indications *prometheus.Desc

	frames      *prometheus.Desc
	malformed   *prometheus.Desc
	unchanged   *prometheus.Desc
	kernelDrops *prometheus.Desc
	evicted     *prometheus.Desc
	tlvsDropped *prometheus.Desc
	recordsOdd  *prometheus.Desc
}

func newDescs() descs {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("dcbtop_"+name, help, labels, nil)
	}
	const i = "interface"
	return descs{
		buildInfo: d("build_info", "Always 1; the labels say which dcbtop build is running.", "version", "revision", "goversion"),

		up: d("interface_up",
			"1 when the interface's link is up, 0 when down; absent while dcbtop has no link information (replay).", i),
		localSource: d("local_source",
			"Always 1; source says where this host's local DCB parameters come from: dcbnl (the NIC driver), observed (another LLDP agent on this host), agent (dcbtop --agent) or none (unknown).", i, "source"),
		willing: d("willing",
			"The local DCBX Willing state: 1 when this host accepts the peer's parameters, 0 when it keeps its own; absent while the local state is unknown.", i),
		remoteValid: d("remote_valid",
			"1 while the remote (switch) DCBX parameters are valid: a single peer sent them and they have not expired; 0 otherwise.", i),
		remoteInvalid: d("remote_invalid_reason",
			"Always 1 while the remote parameters are invalid after having been received; reason says why (ttl-expired, shutdown, multi-peer).", i, "reason"),
		dialect: d("dcbx_dialect",
			"Always 1; dialect is the DCBX version the remote peer speaks: ieee (802.1Qaz), cee, cin (pre-CEE, not decoded), or none when there are no valid remote parameters.", i, "dialect"),
		agentDialect: d("agent_dcbx_dialect",
			"Always 1 while dcbtop's agent is the local source; dialect is the DCBX version it speaks: ieee (802.1Qaz), or cee while the peer speaks only CEE (it falls back as lldpad does).", i, "dialect"),
		multiPeer: d("multi_peer",
			"1 while a multi-peer hold-down is in force: more than one DCBX peer spoke on the link, so the remote parameters are invalid until every peer's information has expired.", i),
		multiPeerHoldDown: d("multi_peer_hold_down_remaining_seconds",
			"Longest time until the multi-peer hold-down can end (peers that keep sending extend it); absent when there is no hold-down.", i),
		peers: d("peers",
			"Number of LLDP neighbours (chassis ID + port ID) currently live on the interface; more than one DCBX peer means a multi-peer condition.", i),
		remoteTTL: d("remote_peer_ttl_remaining_seconds",
			"Time until the information of the peer the remote parameters come from expires unless it sends another LLDPDU; absent without valid remote parameters.", i),
		minTTL: d("peers_ttl_remaining_min_seconds",
			"Time until the first LLDP neighbour's information expires unless it sends another LLDPDU; absent without neighbours.", i),
		peerInfo: d("peer_info",
			"Always 1 per live LLDP neighbour of the interface (at most 8; dcbtop_peers counts them all): the switch and port it is cabled to, as the neighbour's LLDPDU names them (chassis ID and port ID as dcbtop shows them, e.g. \"mac 02:00:00:00:00:01\" and \"ifname swp1\"; the port description and system name, \"\" when not sent). Join a host port to its switch port: * on (instance, interface) group_left (system_name, port_id) dcbtop_peer_info.",
			i, "chassis_id", "port_id", "port_description", "system_name"),
		configInfo: d("config_info",
			"Always 1 per side of the interface's DCB configuration (local when known, remote while valid, operational when known): config is a hash of the side's canonical configuration (ETS, ETS recommendation, PFC, APP; local: Willing; operational: the RoCE path's settings), the same on hosts configured alike; pfc and roce_priority say two of its values in words. Count hosts per config to find the ones that differ (DCBConfigDrift).",
			i, "side", "config", "pfc", "roce_priority"),

		etsBandwidth: d("ets_tc_bandwidth_percent",
			"ETS bandwidth share of each traffic class in percent (DCBX carries percent), for the local, remote (the peer's ETS Configuration) and operational (in force) parameters; absent when that side has no ETS.", i, "side", "tc"),
		etsPrioTC: d("ets_priority_tc",
			"Traffic class each 802.1p priority is mapped to by ETS (CEE peers: the priority group, 15 = strict); absent when that side has no ETS.", i, "side", "priority"),
		etsTSA: d("ets_tc_tsa_info",
			"Always 1; tsa is the transmission selection algorithm of each traffic class (strict, cbs, ets, vendor, reserved); strict and cbs classes ignore their bandwidth share.", i, "side", "tc", "tsa"),
		pfcEnabled: d("pfc_enabled",
			"1 when PFC (lossless) is enabled on the priority, 0 when not, per side; absent when that side has no PFC. RoCE needs the same priorities on both sides.", i, "side", "priority"),
		appEntries: d("app_entries",
			"Number of APP (application priority) entries per side, e.g. UDP 4791 for RoCEv2; absent when that side sends no APP table.", i, "side"),

		diagnostic: d("diagnostic",
			"1 while a diagnostic is active on the interface; code names the problem (see dcbtop's docs/dcbx.md, Diagnostics) and severity is info, warning or error.", i, "code", "severity"),
		diagnostics: d("diagnostics",
			"Number of active diagnostics on the interface by severity; alert on error > 0.", i, "severity"),
		readiness: d("readiness_verdict",
			"Verdict of one check of lossless (RoCE) readiness on the interface now, as a Nagios code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (nothing read enough to judge); the same evaluation as the screen's Diag pane and dcbtop check.", i, "check"),
		readinessWorst: d("readiness_interface_verdict",
			"Worst verdict of the interface's checks of lossless readiness now, as a Nagios code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (CRITICAL over WARNING over UNKNOWN over OK).", i),
		mismatch: d("dcbx_feature_mismatch",
			"1 when the parameters in force here differ from the peer's for the feature (pfc: pfc-mismatch or neither-willing-mismatch, ets: ets-mismatch), 0 when they agree; absent when local parameters are unknown or remote parameters invalid.", i, "feature"),

		nicState: d("nic_feature_state",
			"Always 1 per operational feature (ets, pfc, app) while dcbtop's agent is the local source; state says whether the NIC holds what the agent negotiated: in-nic (read back equal), differs (read back other values: the nic-differs diagnostic says which), writing, or not-programmable (no DCB in the driver, firmware DCBX, no CAP_NET_ADMIN, a CEE peer).", i, "feature", "state"),
		indications: d("indications_total",
			"NDIS-style QoS parameter change indications issued since dcbtop started, by status and reason; a rising rate of remote ttl-expired or multi-peer indications means an unstable DCBX peer.", i, "status", "reason"),

		frames: d("frames_total",
			"LLDP frames on the interface: in = received from peers, out = this host's own outgoing LLDPDUs seen by the capture (any local agent), sent = transmitted by dcbtop's own agent.", i, "direction"),
		malformed: d("lldpdus_malformed_total",
			"LLDPDUs discarded because they could not be decoded.", i),
		unchanged: d("lldpdus_unchanged_total",
			"Received LLDPDUs identical to the peer's previous one (they only refresh its TTL).", i),
		kernelDrops: d("kernel_drops_total",
			"Frames the kernel dropped before dcbtop could read them (the packet socket's buffer was full); LLDPDUs may have been missed.", i),
		evicted: d("neighbors_evicted_total",
			"LLDP neighbours evicted because the per-interface neighbour table was full; something may be flooding LLDP.", i),
		tlvsDropped: d("lldp_tlvs_discarded_total",
			"Optional TLVs discarded for errors while the rest of their LLDPDU was used (802.1AB statsTLVsDiscardedTotal).", i),
		recordsOdd: d("capture_records_odd_total",
			"Capture-file records read despite an inconsistency, such as a capture length over the packet length.", i),
	}
}

// An Option configures a Collector.
type Option func(*Collector)

// WithBuildInfo sets the version and revision that dcbtop_build_info
// reports ("dev" and "unknown" by default).
func WithBuildInfo(version, revision string) Option {
	return func(c *Collector) { c.version, c.revision = version, revision }
}

// New returns a Collector that calls snap at every scrape. snap must be
// safe to call from the HTTP server's goroutines, concurrently with the
// engine (for example, return the latest snapshot published by the
// engine's goroutine). The caller registers the Collector on its own
// registry.
func New(snap func() engine.Snapshot, opts ...Option) *Collector {
	c := &Collector{snap: snap, version: "dev", revision: "unknown", codes: diagnosticCodes(),
		d: newDescs(), l: newLosslessDescs(), s: newSourceDescs(), indications: map[indicationKey]uint64{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Observe counts indications for dcbtop_indications_total. Pass it every
// slice engine.Apply returns, before the next Apply (the engine reuses the
// slice; Observe keeps nothing of it). Counting here rather than from the
// snapshot's bounded log keeps the counter monotonic.
func (c *Collector) Observe(ins []engine.Indication) {
	if len(ins) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range ins {
		if in.Status == engine.StatusNeighbor {
			continue // not an NDIS indication: dcbtop_peers says the neighbours
		}
		c.indications[indicationKey{in.Interface, statusLabel(in.Status), boundedLabel(reasons[:], in.Reason)}]++
	}
}

// Rename carries the indication counts of the interface old over to its
// new name (ip link set name: the same port, engine.LinkChanged.Was), so
// that no series stays under a name that no longer exists and the
// counts go on. Counts the new name already had are added.
func (c *Collector) Rename(old, new string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.indications {
		if k.iface == old {
			delete(c.indications, k)
			k.iface = new
			c.indications[k] += v
		}
	}
}

// Describe sends the description of every metric the Collector exports.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	d := &c.d
	for _, x := range []*prometheus.Desc{
		d.buildInfo, d.up, d.localSource, d.willing, d.remoteValid, d.remoteInvalid, d.dialect, d.agentDialect,
		d.multiPeer, d.multiPeerHoldDown, d.peers, d.remoteTTL, d.minTTL, d.peerInfo, d.configInfo,
		d.etsBandwidth, d.etsPrioTC, d.etsTSA, d.pfcEnabled, d.appEntries,
		d.diagnostic, d.diagnostics, d.mismatch, d.nicState, d.readiness, d.readinessWorst, d.indications,
		d.frames, d.malformed, d.unchanged, d.kernelDrops, d.evicted, d.tlvsDropped, d.recordsOdd,
	} {
		ch <- x
	}
	c.l.describe(ch)
	ch <- c.s.success
	ch <- c.s.duration
}

// Collect takes one snapshot and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.snap()
	gauge(ch, c.d.buildInfo, 1, c.version, c.revision, runtime.Version())
	for i := range s.Interfaces {
		c.collectInterface(ch, &s.Interfaces[i])
	}
	c.collectIndications(ch, s.Interfaces)
	c.collectSources(ch)
}

// send sends one sample. Every label value goes through labelValue here,
// so that no string from sysfs, netlink or the wire reaches the exposition
// with a control or invisible character, nor fails as invalid UTF-8.
// Should a sample still fail to build, it becomes an invalid metric, which
// fails that sample only, instead of a panic in the registry's collecting
// goroutine.
func send(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labelValues(labels)...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	ch <- m
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	send(ch, d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v uint64, labels ...string) {
	send(ch, d, prometheus.CounterValue, float64(v), labels...)
}

func (c *Collector) collectInterface(ch chan<- prometheus.Metric, in *engine.Interface) {
	d, name := &c.d, in.Name
	switch in.OperState {
	case "up":
		gauge(ch, d.up, 1, name)
	case "down", "removed":
		gauge(ch, d.up, 0, name)
	}
	gauge(ch, d.localSource, 1, name, boundedLabel(localSources[:], in.LocalSource))
	if in.Willing != nil {
		gauge(ch, d.willing, boolValue(*in.Willing), name)
	}
	gauge(ch, d.remoteValid, boolValue(in.RemoteValid), name)
	if r := in.RemoteInvalidReason; r != nil {
		gauge(ch, d.remoteInvalid, 1, name, boundedLabel(reasons[:], *r))
	}
	gauge(ch, d.dialect, 1, name, dialectLabel(in.Dialect))
	if a := in.AgentDCBX; a != nil {
		gauge(ch, d.agentDialect, 1, name, dialectLabel(a.Dialect))
	}
	gauge(ch, d.multiPeer, boolValue(in.MultiPeer != nil), name)
	if mp := in.MultiPeer; mp != nil {
		gauge(ch, d.multiPeerHoldDown, float64(mp.HoldDownMs)/1000, name)
	}
	c.collectPeers(ch, in)
	c.collectParams(ch, name, sideLocal, in.Local)
	if in.RemoteValid {
		c.collectParams(ch, name, sideRemote, in.Remote)
	}
	c.collectParams(ch, name, sideOperational, in.Operational)
	for _, g := range ConfigDigests(in) {
		gauge(ch, d.configInfo, 1, name, string(g.Side), g.Hash, g.PFC, g.RoCEPriority)
	}
	for _, s := range in.NIC.States() {
		gauge(ch, d.nicState, 1, name, strings.ToLower(s.Feature.String()), boundedLabel(nicStates[:], s.State))
	}
	c.collectDiagnostics(ch, in)
	c.collectReadiness(ch, in)
	c.collectCounters(ch, name, in.Capture)
	c.collectLossless(ch, name, in.Counters)
}

// collectReadiness exports the interface's verdicts as the snapshot has
// them (Interface.Checks): none where nothing judged.
func (c *Collector) collectReadiness(ch chan<- prometheus.Metric, in *engine.Interface) {
	if in.Checks == nil {
		return
	}
	order, seen := worstByCheck(in.Checks)
	var worst verdict.Verdict
	for _, name := range order {
		gauge(ch, c.d.readiness, float64(seen[name]), in.Name, name)
		worst = worst.Worst(seen[name])
	}
	gauge(ch, c.d.readinessWorst, float64(worst), in.Name)
}

func (c *Collector) collectPeers(ch chan<- prometheus.Metric, in *engine.Interface) {
	d := &c.d
	gauge(ch, d.peers, float64(len(in.Peers)), in.Name)
	for _, p := range in.Peers {
		if in.RemotePeer != nil && p.MSAP() == *in.RemotePeer {
			gauge(ch, d.remoteTTL, float64(p.ExpiresInMs)/1000, in.Name)
			break
		}
	}
	if len(in.Peers) > 0 {
		m := in.Peers[0].ExpiresInMs
		for _, p := range in.Peers[1:] {
			m = min(m, p.ExpiresInMs)
		}
		gauge(ch, d.minTTL, float64(m)/1000, in.Name)
	}
	for _, p := range in.Peers[:min(len(in.Peers), maxPeerInfo)] {
		gauge(ch, d.peerInfo, 1, in.Name, p.ChassisID, p.PortID, deref(p.PortDescription), deref(p.SystemName))
	}
}

// maxPeerInfo bounds dcbtop_peer_info's series per interface: a link has
// one LLDP neighbour, two or three in a multi-peer condition; a flood of
// made-up neighbours (up to the engine's table of 64) must not make as
// many series.
const maxPeerInfo = 8

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// collectParams exports one side's ETS, PFC and APP tables.
func (c *Collector) collectParams(ch chan<- prometheus.Metric, name, side string, p *dcb.Params) {
	if p == nil {
		return
	}
	d := &c.d
	if e := p.ETS; e != nil {
		for tc := range 8 {
			gauge(ch, d.etsBandwidth, float64(e.TCBandwidth[tc]), name, side, digits[tc])
			gauge(ch, d.etsTSA, 1, name, side, digits[tc], tsaLabel(e.TSA[tc]))
		}
		for prio := range 8 {
			gauge(ch, d.etsPrioTC, float64(e.PrioTC[prio]), name, side, digits[prio])
		}
	}
	if f := p.PFC; f != nil {
		for prio := range uint8(8) {
			gauge(ch, d.pfcEnabled, boolValue(f.Enabled.Has(prio)), name, side, digits[prio])
		}
	}
	if p.App != nil {
		gauge(ch, d.appEntries, float64(len(p.App)), name, side)
	}
}

func (c *Collector) collectDiagnostics(ch chan<- prometheus.Metric, in *engine.Interface) {
	d := &c.d
	type key struct{ code, severity string }
	seen := map[key]bool{}
	var bySeverity [len(severities)]int
	var pfc, ets bool
	for _, g := range in.Diagnostics {
		sev := g.Severity
		if int(sev) >= len(severities) {
			sev = diag.SeverityInfo // as Severity.String names it
		}
		bySeverity[sev]++
		switch g.Code {
		case diag.CodePFCMismatch, diag.CodeNeitherWilling:
			pfc = true
		case diag.CodeETSMismatch:
			ets = true
		}
		k := key{boundedLabel(c.codes, g.Code), sev.String()}
		if !seen[k] {
			seen[k] = true
			gauge(ch, d.diagnostic, 1, in.Name, k.code, k.severity)
		}
	}
	for i, s := range severities {
		gauge(ch, d.diagnostics, float64(bySeverity[i]), in.Name, s.String())
	}
	// The pairing rules compare only when both sides are known. There is
	// no APP mismatch rule: APP tables merge when willing and may differ
	// by design, so no "app" series is exported.
	if in.Local != nil && in.RemoteValid && in.Remote != nil {
		gauge(ch, d.mismatch, boolValue(ets), in.Name, "ets")
		gauge(ch, d.mismatch, boolValue(pfc), in.Name, "pfc")
	}
}

// collectCounters exports the interface's frame counters (the lossless
// counters are collectLossless's).
func (c *Collector) collectCounters(ch chan<- prometheus.Metric, name string, k engine.CaptureCounters) {
	d := &c.d
	counter(ch, d.frames, k.FramesIn, name, "in")
	counter(ch, d.frames, k.FramesOut, name, "out")
	counter(ch, d.frames, k.FramesSent, name, "sent")
	counter(ch, d.malformed, k.Malformed, name)
	counter(ch, d.unchanged, k.Unchanged, name)
	counter(ch, d.kernelDrops, k.KernelDrops, name)
	counter(ch, d.evicted, k.NeighborsEvicted, name)
	counter(ch, d.tlvsDropped, k.TLVsDiscarded, name)
	counter(ch, d.recordsOdd, k.RecordsOdd, name)
}

// collectIndications exports the observed indication counts, with the
// expected status and reason pairs of every interface starting at zero.
func (c *Collector) collectIndications(ch chan<- prometheus.Metric, ifaces []engine.Interface) {
	c.mu.Lock()
	counts := make(map[indicationKey]uint64, len(c.indications)+len(ifaces)*len(expectedIndications))
	for k, v := range c.indications {
		counts[k] = v
	}
	c.mu.Unlock()
	for _, in := range ifaces {
		for _, e := range expectedIndications {
			k := indicationKey{in.Name, e.status.String(), string(e.reason)}
			if _, ok := counts[k]; !ok {
				counts[k] = 0
			}
		}
	}
	for k, v := range counts {
		counter(ch, c.d.indications, v, k.iface, k.status, k.reason)
	}
}

var _ prometheus.Collector = (*Collector)(nil)
