// SPDX-License-Identifier: Apache-2.0

package host

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/qos"
)

// A WriteQoS asks the caller to write a host QoS change on Interface:
// DCB netlink's trust table, DSCP entries, PFC delay and buffer split,
// and rdma_cm's configfs default ToS of the RoCE ports (qos.Change,
// the screen's f and dcbtop apply's QoS flags). Undo says it is the undo
// of the last one. The caller does it off the engine goroutine and
// reports the typed result with QoSWritten.
type WriteQoS struct {
	Interface string
	Change    qos.Change
	Undo      bool
}

func (WriteQoS) isEffect() {}

// WriteQoS asks for the host QoS change c on iface (with undo: the undo
// of the last one, QoSUndo) as a WriteQoS in the Result's effects. The
// engine's capabilities are the screen's to show beforehand; the kernel
// refuses what this process may not write, and the result says so.
func (h *Host) WriteQoS(iface string, c qos.Change, undo bool, at time.Time) (Result, error) {
	h.begin()
	if _, ok := h.eng.Interface(iface); !ok {
		return h.end(at), errNotCaptured(iface)
	}
	h.effects = append(h.effects, WriteQoS{Interface: iface, Change: c, Undo: undo})
	return h.end(at), nil
}

// QoSWritten takes the result of a WriteQoS carried out at at: the change
// that restores what it changed (qos.WriteResult.Undo) becomes
// iface's one level of QoS undo, while no other write comes after it; an
// undo uses it up.
func (h *Host) QoSWritten(w WriteQoS, res qos.WriteResult, at time.Time) Result {
	h.begin()
	p := h.port(w.Interface)
	p.qosUndo = nil
	if u, _ := res.Undo(w.Change); !w.Undo && len(res.Written) > 0 && !u.Empty() {
		p.qosUndo = &u
	}
	if res.Err == nil && len(res.Written) > 0 {
		c := w.Change
		p.qosOver, p.qosOverAt = &c, at
	}
	return h.end(at)
}

// QoSOver returns the last host QoS write on iface the NIC read back
// while the engine's facts may not show it yet (no counters sample taken
// since): what a preview on iface is made over (qos.PreviewOver); nil
// when there is none.
func (h *Host) QoSOver(iface string) *qos.Change {
	if p := h.ports[iface]; p != nil && p.qosOver != nil {
		c := *p.qosOver
		return &c
	}
	return nil
}

// QoSUndo returns the change that undoes the last host QoS write on
// iface, while it is the last write there.
func (h *Host) QoSUndo(iface string) (qos.Change, bool) {
	p := h.ports[iface]
	if p == nil || p.qosUndo == nil {
		return qos.Change{}, false
	}
	return *p.qosUndo, true
}
