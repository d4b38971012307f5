// SPDX-License-Identifier: Apache-2.0

package rdmastat

import "github.com/dcbtop/dcbtop/engine/lossless"

// SourceName names RDMA netlink as the source of optional counters in a
// snapshot.
const SourceName = "rdma netlink"

// Sample maps the port's optional counters onto the engine's facts
// (lossless.OptionalCounters): the enabled ones with their values, the
// disabled ones by name, and the command that would enable them (which
// dcbtop never runs).
func (p Port) Sample() *lossless.OptionalCounters {
	o := &lossless.OptionalCounters{Source: SourceName, StatusKnown: p.StatusKnown,
		Enabled: []lossless.OptionalCounter{}, Disabled: []string{}}
	if !p.StatusKnown {
		why := p.StatusWhy
		o.Why = &why
	}
	for _, c := range p.Counters {
		if c.Optional && c.Enabled {
			o.Enabled = append(o.Enabled, lossless.OptionalCounter{Name: c.Name, Value: c.Value})
		}
	}
	o.Disabled = append(o.Disabled, p.Disabled()...)
	if cmd := p.EnableCommand(); cmd != "" {
		o.EnableCommand = &cmd
	}
	return o
}

// Unread is the facts of a port whose counters could not be read: the
// reason, nothing else known.
func Unread(err error) *lossless.OptionalCounters {
	why := oneLine(err.Error())
	return &lossless.OptionalCounters{Source: SourceName, Why: &why, Enabled: []lossless.OptionalCounter{}, Disabled: []string{}}
}
