// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"strconv"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/prometheus/client_golang/prometheus"
)

// losslessDescs are the metrics of the lossless counters: the NDK set,
// RoCE congestion and per-priority PFC pauses. A counter without a source
// has no series (never a 0).
type losslessDescs struct {
	ndk        [lossless.NDKBits]*prometheus.Desc
	congestion [lossless.NumCongestion]*prometheus.Desc
	pauses     *prometheus.Desc
	pauseTime  *prometheus.Desc
	// prioBytes is each priority's traffic; cnpPrio and cnpDSCP the
	// marking of the CNPs this host sends.
	prioBytes, cnpPrio, cnpDSCP *prometheus.Desc
	storms                      *prometheus.Desc
	// The RoCE path: link-wide PAUSE, and each RoCE port's routable GID
	// and default ToS.
	linkPause      *prometheus.Desc
	linkPauseFrame *prometheus.Desc
	routableGID    *prometheus.Desc
	defaultDSCP    *prometheus.Desc
	pathHop        *prometheus.Desc
}

// ndkMetric names an NDK counter's metric; direction is "in"/"out" for the
// two pairs that share a metric, "" otherwise.
type ndkMetric struct {
	name, help, direction string
}

var ndkMetrics = map[lossless.NDKCounter]ndkMetric{
	lossless.NDKConnect: {"rdma_connections_established_total",
		"NDK Connect/Accept: RDMA connections established, direction out = by this host (Connect), in = by the peer (Accept). Approximated from connection-manager RTU messages: raw verbs QPs are not counted.", "out"},
	lossless.NDKAccept:         {"rdma_connections_established_total", "", "in"},
	lossless.NDKConnectFailure: {"rdma_connect_failures_total", "NDK ConnectFailure: RDMA connect attempts that failed, both ways (connection-manager REJ messages).", ""},
	lossless.NDKConnectionError: {"rdma_connection_errors_total",
		"NDK ConnectionError: established RDMA connections that ended in error.", ""},
	lossless.NDKActiveConnection: {"rdma_active_connections", "NDK ActiveConnection: RDMA connections now active.", ""},
	lossless.NDKCQError:          {"rdma_cq_errors_total", "NDK CQError: RDMA completion queues that went into error.", ""},
	lossless.NDKRDMAInOctets: {"rdma_bytes_total",
		"NDK RDMAInOctets/RDMAOutOctets: bytes of RDMA traffic by direction (in = received), layer 2 included where the source counts it.", "in"},
	lossless.NDKRDMAOutOctets: {"rdma_bytes_total", "", "out"},
	lossless.NDKRDMAInFrames: {"rdma_frames_total",
		"NDK RDMAInFrames/RDMAOutFrames: layer-2 frames of RDMA traffic by direction (in = received).", "in"},
	lossless.NDKRDMAOutFrames: {"rdma_frames_total", "", "out"},
}

var congestionHelp = [lossless.NumCongestion]struct{ name, help string }{
	lossless.CNPSent:       {"rdma_cnp_sent_total", "Congestion notification packets (CNPs) this host sent as DCQCN notification point, for ECN-marked RoCE packets it received."},
	lossless.CNPHandled:    {"rdma_cnp_handled_total", "CNPs this host received and reacted to (DCQCN reaction point slowed down)."},
	lossless.CNPIgnored:    {"rdma_cnp_ignored_total", "CNPs this host received and ignored: its DCQCN reaction point is disabled on that priority."},
	lossless.ECNMarked:     {"rdma_ecn_marked_packets_total", "RoCE packets received with an ECN congestion mark."},
	lossless.OutOfSequence: {"rdma_out_of_sequence_packets_total", "RoCE packets received out of sequence: packets were lost on the way (a lossy fabric)."},
	lossless.OutOfBuffer:   {"rdma_out_of_buffer_drops_total", "RoCE packets dropped because no receive WQE was posted (the application was too slow)."},
}

func newLosslessDescs() losslessDescs {
	port := []string{"interface", "device", "port"}
	var d losslessDescs
	shared := map[string]*prometheus.Desc{}
	for _, c := range lossless.NDKCounters {
		m := ndkMetrics[c]
		if desc, ok := shared[m.name]; ok {
			d.ndk[c] = desc
			continue
		}
		labels := port
		if m.direction != "" {
			labels = append(append([]string(nil), port...), "direction")
		}
		d.ndk[c] = prometheus.NewDesc("dcbtop_"+m.name, m.help, labels, nil)
		shared[m.name] = d.ndk[c]
	}
	for c := range lossless.NumCongestion {
		h := congestionHelp[c]
		d.congestion[c] = prometheus.NewDesc("dcbtop_"+h.name, h.help, port, nil)
	}
	prio := []string{"interface", "priority", "direction"}
	d.pauses = prometheus.NewDesc("dcbtop_pfc_pause_frames_total",
		"PFC pause frames per priority: direction rx = received (the peer paused this host), tx = sent (this host paused the peer). Absent where the driver exposes no per-priority pause counter.", prio, nil)
	d.pauseTime = prometheus.NewDesc("dcbtop_pfc_pause_duration_seconds_total",
		"Time spent paused per priority and direction, where the driver counts it (mlx5 *_pause_duration).", prio, nil)
	d.prioBytes = prometheus.NewDesc("dcbtop_priority_bytes_total",
		"Traffic per priority and direction (rx = received), where the driver counts it (mlx5 rx_prio{p}_bytes, bnxt_en rx_bytes_pri{p}): shows which priority RoCE really uses.", prio, nil)
	d.cnpPrio = prometheus.NewDesc("dcbtop_ecn_cnp_priority",
		"The 802.1p priority of the congestion notifications (CNPs) this host sends; absent when unknown or when a CNP takes the priority of the packet it answers.", []string{"interface"}, nil)
	d.cnpDSCP = prometheus.NewDesc("dcbtop_ecn_cnp_dscp",
		"The DSCP of the congestion notifications (CNPs) this host sends; absent when unknown.", []string{"interface"}, nil)
	d.storms = prometheus.NewDesc("dcbtop_pfc_pause_storm_events_total",
		"The NIC's pause-storm guard firing, by level (warning, error): a receiver paused this port continuously.", []string{"interface", "level"}, nil)
	d.linkPause = prometheus.NewDesc("dcbtop_link_pause_enabled",
		"1 when 802.3x link-wide PAUSE is on in the direction (rx: honours received PAUSE frames, tx: sends them), 0 when off; absent when the driver does not report it. It should be 0 wherever PFC is on.", []string{"interface", "direction"}, nil)
	d.linkPauseFrame = prometheus.NewDesc("dcbtop_link_pause_frames_total",
		"802.3x link-wide PAUSE frames by direction (rx = received, tx = sent), where the driver counts them.", []string{"interface", "direction"}, nil)
	d.routableGID = prometheus.NewDesc("dcbtop_roce_routable_gid",
		"1 when the RoCE port has a routable RoCE v2 GID on the interface, 0 when it has none; absent when its GID table is unknown.", port, nil)
	d.pathHop = prometheus.NewDesc("dcbtop_roce_path_hop_status",
		"Each hop of a RoCE port's path through this host (hop: gid, tos, trust, priority, tc, pfc, buffer, ets, pauses, ecn): 0 ok, 1 unknown, 2 warning, 3 error.",
		append(append([]string(nil), port...), "hop"), nil)
	d.defaultDSCP = prometheus.NewDesc("dcbtop_roce_default_dscp",
		"The DSCP of the ToS rdma_cm stamps on connections that set none (configfs default_roce_tos); absent when unknown.", port, nil)
	return d
}

func (d *losslessDescs) describe(ch chan<- *prometheus.Desc) {
	seen := map[*prometheus.Desc]bool{}
	for _, c := range lossless.NDKCounters {
		if !seen[d.ndk[c]] {
			seen[d.ndk[c]] = true
			ch <- d.ndk[c]
		}
	}
	for _, x := range d.congestion {
		ch <- x
	}
	ch <- d.pauses
	ch <- d.pauseTime
	ch <- d.prioBytes
	ch <- d.cnpPrio
	ch <- d.cnpDSCP
	ch <- d.storms
	ch <- d.linkPause
	ch <- d.linkPauseFrame
	ch <- d.routableGID
	ch <- d.defaultDSCP
	ch <- d.pathHop
}

// collectLossless exports an interface's lossless counters.
func (c *Collector) collectLossless(ch chan<- prometheus.Metric, name string, k *lossless.Counters) {
	if k == nil {
		return
	}
	d := &c.l
	for _, r := range k.RDMA {
		port := strconv.Itoa(r.Port)
		for _, n := range lossless.NDKCounters {
			v := r.NDK.Get(n)
			if v == nil {
				continue
			}
			labels := []string{name, r.Device, port}
			if dir := ndkMetrics[n].direction; dir != "" {
				labels = append(labels, dir)
			}
			if n.Gauge() {
				gauge(ch, d.ndk[n], float64(*v), labels...)
			} else {
				counter(ch, d.ndk[n], *v, labels...)
			}
		}
		for n := range lossless.NumCongestion {
			if v := r.Congestion.Get(n); v != nil {
				counter(ch, d.congestion[n], *v, name, r.Device, port)
			}
		}
	}
	for _, p := range k.PFC.Priorities {
		prio := digits[p.Priority&7]
		for _, x := range []struct {
			desc *prometheus.Desc
			v    *uint64
			dir  string
			us   bool
		}{{d.pauses, p.RxPause, "rx", false}, {d.pauses, p.TxPause, "tx", false},
			{d.pauseTime, p.RxPauseDurationUs, "rx", true}, {d.pauseTime, p.TxPauseDurationUs, "tx", true},
			{d.prioBytes, p.RxBytes, "rx", false}, {d.prioBytes, p.TxBytes, "tx", false}} {
			switch {
			case x.v == nil:
			case x.us:
				send(ch, x.desc, prometheus.CounterValue, float64(*x.v)/1e6, name, prio, x.dir)
			default:
				counter(ch, x.desc, *x.v, name, prio, x.dir)
			}
		}
	}
	if e := k.ECN; e != nil {
		if v := e.CNPDSCP; v != nil {
			gauge(ch, d.cnpDSCP, float64(*v), name)
		}
		if v := e.CNPPriority; v != nil && (e.CNPPriorityFromPacket == nil || !*e.CNPPriorityFromPacket) {
			gauge(ch, d.cnpPrio, float64(*v), name)
		}
	}
	if v := k.PFC.StormWarningEvents; v != nil {
		counter(ch, d.storms, *v, name, "warning")
	}
	if v := k.PFC.StormErrorEvents; v != nil {
		counter(ch, d.storms, *v, name, "error")
	}
	if lp := k.LinkPause; lp != nil {
		for _, x := range []struct {
			on  *bool
			n   *uint64
			dir string
		}{{lp.RX, lp.RxFrames, "rx"}, {lp.TX, lp.TxFrames, "tx"}} {
			if x.on != nil {
				gauge(ch, d.linkPause, boolValue(*x.on), name, x.dir)
			}
			if x.n != nil {
				counter(ch, d.linkPauseFrame, *x.n, name, x.dir)
			}
		}
	}
	for _, r := range k.RoCE {
		if !r.IsRoCE() {
			continue
		}
		port := strconv.Itoa(r.Port)
		switch {
		case r.RoutableV2 != nil:
			gauge(ch, d.routableGID, 1, name, r.Device, port)
		case r.RoutableV2Why != nil:
			gauge(ch, d.routableGID, 0, name, r.Device, port)
		}
		if t := r.DefaultToS; t != nil {
			gauge(ch, d.defaultDSCP, float64(t.DSCP), name, r.Device, port)
		}
	}
	for _, p := range k.RoCEPaths {
		port := strconv.Itoa(p.Port)
		for _, h := range p.Hops {
			gauge(ch, d.pathHop, float64(h.Verdict.Level()), name, p.Device, port, string(h.Hop))
		}
	}
}
