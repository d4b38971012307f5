// SPDX-License-Identifier: Apache-2.0

// Package metrics exports dcbtop's view of DCBX as Prometheus metrics.
//
// A Collector reads an engine.Snapshot at scrape time and turns it into
// constant metrics; it keeps no metric state of its own except the
// indication counts (see below). Register it on a registry of your own and
// serve that registry over HTTP, which is I/O and lives with the rest of it
// (capture/metricserver serves --metrics so):
//
//	reg := prometheus.NewRegistry()
//	col := metrics.New(latestSnapshot, metrics.WithBuildInfo(version, revision))
//	reg.MustRegister(col)
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
//		Registry: reg, ErrorHandling: promhttp.ContinueOnError}))
//
// ContinueOnError leaves out a sample that fails to collect (an invalid
// metric) instead of failing the scrape, and counts it in
// promhttp_metric_handler_errors_total.
//
// The package declares no package-level metrics and never touches the
// default registry.
//
// # Labels
//
// Every label but interface takes its values from a small fixed set, so the
// number of series is bounded by the number of interfaces:
//
//	interface  the interface name (the only open-ended label)
//	side       local | remote | operational
//	feature    ets | pfc | app
//	tc         0-7
//	priority   0-7
//	tsa        strict | cbs | ets | vendor | reserved
//	code       a diagnostic code of the engine or the codec, or "other"
//	severity   info | warning | error
//	status     QOS_REMOTE_PARAMETERS_CHANGE | QOS_OPERATIONAL_PARAMETERS_CHANGE |
//	           QOS_LOCAL_PARAMETERS_CHANGE, or "other"
//	reason     first-receipt | changed | ttl-expired | shutdown | multi-peer |
//	           local-change, or "other"
//	source     dcbnl | observed | agent | none, or "other" (where this host's
//	           local parameters come from); on dcbtop_counter_source_*,
//	           sysfs | dcbnl | ethtool | rdma | rdmastat | linkpause, or "other"
//	dialect    ieee | cee | cin | none
//	direction  in | out | sent
//	config     16 hexadecimal digits (dcbtop_config_info: a hash, one value per
//	           interface and side at a time)
//	pfc, roce_priority
//	           a priority list ("3,4", "none") and a priority, or ""
//
// dcbtop_peer_info's labels (chassis_id, port_id, port_description,
// system_name) come from the neighbour's LLDPDU: open-ended, but at most
// 8 series an interface (a link has one neighbour, a few in a
// multi-peer condition; a flood of made-up neighbours does not make more
// series). No label names a queue pair, a GID or an address.
//
// # Fleets
//
// dcbtop_peer_info joins a host port to the switch port it is cabled to:
//
//	dcbtop_pfc_enabled{side="operational"}
//	  * on (instance, interface) group_left (system_name, port_id) dcbtop_peer_info
//
// dcbtop_config_info's config label is metrics.ConfigDigest's hash of a
// side's canonical configuration (metrics.ConfigText), the same on every
// host configured alike, so hosts can be counted per configuration
// (assets/prometheus: dcbtop:config_hosts:count and DCBConfigDrift).
// NewCheckRegistry exports a dcbtop check report for node_exporter's
// textfile collector (dcbtop check --textfile).
//
// The open-ended values (interface and RDMA device names, from sysfs,
// netlink or a capture) are written with every character a terminal would
// act on or hide escaped as text: C0 controls, DEL and bytes that are not
// UTF-8 as \xNN (ESC is \x1b), C1 controls, bidirectional, zero-width
// and separator characters as \uNNNN (U+202E is \u202e), the set the
// screen and the JSON output escape too (engine.NeedsEscape). Normal names
// are exported unchanged. Every label value goes through that escaping, so
// a curl of /metrics to a terminal shows names and never runs them.
//
// Absent data is an absent series, never a fake zero: dcbtop_willing is
// missing while the local Willing state is unknown, the ETS and PFC series
// of a side are missing while that side does not advertise the feature,
// and dcbtop_dcbx_feature_mismatch is missing while there is nothing to
// compare (local parameters unknown or remote parameters invalid).
//
// # Indication counts
//
// A snapshot carries only the bounded recent indication log, so counting
// it at scrape time would stop counting once the log wraps. The Collector
// therefore counts indications itself: the wiring passes every slice
// engine.Apply returns to Collector.Observe. dcbtop_indications_total is
// then monotonic for the life of the process, as a Prometheus counter must
// be. The counts of the status and reason pairs the engine can produce
// start at zero for every interface in the snapshot, so the first
// indication shows up in rate() and increase().
//
// # Pause and RDMA counters
//
// The lossless counters (lossless.go) are read from the snapshot like the
// frame counters: per-priority PFC pauses, pause time and traffic
// (dcbtop_pfc_pause_frames_total, dcbtop_priority_bytes_total, labels
// interface, priority, direction), the NDK and congestion counters per
// RDMA port (dcbtop_rdma_*), the CNP's marking (dcbtop_ecn_cnp_*), and
// the RoCE path per hop (dcbtop_roce_path_hop_status). Labels are
// bounded: interfaces by the engine's limit, priorities 0-7, the ten
// hops.
//
// # Counter sources
//
// WithCounterSources exports how the sources of the lossless counters
// (capture/counters) fared, as node_exporter exports its collectors'
// (node_scrape_collector_success, node_scrape_collector_duration_seconds),
// read at scrape time from the function it is given, not from the
// snapshot; no series without it or while it returns none:
//
//	dcbtop_counter_source_success{source}           1 when the source read the last sample
//	                                                of every interface without error, else 0
//	dcbtop_counter_source_duration_seconds{source}  the time it took in the last sample of
//	                                                each interface, summed across interfaces
//
// Their source label is one of CounterSourceNames (sysfs, dcbnl,
// ethtool, rdma, rdmastat, linkpause), or "other"; they have no
// interface label.
package metrics
