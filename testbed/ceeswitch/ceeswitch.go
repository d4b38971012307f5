// SPDX-License-Identifier: Apache-2.0

// Package ceeswitch makes lldpd a CEE-only switch port for tests: the CEE
// DCBX TLV it sends and its side of the Control handshake.
package ceeswitch

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// A Switch makes lldpd a CEE-only switch port (CEE DCBX 1.01, OUI
// 00-1B-21 subtype 2): lldpd sends the CEE TLV as a custom TLV, not
// willing, PG enabled with 100% on PG 0, PFC enabled on the priorities of
// PFC, and its side of the Control handshake is played by Ack, which
// acknowledges the sequence number the host's agent sends (lldpd itself
// has no DCBX: it only carries the TLV).
type Switch struct {
	LLDPD *testbed.LLDPD
	Seq   uint32 // the switch's own SeqNo (1: what it announced at start)
	PFC   uint8
	acked uint32
}

// TLV is the switch's CEE TLV, acknowledging ack.
func (s *Switch) TLV(ack uint32) testbed.UnknownTLV {
	f := lldp.CEEFeature{Enable: true}
	c := &lldp.CEE{
		Control: &lldp.CEEControl{SeqNo: s.Seq, AckNo: ack},
		PG:      &lldp.CEEPG{CEEFeature: f, Bandwidth: [8]uint8{100}, NumTCs: 8},
		PFC:     &lldp.CEEPFC{CEEFeature: f, Enabled: s.PFC, NumTCs: 8},
		App:     &lldp.CEEApp{CEEFeature: f, Entries: []lldp.CEEAppEntry{}},
	}
	b, err := c.MarshalBinary()
	if err != nil {
		panic(err) // unreachable: fixed sub-TLVs
	}
	// TLV header (2 bytes), OUI (3), subtype (1), then the sub-TLVs.
	return testbed.UnknownTLV{OUI: lldp.OUICEE, Subtype: lldp.SubtypeCEE, Value: b[6:]}
}

// Acked is the last sequence number the switch acknowledged.
func (s *Switch) Acked() uint32 { return s.acked }

// Ack looks at what lldpd heard from its one neighbour and, when its CEE
// Control sub-TLV carries a sequence number the switch has not
// acknowledged, makes lldpd acknowledge it (lldpcli custom-tlv replace).
// It returns the neighbour's CEE Control sub-TLV (nil when none was
// heard).
func (s *Switch) Ack() (*lldp.CEEControl, error) {
	ns, err := s.LLDPD.Neighbors()
	if err != nil || len(ns) != 1 {
		return nil, err
	}
	ctl := ControlOf(ns[0].UnknownTLVs)
	if ctl == nil || ctl.SeqNo == s.acked {
		return ctl, nil
	}
	tlv := s.TLV(ctl.SeqNo)
	if err := s.LLDPD.ReplaceTLV(tlv.OUI, tlv.Subtype, tlv.Value); err != nil {
		return ctl, fmt.Errorf("acknowledge sequence %d: %w", ctl.SeqNo, err)
	}
	s.acked = ctl.SeqNo
	return ctl, nil
}

// ControlOf decodes the Control sub-TLV of the CEE TLV among tlvs (what
// lldpd heard); nil when there is none.
func ControlOf(tlvs []testbed.UnknownTLV) *lldp.CEEControl {
	for _, u := range tlvs {
		if u.OUI != lldp.OUICEE || u.Subtype != lldp.SubtypeCEE {
			continue
		}
		value := append(append(lldp.OUICEE[:], lldp.SubtypeCEE), u.Value...)
		du := &lldp.DU{
			ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeLocallyAssigned, ID: []byte("x")},
			PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeLocallyAssigned, ID: []byte("x")},
			TTL:       120,
			TLVs:      []lldp.TLV{&lldp.RawTLV{T: lldp.TLVTypeOrg, Value: value}},
		}
		b, err := du.MarshalBinary()
		if err != nil {
			continue
		}
		if parsed, err := lldp.Parse(b); err == nil {
			if c := parsed.CEE(); c != nil && c.Control != nil {
				return c.Control
			}
		}
	}
	return nil
}
