// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
)

// This file holds the typed account of a write of local parameters, the
// one every writer returns and every caller renders: dcbtop's own agent
// and the kernel (DCB netlink). Its words are written here once; callers
// add the interface name in front when they need it.

// A WriteTarget is where a write of local parameters goes.
type WriteTarget uint8

// The targets of a write.
const (
	// WriteAgent: dcbtop's own LLDP agent (engine/agent), which
	// advertises what it is given.
	WriteAgent WriteTarget = iota
	// WriteKernel: the NIC driver, through DCB netlink (DCB_CMD_IEEE_SET,
	// linux/dcbnl.h), which applies what it is given.
	WriteKernel
)

// String names the target: "dcbtop's agent" or "dcbnl".
func (t WriteTarget) String() string {
	if t == WriteKernel {
		return "dcbnl"
	}
	return "dcbtop's agent"
}

// A Feature is the unit a write sets, reports as written or unchanged,
// and names when it fails.
type Feature uint8

// The features of a write.
const (
	// FeatureETS: the ETS configuration (PARAMS ets). In the kernel it is
	// struct ieee_ets (linux/dcbnl.h), which also holds the
	// recommendation (ets_reco) and the ETS Willing bit: one
	// DCB_ATTR_IEEE_ETS write sets all three.
	FeatureETS Feature = iota + 1
	// FeatureETSReco: the ETS recommendation (PARAMS ets_reco), a feature
	// of its own only in dcbtop's agent.
	FeatureETSReco
	// FeaturePFC: PFC (PARAMS pfc; struct ieee_pfc).
	FeaturePFC
	// FeatureApp: the APP table (PARAMS app; in the kernel, its IEEE
	// entries, selectors 1-5).
	FeatureApp
	// FeatureWilling: the DCBX Willing state of dcbtop's agent (the
	// kernel's only Willing bit is ETS's, part of FeatureETS).
	FeatureWilling
)

var featureNames = [...]string{"", "ETS", "ETS reco", "PFC", "APP", "willing"}

// String names the feature as reports do: ETS, ETS reco, PFC, APP,
// willing.
func (f Feature) String() string {
	if int(f) < len(featureNames) && f != 0 {
		return featureNames[f]
	}
	return fmt.Sprintf("feature %d", uint8(f))
}

// featureList renders features as "ETS, PFC".
func featureList(fs []Feature) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return strings.Join(s, ", ")
}

// A LocalState is an interface's local DCBX Willing state and local
// parameters, as a write target holds them: what an undo restores, and,
// with these JSON names, the control socket's "previous".
type LocalState struct {
	Willing bool        `json:"willing"`
	Params  *dcb.Params `json:"local"`
}

// A WriteNoteKind says what a WriteNote is about.
type WriteNoteKind uint8

// Kinds of WriteNote.
const (
	// NoteETSWillingOnly: a Willing state was asked of the kernel, where
	// only ETS has a Willing bit: struct ieee_pfc (linux/dcbnl.h) has no
	// willing field, so PFC willing exists only in dcbtop's own agent.
	NoteETSWillingOnly WriteNoteKind = iota + 1
)

// A WriteNote is something a write's result says besides what was
// written: a limit of the target the operator should know about.
type WriteNote struct {
	Kind WriteNoteKind
	// Willing is the Willing state asked for; Already, that the target
	// had it (nothing was written for it).
	Willing, Already bool
}

// String renders the note on one line.
func (n WriteNote) String() string {
	switch n.Kind {
	case NoteETSWillingOnly:
		verb := "set "
		if n.Already {
			verb = "already "
		}
		return "PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing " + verb + dcb.OnOff(n.Willing)
	}
	return fmt.Sprintf("note %d", uint8(n.Kind))
}

// A WriteErrorKind says why a write failed.
type WriteErrorKind uint8

// Kinds of WriteError.
const (
	// WriteNoDCB: the driver has no DCB netlink support (no dcbnl_ops:
	// the kernel answers EOPNOTSUPP, net/dcb/dcbnl.c).
	WriteNoDCB WriteErrorKind = iota + 1
	// WriteNoInterface: no interface of that name.
	WriteNoInterface
	// WritePermission: the process lacks CAP_NET_ADMIN, which the kernel
	// requires of every RTM_SETDCB (dcb_doit).
	WritePermission
	// WriteReadFailed: the state before could not be read for another
	// reason; nothing was sent.
	WriteReadFailed
	// WriteFirmwareManaged: the NIC firmware runs DCBX
	// (DCB_CAP_DCBX_LLD_MANAGED), and the driver ignores or refuses ETS
	// and PFC from the host; nothing was sent.
	WriteFirmwareManaged
	// WriteInvalidParams: the parameters are invalid, or incomplete for
	// what the target holds; nothing was sent.
	WriteInvalidParams
	// WriteRejected: the target refused the first feature written; the
	// features after it were not attempted.
	WriteRejected
	// WritePartial: a feature failed after others were written (the
	// kernel has no rollback); the features after it were not attempted.
	WritePartial
	// WriteReadBackFailed: everything was written, but could not be read
	// back, so it is not known what the target holds.
	WriteReadBackFailed
	// WriteReadBackMismatch: the target accepted the writes but reads back
	// other values (a driver that accepts and ignores).
	WriteReadBackMismatch
)

var writeErrorKindNames = [...]string{"", "no-dcb", "no-interface", "permission", "read-failed", "firmware-managed",
	"invalid-params", "rejected", "partial", "read-back-failed", "read-back-mismatch"}

// String returns the kind's name: no-dcb, no-interface, permission,
// read-failed, firmware-managed, invalid-params, rejected, partial,
// read-back-failed or read-back-mismatch.
func (k WriteErrorKind) String() string {
	if int(k) < len(writeErrorKindNames) && k != 0 {
		return writeErrorKindNames[k]
	}
	return fmt.Sprintf("write error %d", uint8(k))
}

// A WriteError is why a write failed, and how far it got. Its message
// (Error) is one line without the interface name in front; the
// remedies that need the name (ethtool, dcbtop --agent) carry it.
type WriteError struct {
	Kind WriteErrorKind
	// Interface is the interface written, for the remedies.
	Interface string
	// Op is the operation that failed, in the target's words ("read DCB
	// parameters (IEEE_GET)", "set PFC (IEEE_SET)"): for no-interface,
	// permission and read-failed.
	Op string
	// Feature is the feature whose write failed: rejected, partial, and
	// no-dcb, no-interface or permission on a write.
	Feature Feature
	// Written are the features written before the failure (partial), or
	// all of them (read-back-failed, read-back-mismatch); NotAttempted
	// those after the failed one (rejected, partial).
	Written, NotAttempted []Feature
	// Detail is the cause in the target's words, without the interface
	// name: the driver's error, the invalid parameter, the interfaces
	// that do exist.
	Detail string
	// Mismatches are the differences of a read-back-mismatch, one per
	// feature, in the order written.
	Mismatches []Mismatch
}

// Error renders the failure on one line.
func (e *WriteError) Error() string {
	switch e.Kind {
	case WriteNoDCB:
		return fmt.Sprintf("no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i %s to be the DCBX agent", e.Interface)
	case WriteNoInterface:
		if e.Detail != "" {
			return e.Detail
		}
		return "no such interface"
	case WritePermission:
		return e.Op + ": permission denied (needs CAP_NET_ADMIN: run as root)"
	case WriteReadFailed:
		return e.Op + ": " + e.Detail
	case WriteFirmwareManaged:
		return "the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (" +
			firmwareHandOver(e.Interface) + "), or configure the switch"
	case WriteInvalidParams:
		return "invalid parameters, nothing sent: " + e.Detail
	case WriteRejected, WritePartial:
		var parts []string
		for _, f := range e.Written {
			parts = append(parts, f.String()+" applied")
		}
		parts = append(parts, e.Feature.String()+" failed: "+e.Detail)
		for _, f := range e.NotAttempted {
			parts = append(parts, f.String()+" not attempted")
		}
		return strings.Join(parts, "; ")
	case WriteReadBackFailed:
		return featureList(e.Written) + " applied, but reading them back failed: " + e.Detail
	case WriteReadBackMismatch:
		parts := make([]string, len(e.Mismatches))
		for i, m := range e.Mismatches {
			parts[i] = m.String()
		}
		return strings.Join(parts, "; ")
	}
	return e.Kind.String() + ": " + e.Detail
}

// FirmwareRefusal is the one rule for a NIC whose firmware runs DCBX
// (DCB_CAP_DCBX_LLD_MANAGED): ice and i40e refuse or overwrite ETS and PFC
// written by the host while the firmware's agent runs, and the kernel's
// one Willing bit is ETS's (struct ieee_ets). It returns the write's
// refusal when firmware is true and the write sets any of them (p's ETS,
// ETS recommendation or PFC, or willing), nil otherwise. The kernel write
// (capture/kernel) asks it with the mode it reads before writing; the
// port's capabilities refuse every write of the screen there, each of
// which sets ETS, PFC or Willing.
func FirmwareRefusal(ifname string, firmware bool, p *dcb.Params, willing *bool) *WriteError {
	if !firmware || willing == nil && (p == nil || p.ETS == nil && p.ETSReco == nil && p.PFC == nil) {
		return nil
	}
	return &WriteError{Kind: WriteFirmwareManaged, Interface: ifname}
}

// firmwareHandOver says how to hand DCBX from the NIC firmware to the
// host on ifname, per driver: the ice and i40e private flags
// (Documentation/networking/device_drivers/ethernet/intel/ice.rst and
// i40e.rst), and for mlx5, which switches to host mode on DCB_CMD_SDCBX
// (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c
// mlx5e_dcbnl_setdcbx), dcbtop apply --dcbx-mode host.
func firmwareHandOver(ifname string) string {
	return fmt.Sprintf("ice: ethtool --set-priv-flags %s fw-lldp-agent off; i40e: ethtool --set-priv-flags %s disable-fw-lldp on; mlx5: dcbtop apply -i %s --dcbx-mode host", ifname, ifname, ifname)
}

// A Mismatch is how the read-back of one written feature differs from
// what was written.
type Mismatch struct {
	Feature Feature
	// Absent: the target reports no such feature at all.
	Absent bool
	// Fields are the fields read back with other values, named as the
	// target's structure names them.
	Fields []FieldDiff
	// Missing are APP entries written but not read back; Unexpected, the
	// IEEE entries read back but not written.
	Missing, Unexpected []dcb.App
}

// String renders the mismatch on one line.
func (m Mismatch) String() string {
	var parts []string
	if m.Absent {
		parts = append(parts, "no "+m.Feature.String()+" reported")
	}
	for _, f := range m.Fields {
		parts = append(parts, f.String())
	}
	if len(m.Missing) > 0 {
		parts = append(parts, "missing "+appWords(m.Missing))
	}
	if len(m.Unexpected) > 0 {
		parts = append(parts, "unexpected "+appWords(m.Unexpected))
	}
	return "driver accepted " + m.Feature.String() + " but reports different values: " + strings.Join(parts, "; ")
}

// appWords renders APP entries as "udp-port 4791 priority 3, dscp 26
// priority 3".
func appWords(apps []dcb.App) string {
	s := make([]string, len(apps))
	for i, a := range apps {
		s[i] = fmt.Sprintf("%s %d priority %d", a.Selector, a.Protocol, a.Priority)
	}
	return strings.Join(s, ", ")
}

// A FieldDiff is one field read back with another value than written.
type FieldDiff struct {
	// Field names the field ("tc_bandwidth", "reco tsa", "willing",
	// "enabled", "mbc"); Got and Want are its values in words.
	Field, Got, Want string
}

// String renders the difference: "tc_bandwidth 50/50/0/0/0/0/0/0, want
// 40/60/0/0/0/0/0/0".
func (d FieldDiff) String() string { return d.Field + " " + d.Got + ", want " + d.Want }

// A WriteResult is what a write of local parameters did: the state
// before and after, what was written and what was left alone, the notes,
// and the failure if any.
type WriteResult struct {
	Interface string
	Target    WriteTarget
	// Mode is the DCBX mode the target reported, in words (DCB_ATTR_DCBX
	// for the kernel), "" when unknown; FirmwareManaged, that it has
	// DCB_CAP_DCBX_LLD_MANAGED.
	Mode            string
	FirmwareManaged bool
	// Before is the state read before writing: Params nil when it could
	// not be read (Err says why).
	Before LocalState
	// After is the state read back after the writes, or Before when
	// nothing was written: Params nil when it could not be read back.
	After LocalState
	// Written are the features written, in order; Unchanged, the
	// features given whose values the target already had (not
	// rewritten).
	Written, Unchanged []Feature
	Notes              []WriteNote
	Err                *WriteError
}

// Summary says on one line what a successful write did: what was
// written and read back, what was left alone, or that nothing needed
// writing. It is "" when the write failed (Err says why).
func (r *WriteResult) Summary() string {
	if r.Err != nil {
		return ""
	}
	if r.Target == WriteAgent {
		if len(r.Written) == 0 {
			return "nothing changed: dcbtop's agent already advertises these parameters"
		}
		return "applied to dcbtop's agent: " + featureList(r.Written)
	}
	if len(r.Written) == 0 {
		return "nothing to change: the driver already has these parameters (nothing rewritten)"
	}
	s := "applied through dcbnl and read back: " + featureList(r.Written)
	if len(r.Unchanged) > 0 {
		s += "; " + featureList(r.Unchanged) + " unchanged (not rewritten)"
	}
	return s
}

// Lines returns what the result says, a line each, without the
// interface name: the notes, then the Summary when the write succeeded.
// A failure is Err's to say.
func (r *WriteResult) Lines() []string {
	var out []string
	for _, n := range r.Notes {
		out = append(out, n.String())
	}
	if r.Err == nil {
		out = append(out, r.Summary())
	}
	return out
}

// String returns the whole result on one line: the notes, then the
// summary or the failure, joined by "; ".
func (r *WriteResult) String() string {
	l := r.Lines()
	if r.Err != nil {
		l = append(l, r.Err.Error())
	}
	return strings.Join(l, "; ")
}

// Failure returns nil when the write succeeded, else an error whose
// message is String (the notes, then the failure) and which wraps Err.
func (r *WriteResult) Failure() error {
	if r.Err == nil {
		return nil
	}
	if len(r.Notes) == 0 {
		return r.Err
	}
	return fmt.Errorf("%s; %w", strings.Join(r.Lines(), "; "), r.Err)
}

// LocalChanged is the event that gives the engine the state read back
// (After), at time at: from the driver (SourceDCBNL, with the DCBX mode)
// or from dcbtop's agent (SourceAgent). ok is false when there is no
// state after (it could not be read back).
func (r *WriteResult) LocalChanged(at time.Time) (ev LocalChanged, ok bool) {
	if r.After.Params == nil {
		return LocalChanged{}, false
	}
	ev = LocalChanged{Interface: r.Interface, At: at, Source: SourceAgent, Willing: r.After.Willing, Params: r.After.Params.Clone()}
	if r.Target == WriteKernel {
		ev.Source, ev.Mode, ev.FirmwareManaged = SourceDCBNL, r.Mode, r.FirmwareManaged
	}
	return ev, true
}
