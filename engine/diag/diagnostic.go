// SPDX-License-Identifier: Apache-2.0

package diag

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Severity ranks a Diagnostic.
type Severity uint8

// Severities, from least to most serious.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "info"
}

// MarshalText returns String.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts what String returns.
func (s *Severity) UnmarshalText(b []byte) error {
	for _, c := range []Severity{SeverityInfo, SeverityWarning, SeverityError} {
		if c.String() == string(b) {
			*s = c
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}

// Severities is a set of severities: those a diagnostic code is raised
// at (Entry.Severities).
type Severities uint8

// SeveritySet returns the set of the severities given.
func SeveritySet(ss ...Severity) Severities {
	var out Severities
	for _, s := range ss {
		out |= 1 << s
	}
	return out
}

// The sets of one severity, for the Catalogue's rows.
var (
	Info    = SeveritySet(SeverityInfo)
	Warning = SeveritySet(SeverityWarning)
	Error   = SeveritySet(SeverityError)
)

// Has reports whether sev is in the set.
func (s Severities) Has(sev Severity) bool { return s&(1<<sev) != 0 }

// List returns the set's severities, least serious first.
func (s Severities) List() []Severity {
	var out []Severity
	for _, sev := range []Severity{SeverityInfo, SeverityWarning, SeverityError} {
		if s.Has(sev) {
			out = append(out, sev)
		}
	}
	return out
}

// String returns the set's severities joined by "|" ("warning|error").
func (s Severities) String() string {
	var names []string
	for _, sev := range s.List() {
		names = append(names, sev.String())
	}
	return strings.Join(names, "|")
}

// A Diagnostic is a problem worth showing an operator: a value the
// standard does not allow, a configuration that cannot work. Code is a
// stable kebab-case identifier for scripts and alerts.
type Diagnostic struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Feature  string   `json:"feature,omitempty"` // "ets", "ets_reco", "pfc", "app", "cee", "lldp", "capture", or none
	Message  string   `json:"message"`
	// Action suggests what the operator can do about it, when known.
	Action string `json:"action,omitempty"`
}

// A Code names a kind of Diagnostic, stable across versions (it is a
// metrics label and part of the JSON contract): "pfc-mismatch".
type Code string

// Diagnostic codes of what the codec finds (lldp.Finding), under the
// codec's names: the problems of a received TLV, and of local parameters
// checked with the same rules (Params.Validate).
const (
	CodeETSBandwidthSum    = Code(lldp.CodeETSBandwidthSum)
	CodeETSBandwidthRange  = Code(lldp.CodeETSBandwidthRange)
	CodeETSBandwidthNonETS = Code(lldp.CodeETSBandwidthNonETS)
	CodeETSPrioTCRange     = Code(lldp.CodeETSPrioTCRange)
	CodeETSTSAReserved     = Code(lldp.CodeETSTSAReserved)
	CodePFCCapRange        = Code(lldp.CodePFCCapRange)
	CodePFCCapExceeded     = Code(lldp.CodePFCCapExceeded)
	CodeAppSelector        = Code(lldp.CodeAppSelector)
	CodeAppDSCPRange       = Code(lldp.CodeAppDSCPRange)
	CodeAppEthertypeRange  = Code(lldp.CodeAppEthertypeRange)
	CodeAppDuplicate       = Code(lldp.CodeAppDuplicate)
	CodeDuplicateTLV       = Code(lldp.CodeDuplicateTLV)
	CodeDialectBoth        = Code(lldp.CodeDialectBoth)
	CodeCEEPGBandwidthSum  = Code(lldp.CodeCEEPGBandwidthSum)
	CodeCEEPGIDReserved    = Code(lldp.CodeCEEPGIDReserved)
	CodeCEEControlMissing  = Code(lldp.CodeCEEControlMissing)
	CodeCINLegacy          = Code(lldp.CodeCINLegacy)
	CodeTLVDiscarded       = Code(lldp.CodeTLVDiscarded)
)

// FromFinding is the one place where a finding of the codec
// (lldp.Finding) becomes a Diagnostic: the code keeps its text, the level
// becomes a severity, and the engine adds the action an operator can take
// where it knows one.
func FromFinding(f lldp.Finding) Diagnostic {
	d := Diagnostic{Code: Code(f.Code), Feature: f.Feature, Message: f.Message}
	switch f.Level {
	case lldp.LevelError:
		d.Severity = SeverityError
	case lldp.LevelWarning:
		d.Severity = SeverityWarning
	default:
		d.Severity = SeverityInfo
	}
	switch d.Code {
	case CodeETSPrioTCRange:
		d.Action = "the sender maps priorities to traffic classes beyond the number it supports: fix the switch's ETS/CoS mapping or its TC count; until then the receiving hardware decides where those priorities go"
		if strings.Contains(d.Message, "reserved traffic class") {
			d.Action = "fix the switch's priority-to-TC map: traffic classes above TC7 do not exist, whatever its TC count; until then the receiving hardware decides where those priorities go"
		}
	case CodeETSBandwidthSum:
		d.Action = "fix the sender's ETS bandwidth table so that the ETS classes share 100% (on the switch: its ETS/QoS configuration; on this host: dcbtop apply)"
	case CodeTLVDiscarded:
		d.Action = "the peer sends a malformed TLV: check its software version; this TLV's parameters are ignored until it sends a valid one"
	}
	return d
}

// AppendFindings appends the diagnostics of fs (FromFinding) to out: one
// diagnostic per fact, so a finding of the ETS recommendation that says
// what the same finding of the ETS configuration already says (one table
// sent twice) is not repeated; the kept one names both.
func AppendFindings(out []Diagnostic, fs []lldp.Finding) []Diagnostic {
	for _, f := range fs {
		d := FromFinding(f)
		if i := slices.IndexFunc(out, func(o Diagnostic) bool {
			return o.Code == d.Code && o.Message == d.Message && (o.Feature == "ets") != (d.Feature == "ets") &&
				strings.HasPrefix(o.Feature, "ets") && strings.HasPrefix(d.Feature, "ets")
		}); i >= 0 {
			out[i].Message = "ETS configuration and recommendation: " + out[i].Message
			continue
		}
		out = append(out, d)
	}
	return out
}

// Newf returns a Diagnostic whose message is format applied to a.
func Newf(code Code, sev Severity, feature, action, format string, a ...any) Diagnostic {
	return Diagnostic{Code: code, Severity: sev, Feature: feature, Message: fmt.Sprintf(format, a...), Action: action}
}
