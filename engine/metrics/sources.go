// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A CounterSource is how one source of the lossless counters fared
// (capture/counters' Sampler.Status): dcbtop_counter_source_success and
// dcbtop_counter_source_duration_seconds, as node_exporter exports its
// collectors' (node_scrape_collector_success,
// node_scrape_collector_duration_seconds).
type CounterSource struct {
	// Name is the source's name, one of CounterSourceNames (any other
	// is exported as "other").
	Name string
	// Success says the source read the last sample of every interface
	// without error.
	Success bool
	// Duration is the time the source took in the last sample of each
	// interface, summed across interfaces.
	Duration time.Duration
}

// CounterSourceNames are the names of the lossless counters' sources
// (lossless.SourceNames, capture/counters' registry), the source label's
// values on dcbtop_counter_source_success and _duration_seconds (plus
// "other").
var CounterSourceNames = func() []string {
	out := make([]string, len(lossless.SourceNames))
	for i, n := range lossless.SourceNames {
		out[i] = string(n)
	}
	return out
}()

// WithCounterSources exports how the lossless counters' sources fared,
// as sources returns it at each scrape (no series while it returns none:
// a replay, counters not sampled, no sample yet).
func WithCounterSources(sources func() []CounterSource) Option {
	return func(c *Collector) { c.sources = sources }
}

// sourceDescs are the metrics of the counter sources.
type sourceDescs struct {
	success, duration *prometheus.Desc
}

func newSourceDescs() sourceDescs {
	return sourceDescs{
		success: prometheus.NewDesc("dcbtop_counter_source_success",
			"1 when the lossless counter source read the last counters sample of every interface without error, 0 when it failed on one (the interface's counters-error diagnostic names the failing sources); as node_exporter's node_scrape_collector_success. source: "+strings.Join(CounterSourceNames[:len(CounterSourceNames)-1], ", ")+" or "+CounterSourceNames[len(CounterSourceNames)-1]+" (see dcbtop's docs/counters.md).",
			[]string{"source"}, nil),
		duration: prometheus.NewDesc("dcbtop_counter_source_duration_seconds",
			"Time the lossless counter source took in the last counters sample of each interface, summed across interfaces; as node_exporter's node_scrape_collector_duration_seconds.",
			[]string{"source"}, nil),
	}
}

// collectSources sends the counter sources' metrics.
func (c *Collector) collectSources(ch chan<- prometheus.Metric) {
	if c.sources == nil {
		return
	}
	for _, s := range c.sources() {
		name := s.Name
		if !slices.Contains(CounterSourceNames, name) {
			name = other
		}
		gauge(ch, c.s.success, boolValue(s.Success), name)
		gauge(ch, c.s.duration, s.Duration.Seconds(), name)
	}
}
