// SPDX-License-Identifier: Apache-2.0

package session

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestScreenWritesThroughEffects: the screen's writes on an interface
// without dcbtop's agent are effects of the host layer that the run
// carries out (runEffects) on DCB netlink clients of their own, and the
// host learns each result: the state read back is the engine's at once,
// the undo state is the host's, a host QoS fix keeps its undo in the
// host, and a later DCBX write drops it. Each write's client reads,
// writes and reads back, and nothing else.
func TestScreenWritesThroughEffects(t *testing.T) {
	oldAdmin := netAdmin
	netAdmin = func() bool { return true }
	t.Cleanup(func() { netAdmin = oldAdmin })
	f := kerneltest.NewFake()
	mode := dcbnl.ModeHost | dcbnl.ModeIEEE
	f.Mode = &mode
	f.State.AppTrust = []uint8{255} // trusts PCP
	dial, clients := loggedDial(t, f)
	r := mustLiveRun(t, &Config{Screen: true, Dialers: counters.Dialers{DCB: dial}, SysfsRoot: t.TempDir()})
	r.pub.Feed = feed.New()
	r.byName["nl"] = newIface(linkOf("nl", testMAC), nil, nil)
	now := time.Now().UTC()
	r.apply(engine.LinkChanged{Interface: "nl", At: now, Ifindex: 2, MAC: testMAC, Up: true})
	r.observeHostAgents(now, true)
	r.apply(engine.LocalChanged{Interface: "nl", At: now, Source: engine.SourceDCBNL, Params: agent.DefaultLocal(), Mode: "host agent, IEEE"})
	r.flush()
	stop := serveLoop(r)
	b := operator.NewBackend(t.TempDir(), r.pub.Feed.Snapshot, r)

	text, err := b.Apply("nl", nil, &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}})
	if err != nil || text != "applied through dcbnl and read back: PFC" {
		t.Fatalf("apply: %q, %v", text, err)
	}
	if f.State.PFC.Enabled != 1<<3 {
		t.Errorf("the driver's PFC %#x, want priority 3", f.State.PFC.Enabled)
	}
	// The host took the result before the answer came back: the state
	// read back is the engine's, the state before is the undo.
	if in := snaptest.Iface(t, mustSnap(t, r), "nl"); in.Local == nil || in.Local.PFC.Enabled != 1<<3 {
		t.Errorf("the engine's local parameters after the write: %s", in.Local)
	}
	if st, ok := b.UndoState("nl"); !ok || st.Params.PFC.Enabled != 0 {
		t.Errorf("undo state %+v, %v; want PFC off, the state read before", st, ok)
	}

	// A host QoS fix: written, its undo the host's.
	text, err = b.ApplyQoS("nl", qos.Change{Trust: []string{"dscp", "pcp"}}, false)
	if err != nil || !strings.Contains(text, "written and read back: trust") {
		t.Fatalf("ApplyQoS: %q, %v", text, err)
	}
	if diff := cmp.Diff([]uint8{5, 255}, f.State.AppTrust); diff != "" {
		t.Errorf("the driver's trust table (-want +got):\n%s", diff)
	}
	fp, ok := b.QoSUndo("nl")
	if !ok || fp.Fix.Change.Trust == nil {
		t.Fatalf("QoSUndo: %+v, %v", fp, ok)
	}
	if u, ok := r.h.QoSUndo("nl"); !ok || !cmp.Equal(u, fp.Fix.Change) {
		t.Errorf("the host's QoS undo %+v, %v; want the screen's %+v", u, ok, fp.Fix.Change)
	}
	on := true
	if _, err := b.Apply("nl", &on, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.QoSUndo("nl"); ok {
		t.Error("the fix's undo outlived a later write")
	}
	stop()
	r.writes.Wait()

	logs := clients()
	for i, l := range logs {
		var cmds []string
		for _, q := range l {
			cmds = append(cmds, q.Cmd)
		}
		if len(cmds) == 0 || cmds[0] != "IEEE_GET" || cmds[len(cmds)-1] != "IEEE_GET" || !hasWrite(cmds) {
			t.Errorf("client %d: %v; want a read, the write, a read back", i, cmds)
		}
	}
	if len(logs) != 3 {
		t.Errorf("%d DCB netlink clients, want one per write (3)", len(logs))
	}
}

// hasWrite says cmds hold a DCB write.
func hasWrite(cmds []string) bool {
	for _, c := range cmds {
		if strings.HasPrefix(c, "IEEE_SET") || strings.HasPrefix(c, "IEEE_DEL") {
			return true
		}
	}
	return false
}
