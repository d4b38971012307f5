// SPDX-License-Identifier: Apache-2.0

package session

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// nicRun runs dcbtop's agent, willing, for 2.5 s on mlx0, whose NIC is
// f behind an nltest fake kernel and whose peer, an IEEE DCBX switch
// that is not willing, enables PFC on priority 3. It returns the final
// snapshot's interface and the requests of every DCB netlink client of
// the run, one list per client.
func nicRun(t *testing.T, f *kerneltest.Fake) (engine.Interface, [][]kerneltest.Request) {
	t.Helper()
	oldAdmin, oldAgents := netAdmin, hostAgents
	netAdmin, hostAgents = func() bool { return true }, func() []engine.HostAgent { return nil }
	t.Cleanup(func() { netAdmin, hostAgents = oldAdmin, oldAgents })
	frame := switchPFC3(t)
	dial, clients := loggedDial(t, f)
	var out bytes.Buffer
	rt, err := Start(Config{Links: []capture.Link{{Name: "mlx0", Index: 2, MAC: [6]byte{2, 0, 0, 0, 0, 2}, Up: true}},
		Open:    func(string) (Conn, error) { return &peerConn{frame: frame}, nil },
		Dialers: counters.Dialers{DCB: dial, Pause: fakePause(), RDMA: fakeRDMA}, SysfsRoot: t.TempDir(),
		Agent: true, JSON: true, Out: &out, Duration: 2500 * time.Millisecond, NoControl: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	return snaptest.Iface(t, snaptest.Decode(t, "run", out.String()), "mlx0"), clients()
}

// loggedDial returns a DCB netlink dialer onto f that logs each
// client's requests, and the logs so far, one list per client.
func loggedDial(t *testing.T, f *kerneltest.Fake) (dial func(nlclient.Recorder) (*dcbnl.Client, error), clients func() [][]kerneltest.Request) {
	var (
		mu   sync.Mutex
		logs []*[]kerneltest.Request
	)
	dial = func(nlclient.Recorder) (*dcbnl.Client, error) {
		mu.Lock()
		defer mu.Unlock()
		l := &[]kerneltest.Request{}
		logs = append(logs, l)
		return f.NetlinkLog(t, l), nil
	}
	clients = func() [][]kerneltest.Request {
		mu.Lock()
		defer mu.Unlock()
		var out [][]kerneltest.Request
		for _, l := range logs {
			out = append(out, slices.Clone(*l))
		}
		return out
	}
	return dial, clients
}

// writers returns the request lists that hold a write (IEEE_SET or
// IEEE_DEL), as DCB_CMD_* names.
func writers(reqs [][]kerneltest.Request) (out [][]string, sets []kerneltest.Request) {
	for _, l := range reqs {
		var names []string
		wrote := false
		for _, r := range l {
			names = append(names, r.Cmd)
			if r.Cmd == "IEEE_SET" || r.Cmd == "IEEE_DEL" {
				wrote = true
				sets = append(sets, r)
			}
		}
		if wrote {
			out = append(out, names)
		}
	}
	return out, sets
}

// ieeeSetPFC is the payload of a DCB_CMD_IEEE_SET of struct ieee_pfc
// (linux/dcbnl.h) on ifname, as net/dcb/dcbnl.c's dcbnl_ieee_set reads
// it: struct dcbmsg, DCB_ATTR_IFNAME, then DCB_ATTR_IEEE (nested) holding
// DCB_ATTR_IEEE_PFC: pfc_cap, pfc_en, mbc, a pad byte, delay (u16), two
// pad bytes, requests[8] and indications[8] (u64), 136 bytes. Built by
// hand, not by the encoder under test.
func ieeeSetPFC(ifname string, pfcCap, en uint8, delay uint16) []byte {
	b := []byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_IEEE_SET, 0, 0}
	attr := kerneltest.AppendAttr
	b = attr(b, dcbnl.DCB_ATTR_IFNAME, append([]byte(ifname), 0))
	pfc := make([]byte, 136)
	pfc[0], pfc[1] = pfcCap, en
	binary.NativeEndian.PutUint16(pfc[4:], delay)
	return attr(b, dcbnl.DCB_ATTR_IEEE|0x8000, attr(nil, dcbnl.DCB_ATTR_IEEE_PFC, pfc))
}

// TestAgentProgramsNIC: dcbtop's agent, willing, adopts the switch's PFC
// (priority 3) and programs the NIC as lldpad does after a resolution:
// one client reads the NIC, writes PFC alone with one DCB_CMD_IEEE_SET
// (byte for byte, the NIC's capability and delay kept, Willing not
// touched) and reads back once; the NIC then holds PFC as operational,
// and ETS, which did not change, is in the NIC without being written.
func TestAgentProgramsNIC(t *testing.T) {
	f := kerneltest.NewFake()
	f.State.ETS.Willing = true // the agent adopts the driver's Willing state
	mode := dcbnl.ModeHost | dcbnl.ModeIEEE
	f.Mode = &mode
	in, reqs := nicRun(t, f)
	if in.LocalSource != engine.SourceAgent || in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != 1<<3 {
		t.Fatalf("the agent did not adopt the peer's PFC: local %s, operational %s", in.LocalSource, in.Operational)
	}
	w, sets := writers(reqs)
	if diff := cmp.Diff([][]string{{"IEEE_GET", "IEEE_SET", "IEEE_GET"}}, w); diff != "" {
		t.Errorf("the clients that wrote (-want +got):\n%s", diff)
	}
	if len(sets) == 1 {
		if want := ieeeSetPFC("mlx0", 8, 1<<3, 1234); !bytes.Equal(sets[0].Data, want) {
			t.Errorf("IEEE_SET request:\n got % x\nwant % x", sets[0].Data, want)
		}
	}
	inNIC := engine.NICInForce
	if diff := cmp.Diff(&engine.NICProgram{ETS: &inNIC, PFC: &inNIC, Params: in.NIC.Params}, in.NIC); diff != "" {
		t.Errorf("NIC (-want +got):\n%s", diff)
	}
	if in.NIC.Params == nil || in.NIC.Params.PFC == nil || in.NIC.Params.PFC.Enabled != 1<<3 {
		t.Errorf("the NIC's parameters read back: %s, want PFC on 3", in.NIC.Params)
	}
	if f.State.PFC.Enabled != 1<<3 || f.State.PFC.Delay != 1234 {
		t.Errorf("the driver holds PFC %+v, want priority 3 enabled and the delay kept", *f.State.PFC)
	}
	if _, ok := in.Diagnostic(diag.CodeNICDiffers); ok {
		t.Errorf("nic-differs with the NIC programmed: %+v", in.Diagnostics)
	}
}

// TestAgentNICIgnoresWrite: a driver that accepts the PFC write and
// reads back PFC off is shown as it is: PFC differs, with what the NIC
// holds and why, a nic-differs warning, and the write is not repeated
// (one IEEE_SET in the whole run).
func TestAgentNICIgnoresWrite(t *testing.T) {
	f := kerneltest.NewFake()
	f.State.ETS.Willing = true
	f.Ignore["PFC"] = true
	in, reqs := nicRun(t, f)
	_, sets := writers(reqs)
	if len(sets) != 1 {
		t.Errorf("%d writes, want 1 (a driver that ignores is not written again and again)", len(sets))
	}
	if got := in.NIC.Of(engine.FeaturePFC); got != engine.NICDiffers {
		t.Fatalf("PFC in the NIC: %q, want differs (NIC %+v)", got, in.NIC)
	}
	if in.NIC.Params == nil || in.NIC.Params.PFC == nil || in.NIC.Params.PFC.Enabled != 0 {
		t.Errorf("the NIC's parameters: %s, want PFC off as read back", in.NIC.Params)
	}
	if in.NIC.Why == nil || !bytes.Contains([]byte(*in.NIC.Why), []byte("the last write: driver accepted PFC but reports different values: enabled none, want 3")) {
		t.Errorf("why: %s, want the read-back mismatch", deref(in.NIC.Why))
	}
	d, ok := in.Diagnostic(diag.CodeNICDiffers)
	if !ok || d.Severity != diag.SeverityWarning || d.Feature != "pfc" {
		t.Errorf("nic-differs: %+v (found %v), want a PFC warning", d, ok)
	}
	if in.NIC.Of(engine.FeatureETS) != engine.NICInForce {
		t.Errorf("ETS in the NIC: %q, want in-nic", in.NIC.Of(engine.FeatureETS))
	}
}

// TestAgentNICNoDCB: on an interface whose driver has no DCB (veth: the
// kernel answers EOPNOTSUPP), the agent negotiates and nothing is
// written: every operational feature is not-programmable, and says so.
func TestAgentNICNoDCB(t *testing.T) {
	f := kerneltest.NewFake()
	f.ReadErr = syscall.EOPNOTSUPP
	in, reqs := nicRun(t, f)
	if w, _ := writers(reqs); len(w) != 0 {
		t.Errorf("writes to a NIC without DCB: %v", w)
	}
	if in.NIC == nil || in.NIC.Why == nil {
		t.Fatalf("NIC %+v, want not-programmable with a reason", in.NIC)
	}
	for _, s := range in.NIC.States() {
		if s.State != engine.NICNotProgrammable {
			t.Errorf("%s in the NIC: %s, want not-programmable", s.Feature, s.State)
		}
	}
	if want := "negotiated, not programmed (no DCB in this driver"; !bytes.HasPrefix([]byte(*in.NIC.Why), []byte(want)) {
		t.Errorf("why %q, want it to start %q", *in.NIC.Why, want)
	}
	if !slices.ContainsFunc(in.NIC.States(), func(s engine.NamedNICState) bool { return s.Feature == engine.FeaturePFC }) {
		t.Errorf("PFC is operational but not in the NIC's states: %+v", in.NIC.States())
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
