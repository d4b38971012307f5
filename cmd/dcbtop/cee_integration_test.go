// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/ceeswitch"
)

// A willing dcbtop agent against a CEE-only switch (lldpd sending the CEE
// TLV, its Control handshake played by ceeswitch.Switch): the agent
// falls back to CEE, announces sequence 1, acknowledges the switch's,
// and adopts the switch's PFC once the switch acknowledged it; dcbtop
// show says so from the agent; tshark reads the agent's LLDPDUs as CEE
// DCBX with that Control sub-TLV and no IEEE 802.1Qaz TLV.
func TestAgentAgainstCEESwitch(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw := &ceeswitch.Switch{Seq: 1, PFC: 1 << 3}
	host, hostMAC, l, pcap, stopDump := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "cee-leaf", TxInterval: 1, TLVs: []testbed.UnknownTLV{sw.TLV(0)}})
	sw.LLDPD = l
	run := testbed.ShortTempDir(t)
	startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--willing", "on", "--tx-interval", "1s"))

	show := func() engine.Interface {
		t.Helper()
		code, out, errOut := runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0", "--json")...)
		snap := decodeShown(t, out)
		if code != 0 || len(snap) != 1 {
			t.Fatalf("show --json: exit %d, stderr %q, stdout %s", code, errOut, out)
		}
		return snap[0].Interface
	}
	var in engine.Interface
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := sw.Ack(); err != nil {
			t.Fatal(err)
		}
		in = show()
		if op := in.Operational; op != nil && op.PFC != nil && op.PFC.Enabled == 1<<3 && in.Resolution.PFC.Source == dcb.FromRemote {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not adopt the CEE switch's PFC in 30 s (the switch acknowledged %d): operational %+v, resolution %+v, agent_dcbx %+v",
				sw.Acked(), in.Operational, in.Resolution, in.AgentDCBX)
		}
		time.Sleep(500 * time.Millisecond)
	}
	a := in.AgentDCBX
	if a == nil || a.Dialect != lldp.DialectCEE || a.Control == nil || a.Control.Seq != 1 || a.Control.Ack != 1 || a.Control.PeerAck != 1 || a.Control.PFCWait != "" {
		t.Fatalf("agent_dcbx %+v, want CEE, seq 1 acknowledged by the switch, the switch's 1 acknowledged; interface %+v", a, in)
	}
	if sw.Acked() != 1 {
		t.Errorf("the switch acknowledged %d, want the agent's sequence 1", sw.Acked())
	}
	code, out, _ := runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0")...)
	if code != 0 || !strings.Contains(out, "  agent speaks CEE DCBX: the peer speaks only CEE") || !strings.Contains(out, "  agent's CEE control: seq 1, ack 1, the peer acknowledged 1\n") {
		t.Errorf("show, text: exit %d:\n%s", code, out)
	}

	// The independent judge: tshark on the switch's end.
	stopDump()
	var cee []testbed.TsharkFrame
	for _, f := range testbed.TsharkLLDP(t, pcap) {
		if f.Src.String() == hostMAC.String() && f.Org(lldp.OUICEE, lldp.SubtypeCEE) != nil {
			cee = append(cee, f)
		}
	}
	if len(cee) == 0 {
		t.Fatal("tshark saw no CEE DCBX TLV from the agent")
	}
	last := cee[len(cee)-1]
	if last.Org(testbed.OUI8021, 11) != nil || last.Org(testbed.OUI8021, 9) != nil {
		t.Errorf("the agent's CEE LLDPDU carries IEEE 802.1Qaz TLVs too")
	}
	tlv := last.Org(lldp.OUICEE, lldp.SubtypeCEE)
	got := []string{tlv.Get("lldp.dcbx.control.seq"), tlv.Get("lldp.dcbx.control.ack"), tlv.Get("lldp.dcbx.feature.willing")}
	if !slices.Equal(got, []string{"1", "1", "1"}) && !slices.Equal(got, []string{"1", "1", "True"}) {
		t.Errorf("tshark reads the agent's CEE TLV as seq, ack, willing = %q; want 1, 1, willing", got)
	}
}
