// SPDX-License-Identifier: Apache-2.0

// Package lldptest builds the LLDPDUs and DCBX TLVs that tests of the
// engine, the checks and the screen share: two switch ports, A and B, and
// the IEEE 802.1Qaz TLVs a RoCE fabric's switch sends (ETS 50/50 with
// priority 3 on TC1, PFC on priority 3, APP entries for RoCE v2).
package lldptest

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The source MACs (and chassis IDs) of two switch ports.
var (
	MacA = lldp.MAC{0x02, 0, 0, 0, 0, 0xa}
	MacB = lldp.MAC{0x02, 0, 0, 0, 0, 0xb}
)

// DCBX TLVs. Tests must not change them.
var (
	// ETSA: ETS 50/50 over TC0 and TC1, priority 3 on TC1; ETSA2 the same
	// at 40/60; RecoA a recommendation of 30/70.
	ETSA  = &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}}
	ETSA2 = &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{40, 60}, TSA: [8]lldp.TSA{2, 2}}
	RecoA = &lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}}
	// PFC3: PFC on priority 3; PFC34 on 3 and 4.
	PFC3  = &lldp.PFC{Cap: 8, Enabled: 1 << 3}
	PFC34 = &lldp.PFC{Cap: 8, Enabled: 1<<3 | 1<<4}
	// App1: RoCE v2 (UDP 4791) on 3; App2 that and DSCP 26 on 3.
	App1 = &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791}}}
	App2 = &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791}, {Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26}}}
)

// Frame builds a nearest-bridge LLDP frame from src whose chassis ID is
// src's MAC, port ID "swp1" and system name "leaf-" and src's last
// bytes, carrying tlvs.
func Frame(t testing.TB, src lldp.MAC, ttl uint16, tlvs ...lldp.TLV) []byte {
	return FrameTo(t, lldp.NearestBridge, src, ttl, tlvs...)
}

// FrameTo is Frame sent to dst.
func FrameTo(t testing.TB, dst, src lldp.MAC, ttl uint16, tlvs ...lldp.TLV) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs:      append([]lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: "leaf-" + src.String()[15:]}}, tlvs...),
	}
	b, err := lldp.AppendFrame(nil, dst, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// badPFCFrame returns a frame from macA with ETS, a PFC TLV whose body is
// one byte after OUI and subtype, and APP.
func BadPFCFrame(t testing.TB) []byte {
	t.Helper()
	f := Frame(t, MacA, 120, ETSA, PFC3, App1)
	// Find the PFC TLV (type 127, length 6, OUI 00-80-c2, subtype 11)
	// and cut its information string to OUI, subtype and one byte.
	for i := 14; i+6 <= len(f); i++ {
		if f[i] == 127<<1 && f[i+1] == 6 && f[i+2] == 0x00 && f[i+3] == 0x80 && f[i+4] == 0xc2 && f[i+5] == 11 {
			out := append([]byte(nil), f[:i]...)
			out = append(out, 127<<1, 5)
			out = append(out, f[i+2:i+2+5]...)
			return append(out, f[i+8:]...)
		}
	}
	t.Fatal("no PFC TLV in the frame")
	return nil
}
