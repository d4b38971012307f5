// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
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
