// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/ceeswitch"
)

// A willing dcbtop agent on the DCB test device adopts the PFC a switch
// (lldpd, on the device's other end in a namespace of its own) sends, and
// programs it into the NIC through the real kernel: iproute2's dcb reads
// it there while the agent runs, and the agent's snapshot says the NIC
// holds it (in-nic).
func TestWillingAgentProgramsAdoptedPFC(t *testing.T) {
	freshDevice(t)
	sw := testbed.NewNS(t, "sw")
	run(t, "ip", "link", "set", "dcbt1", "netns", sw.Name)
	if out, err := sw.Run("ip", "link", "set", "dcbt1", "up"); err != nil {
		t.Fatalf("ip link set dcbt1 up in %s: %v: %s", sw.Name, err, out)
	}
	testbed.StartLLDPD(t, sw, "dcbt1", testbed.LLDPDOpts{Hostname: "leaf1", TxInterval: 1, StartupTimeout: time.Minute, TLVs: []testbed.UnknownTLV{
		// IEEE 802.1Qaz PFC Configuration TLV: not willing, MBC off, capability 8, PFC on priority 3.
		{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}},
	}})

	wait := startSnapshot(t, "dcbt0", 30*time.Second, "--agent", "--willing", "on", "--tx-interval", "1s")
	var pfc dcbPFC
	deadline := time.Now().Add(25 * time.Second)
	for time.Now().Before(deadline) {
		dcbJSON(t, &pfc, "pfc", "dcbt0")
		if pfc.enabled() == 1<<3 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	in := wait(true)
	if pfc.enabled() != 1<<3 {
		t.Errorf("dcb reads PFC on %v in the NIC while the willing agent runs, want priority 3 (the switch's)", pfc.enabled())
	}
	if in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != 1<<3 {
		t.Errorf("operational PFC %+v, want priority 3 (adopted)", in.Operational)
	}
	if in.NIC == nil || in.NIC.PFC == nil || *in.NIC.PFC != engine.NICInForce {
		t.Errorf("NIC program %+v, want PFC in-nic", in.NIC)
	}
}

// A willing dcbtop agent against a CEE-only switch (lldpd sending the CEE
// DCBX TLV, its side of the Control handshake played by
// ceeswitch.Switch): the agent falls back to CEE, the switch
// acknowledges its sequence number, and only then does the agent adopt
// the switch's PFC and program it into the NIC (through the IEEE ops,
// DCB_CMD_IEEE_SET): iproute2's dcb reads it there, and the agent's
// snapshot says CEE, seq 1 acknowledged, PFC in-nic.
func TestWillingAgentAgainstCEESwitch(t *testing.T) {
	freshDevice(t)
	ns := testbed.NewNS(t, "sw")
	run(t, "ip", "link", "set", "dcbt1", "netns", ns.Name)
	if out, err := ns.Run("ip", "link", "set", "dcbt1", "up"); err != nil {
		t.Fatalf("ip link set dcbt1 up in %s: %v: %s", ns.Name, err, out)
	}
	sw := &ceeswitch.Switch{Seq: 1, PFC: 1 << 3}
	sw.LLDPD = testbed.StartLLDPD(t, ns, "dcbt1", testbed.LLDPDOpts{Hostname: "cee-leaf", TxInterval: 1, StartupTimeout: time.Minute,
		TLVs: []testbed.UnknownTLV{sw.TLV(0)}})

	wait := startSnapshot(t, "dcbt0", 30*time.Second, "--agent", "--willing", "on", "--tx-interval", "1s")
	var pfc dcbPFC
	deadline := time.Now().Add(25 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := sw.Ack(); err != nil {
			t.Fatal(err)
		}
		dcbJSON(t, &pfc, "pfc", "dcbt0")
		if pfc.enabled() == 1<<3 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	in := wait(true)
	if pfc.enabled() != 1<<3 {
		t.Errorf("dcb reads PFC on %v in the NIC, want priority 3 (the CEE switch's; the switch acknowledged %d)", pfc.enabled(), sw.Acked())
	}
	if sw.Acked() != 1 {
		t.Errorf("the switch acknowledged %d, want the agent's sequence 1", sw.Acked())
	}
	if a := in.AgentDCBX; a == nil || a.Dialect != lldp.DialectCEE || a.Control == nil || a.Control.PeerAck != 1 || a.Control.PFCWait != "" {
		t.Errorf("agent_dcbx %+v, want CEE with sequence 1 acknowledged", a)
	}
	if in.Resolution.PFC.Source != dcb.FromRemote || in.NIC == nil || in.NIC.PFC == nil || *in.NIC.PFC != engine.NICInForce {
		t.Errorf("PFC resolution %+v, NIC program %+v; want the switch's PFC adopted and in-nic", in.Resolution.PFC, in.NIC)
	}
	// Through the CEE ops (the device runs CEE DCBX besides IEEE, as
	// lldpad would program it): the CEE PFC configuration, which only
	// DCB_CMD_PFC_SCFG sets, holds priority 3.
	c, err := dcbnl.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cee, err := c.CEE("dcbt0")
	if err != nil || cee.PFC == nil || cee.PFC[3] != 1 || cee.PFC[0] != 0 {
		var pfc any
		if cee != nil {
			pfc = cee.PFC
		}
		t.Errorf("CEE_GET: %v, PFC config %v; want priority 3 set through PFC_SCFG", err, pfc)
	}
}
