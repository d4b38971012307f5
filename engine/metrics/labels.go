package metrics

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// other is the label value that stands for any value outside a bounded
// set, so an unexpected input can never create an unbounded label.
const other = "other"

// Values of the side label.
const (
	sideLocal       = string(engine.SideLocal)
	sideRemote      = string(engine.SideRemote)
	sideOperational = string(engine.SideOperational)
)

// digits are the label values of tc and priority.
var digits = [8]string{"0", "1", "2", "3", "4", "5", "6", "7"}

// diagnosticCodes returns every diagnostic code the engine and the codec
// produce: the code label's bounded set (plus "other").
func diagnosticCodes() []engine.Code {
	return []engine.Code{
		// Decoding (package lldp's findings).
		engine.CodeETSBandwidthSum, engine.CodeETSBandwidthRange, engine.CodeETSBandwidthNonETS,
		engine.CodeETSPrioTCRange, engine.CodeETSTSAReserved, engine.CodePFCCapRange,
		engine.CodePFCCapExceeded, engine.CodeAppSelector, engine.CodeAppDSCPRange,
		engine.CodeAppEthertypeRange, engine.CodeAppDuplicate, engine.CodeDuplicateTLV,
		engine.CodeDialectBoth, engine.CodeCEEPGBandwidthSum, engine.CodeCEEPGIDReserved,
		engine.CodeCEEControlMissing, engine.CodeCINLegacy, engine.CodeTLVDiscarded,
		// Local parameter files (engine.Params.Validate).
		engine.CodeETSMaxTCsRange, engine.CodeAppPriorityRange, engine.CodeTLVTooLong,
		// Pairing, lossless traps and the link (package engine).
		engine.CodeMalformed, engine.CodeTooManyNeighbors, engine.CodeMultiPeer,
		engine.CodeETSMismatch, engine.CodePFCMismatch, engine.CodeBothWilling,
		engine.CodeNeitherWilling, engine.CodeNoETSReco, engine.CodePFCPrioNoApp,
		engine.CodePFCTCShared, engine.CodeDialectConflict, engine.CodeDualLocalAgent,
		engine.CodePeerStale, engine.CodeCEEPeerError, engine.CodeLocalUnknown,
		engine.CodeCaptureError, engine.CodeFirmwareDCBX, engine.CodeCaptureRecordOdd,
		engine.CodeTooManyInterfaces, engine.CodePeerLost, engine.CodeETSDiffersFromReco,
		// Lossless counters (package engine).
		engine.CodePauseStorm, engine.CodePauseWithoutPFC, engine.CodePFCNoPauses,
		engine.CodeCNPWithoutECN, engine.CodeLossyFabric, engine.CodeCountersError,
		// The RoCE path (package engine).
		engine.CodeRoCEGIDNotV2, engine.CodeRoCEToSNotLossless, engine.CodeLinkPauseWithPFC,
		engine.CodePFCNoHeadroom, engine.CodeTrustMismatch, engine.CodePFCStall, engine.CodeRDMAOnLossy,
		engine.CodeCNPPriorityLossy, engine.CodeECNNeverMarked, engine.CodeRoCEToSECN, engine.CodeLinkPauseFrames,
	}
}

// severities are the severity label's values, least serious first.
var severities = [...]engine.Severity{engine.SeverityInfo, engine.SeverityWarning, engine.SeverityError}

// statuses are the status label's values (plus "other").
var statuses = [...]engine.Status{engine.StatusRemote, engine.StatusOperational, engine.StatusLocal}

// reasons are the reason label's values (plus "other").
var reasons = [...]engine.Reason{
	engine.ReasonFirstReceipt, engine.ReasonChanged, engine.ReasonTTLExpired,
	engine.ReasonShutdown, engine.ReasonMultiPeer, engine.ReasonLocalChange, engine.ReasonLinkDown,
}

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

// dialectLabel returns "ieee", "cee" or "none".
func dialectLabel(d lldp.Dialect) string {
	switch d {
	case lldp.DialectIEEE, lldp.DialectCEE:
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
