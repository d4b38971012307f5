// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// other is the label value that stands for any value outside a bounded
// set, so an unexpected input can never create an unbounded label.
const other = "other"

// Values of the side label.
const (
	sideLocal       = string(SideLocal)
	sideRemote      = string(SideRemote)
	sideOperational = string(SideOperational)
)

// digits are the label values of tc and priority.
var digits = [8]string{"0", "1", "2", "3", "4", "5", "6", "7"}

// diagnosticCodes returns every diagnostic code the engine and the codec
// produce: the code label's bounded set (plus "other").
func diagnosticCodes() []diag.Code { return diag.Codes() }

// severities are the severity label's values, least serious first.
var severities = [...]diag.Severity{diag.SeverityInfo, diag.SeverityWarning, diag.SeverityError}

// statuses are the status label's values (plus "other").
var statuses = [...]engine.Status{engine.StatusRemote, engine.StatusOperational, engine.StatusLocal}

// reasons are the reason label's values (plus "other").
var reasons = [...]engine.Reason{
	engine.ReasonFirstReceipt, engine.ReasonChanged, engine.ReasonTTLExpired,
	engine.ReasonShutdown, engine.ReasonMultiPeer, engine.ReasonLocalChange, engine.ReasonLinkDown,
	engine.ReasonCEEHandshake,
}

// nicStates are the state label's values of dcbtop_nic_feature_state
// (plus "other").
var nicStates = [...]engine.NICState{engine.NICInForce, engine.NICDiffers, engine.NICWriting, engine.NICNotProgrammable}

// localSources are the source label's values (plus "other").
var localSources = [...]engine.LocalSource{engine.SourceDCBNL, engine.SourceObserved, engine.SourceAgent, engine.SourceNone}

// expectedIndications are the status and reason pairs the engine issues;
// their counts are exported from zero for every interface.
var expectedIndications = []struct {
	status engine.Status
	reason engine.Reason
}{
	{engine.StatusRemote, engine.ReasonFirstReceipt},
	{engine.StatusRemote, engine.ReasonChanged},
	{engine.StatusRemote, engine.ReasonTTLExpired},
	{engine.StatusRemote, engine.ReasonShutdown},
	{engine.StatusRemote, engine.ReasonMultiPeer},
	{engine.StatusRemote, engine.ReasonLinkDown},
	{engine.StatusOperational, engine.ReasonFirstReceipt},
	{engine.StatusOperational, engine.ReasonChanged},
	{engine.StatusOperational, engine.ReasonTTLExpired},
	{engine.StatusOperational, engine.ReasonShutdown},
	{engine.StatusOperational, engine.ReasonMultiPeer},
	{engine.StatusOperational, engine.ReasonLinkDown},
	{engine.StatusOperational, engine.ReasonLocalChange},
	{engine.StatusLocal, engine.ReasonLocalChange},
}

// boundedLabel returns v when it is one of known, otherwise other.
func boundedLabel[T ~string](known []T, v T) string {
	if slices.Contains(known, v) {
		return string(v)
	}
	return other
}

func statusLabel(s engine.Status) string {
	if slices.Contains(statuses[:], s) {
		return s.String()
	}
	return other
}

// tsaLabel folds the reserved TSA values 3..254 into one label value.
func tsaLabel(t lldp.TSA) string {
	switch t {
	case lldp.TSAStrict, lldp.TSACBS, lldp.TSAETS, lldp.TSAVendor:
		return t.String()
	}
	return "reserved"
}

// dialectLabel returns "ieee", "cee", "cin" or "none".
func dialectLabel(d lldp.Dialect) string {
	switch d {
	case lldp.DialectIEEE, lldp.DialectCEE, lldp.DialectCIN:
		return d.String()
	}
	return lldp.DialectNone.String()
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
