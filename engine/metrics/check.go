// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/prometheus/client_golang/prometheus"
)

// CheckTextfileName is the file dcbtop check --textfile DIR writes in DIR:
// node_exporter's textfile collector reads the *.prom files of its
// directory (--collector.textfile.directory).
const CheckTextfileName = "dcbtop_check.prom"

// A checkCollector exports one check report: the verdicts of a run of
// dcbtop check, for node_exporter's textfile collector or a push.
type checkCollector struct {
	r          check.Report
	start, end time.Time

	verdict, ifaceVerdict, exit, lastRun, duration *prometheus.Desc
}

// NewCheckRegistry returns a registry holding one check report's metrics,
// for prometheus.WriteToTextfile: each check's verdict per interface and
// each interface's worst (labels interface and check, the check label
// bounded by verdict.Names plus "other"), the exit status, when the
// report was taken, and how long the run took. A verdict's value is its
// Nagios code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), as the exit status.
// start and end are when the run started and ended (on the wall clock,
// also for a replay, whose report is as at the capture's last frame).
func NewCheckRegistry(r check.Report, start, end time.Time) *prometheus.Registry {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("dcbtop_check_"+name, help, labels, nil)
	}
	c := &checkCollector{r: r, start: start, end: end,
		verdict: d("verdict",
			"Verdict of one check of lossless (RoCE) readiness on the interface, as a Nagios code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (dcbtop check).", "interface", "check"),
		ifaceVerdict: d("interface_verdict",
			"Worst verdict of the interface's checks, as a Nagios code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.", "interface"),
		exit: d("exit_code",
			"Exit status of the run: the worst verdict over every interface (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)."),
		lastRun: d("last_run_timestamp_seconds",
			"When the run ended, in seconds since the Unix epoch: alert when it gets old (the job stopped running)."),
		duration: d("duration_seconds",
			"How long the run took, waiting for the peers and sampling the counters included."),
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	return reg
}

// Describe sends the descriptions of the report's metrics.
func (c *checkCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.verdict, c.ifaceVerdict, c.exit, c.lastRun, c.duration} {
		ch <- d
	}
}

// Collect sends the report's metrics.
func (c *checkCollector) Collect(ch chan<- prometheus.Metric) {
	for _, in := range c.r.Interfaces {
		gauge(ch, c.ifaceVerdict, float64(in.Verdict), in.Name)
		order, worst := worstByCheck(in.Results)
		for _, name := range order {
			gauge(ch, c.verdict, float64(worst[name]), in.Name, name)
		}
	}
	gauge(ch, c.exit, float64(c.r.Exit))
	gauge(ch, c.lastRun, float64(c.end.UnixNano())/1e9)
	gauge(ch, c.duration, c.end.Sub(c.start).Seconds())
}

// worstByCheck returns each check's label, in the order first reported,
// and its worst verdict: one series per check, should a check ever report
// twice (or two unknown names fall into "other").
func worstByCheck(rs []verdict.Result) (order []string, worst map[string]verdict.Verdict) {
	worst = map[string]verdict.Verdict{}
	for _, x := range rs {
		name := boundedLabel(verdict.Names, x.Check)
		v, seen := worst[name]
		if !seen {
			order = append(order, name)
			v = x.Verdict
		}
		worst[name] = v.Worst(x.Verdict)
	}
	return order, worst
}
