// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// SchemaVersion identifies the JSON contract of `dcbtop check --json`
// (assets/check.schema.json).
const SchemaVersion = "dcbtop.check/v1"

// A Report is `dcbtop check`'s verdict on a snapshot: every checked
// interface's results, and the worst verdict, which is also the exit
// status.
type Report struct {
	Schema  string          `json:"schema"`
	Verdict verdict.Verdict `json:"verdict"`
	Exit    int             `json:"exit_code"`
	TakenAt time.Time       `json:"taken_at"`
	// Source is "live" or "replay"; File the capture file replayed.
	Source string  `json:"source"`
	File   *string `json:"file"`
	// Ended says why the check stopped gathering what it judged.
	Ended      End               `json:"ended"`
	Interfaces []InterfaceReport `json:"interfaces"`
}

// An End says why a check stopped gathering: a verdict reached at
// --wait judges what was missing as not seen, one reached when ready
// judges everything it waits for (docs/check.md).
type End string

// The ends of a check.
const (
	// EndReady: live, every interface's peer was settled and its
	// counters sampled (or had none) before --wait.
	EndReady End = "ready"
	// EndWait: live, --wait passed first.
	EndWait End = "wait"
	// EndFile: a replay, which judges what the capture ends with.
	EndFile End = "end-of-file"
	// EndAgent: live, from the view of the dcbtops running on the
	// interfaces, agents or captures until stopped (asked over their
	// control or view sockets, as dcbtop show does), each with its peer
	// settled and its counters sampled: no capture of its own, no wait.
	EndAgent End = "agent"
)

// A InterfaceReport is one interface's results and their worst verdict.
type InterfaceReport struct {
	Name    string           `json:"name"`
	Verdict verdict.Verdict  `json:"verdict"`
	Results []verdict.Result `json:"results"`
}

// judged returns the interface's results as the snapshot's one
// evaluation has them (Interface.Checks; Run where the snapshot carries
// none, a name the snapshot lacks), with what only dcbtop check adds:
// the words of a verdict reached at --wait, and the policy.
func judged(in *engine.Interface, o Options) []verdict.Result {
	res := slices.Clone(in.Checks)
	if res == nil {
		res = Run(in, Options{Replay: o.Replay})
	}
	if o.Ended == EndWait {
		for i := range res {
			if res[i].Check == verdict.CheckPeer && in.RemoteState() == engine.RemoteNoPeer && res[i].Summary == noPeerSummary {
				res[i].Summary += " within --wait"
			}
		}
	}
	if o.Policy != nil {
		c := checker{in: in, o: o}
		c.policy()
		res = append(res, c.out...)
	}
	return res
}

// NewReport checks the interfaces of snap named in names (all of
// them when names is empty, sorted as in the snapshot). A name the
// snapshot lacks is CRITICAL for verdict.CheckPeer: nothing was seen on it.
func NewReport(snap engine.Snapshot, names []string, o Options) Report {
	r := Report{Schema: SchemaVersion, TakenAt: snap.TakenAt, Source: "live", Ended: o.Ended, Interfaces: []InterfaceReport{}}
	if o.Replay {
		r.Source, r.Ended = "replay", EndFile
	}
	pick := snap.Interfaces
	if len(names) > 0 {
		pick = nil
		for _, n := range names {
			i := slices.IndexFunc(snap.Interfaces, func(in engine.Interface) bool { return in.Name == n })
			if i < 0 {
				pick = append(pick, engine.Interface{Name: n})
				continue
			}
			pick = append(pick, snap.Interfaces[i])
		}
	}
	for i := range pick {
		res := judged(&pick[i], o)
		ci := InterfaceReport{Name: pick[i].Name, Results: res}
		for _, x := range res {
			ci.Verdict = ci.Verdict.Worst(x.Verdict)
		}
		r.Verdict = r.Verdict.Worst(ci.Verdict)
		r.Interfaces = append(r.Interfaces, ci)
	}
	if len(r.Interfaces) == 0 {
		r.Verdict = verdict.Unknown // nothing to judge
	}
	r.Exit = int(r.Verdict)
	return r
}
