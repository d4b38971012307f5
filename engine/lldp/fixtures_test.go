// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A frameSummary is what a fixture frame is expected to decode to.
type frameSummary struct {
	Header            EthernetHeader
	ChassisID, PortID string
	TTL               uint16
	SystemName        string
	SystemDescription string
	PortDescription   string
	Mgmt              []string // IP addresses
	Caps              *SystemCapabilities
	ETS, Reco         *ETS
	PFC               *PFC
	App               *AppPriority
	CEE               *CEE
	Dialect           Dialect
	Basic             []TLV    // the basic IEEE 802.1 and 802.3 TLVs, in order
	OtherOrg          []string // OUI/subtype of the organizationally specific TLVs kept raw
	Findings          []string // codes
}

func summarize(t *testing.T, frame []byte) frameSummary {
	t.Helper()
	h, b, err := SplitFrame(frame)
	if err != nil {
		t.Fatalf("SplitFrame: %v", err)
	}
	du := mustParse(t, b)
	s := frameSummary{
		Header: h, ChassisID: du.ChassisID.String(), PortID: du.PortID.String(), TTL: du.TTL,
		SystemName: du.SystemName(), SystemDescription: du.SystemDescription(), PortDescription: du.PortDescription(),
		ETS: du.ETS(), Reco: du.ETSReco(), PFC: du.PFC(), App: du.App(), CEE: du.CEE(), Dialect: du.Dialect(),
	}
	for _, x := range du.TLVs {
		switch x := x.(type) {
		case *ManagementAddress:
			a, ok := x.Addr()
			if !ok {
				t.Fatalf("management address %x of family %d is not IP", x.Address, x.Family)
			}
			s.Mgmt = append(s.Mgmt, a.String())
		case *SystemCapabilities:
			s.Caps = x
		case *PortVLANID, *ProtocolVLANID, *VLANName, *ProtocolIdentity, *LinkAggregation,
			*CongestionNotification, *MACPHYStatus, *PowerViaMDI, *MaxFrameSize:
			s.Basic = append(s.Basic, x)
		case *RawTLV:
			if oui, sub, ok := x.OrgID(); ok {
				s.OtherOrg = append(s.OtherOrg, oui.String()+"/"+strconv.Itoa(int(sub)))
			}
		}
	}
	for _, d := range du.Findings {
		s.Findings = append(s.Findings, string(d.Code))
	}
	return s
}

// lldpdSent fills in what every fixture frame has in common: lldpd on a
// veth with MAC src and management address mgmt, port description p0,
// TTL 4 (tx-interval 1), and its 802.3 Link Aggregation and MAC/PHY TLVs.
func lldpdSent(src MAC, mgmt string, s frameSummary) frameSummary {
	s.Header = EthernetHeader{Dst: NearestBridge, Src: src}
	s.ChassisID = "mac " + src.String()
	s.PortID = s.ChassisID
	s.TTL = 4
	s.PortDescription = "p0"
	s.Mgmt = []string{mgmt}
	s.Caps = &SystemCapabilities{0x009c, 0x0080}
	s.Basic = []TLV{lldpdLinkAggWant, lldpdMACPHYWant}
	return s
}

// What testbed/record-fixtures.sh sent (its ETS_CFG, ETS_RECO, PFC_34,
// APP_FULL and CEE variables).
var fixtureWant = map[string]struct {
	frames int
	want   frameSummary
}{
	"lldpd-ieee-full.pcap": {3, lldpdSent(MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}, "192.0.2.1", frameSummary{
		SystemName: "sw-ieee", SystemDescription: "dcbtop fixture: IEEE 802.1Qaz ETS+RECO+PFC+APP",
		ETS: lldpdETSWant, Reco: lldpdRecoWant, PFC: lldpdPFCWant, App: lldpdAppWant,
		Dialect: DialectIEEE,
	})},
	"lldpd-cee.pcap": {3, lldpdSent(MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}, "192.0.2.1", frameSummary{
		SystemName: "sw-cee", SystemDescription: "dcbtop fixture: CEE DCBX (dcbx-reference 4.5)",
		CEE:     refCEEWant, // the §4.5 sub-TLVs
		Dialect: DialectCEE,
	})},
	"lldpd-plain.pcap": {3, lldpdSent(MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}, "192.0.2.1", frameSummary{
		SystemName: "sw-plain", SystemDescription: "dcbtop fixture: plain LLDP, no DCBX",
		Dialect: DialectNone,
	})},
	"lldpd-hostile.pcap": {2, lldpdSent(MAC{0x02, 0xdc, 0xb0, 0, 0, 0x66}, "192.0.2.66", frameSummary{
		// Escape sequences are kept as sent; the UI sanitizes them.
		SystemName: "evil\x1b[31mhost\x1b[0m", SystemDescription: "\x1b[2J\x1b]0;owned\a\aevil\r\n",
		ETS:     lldpdETSWant,
		Dialect: DialectIEEE,
	})},
}

func TestFixtures(t *testing.T) {
	frames := allFixtureFrames(t)
	byFile := map[string][]capturedFrame{}
	for _, f := range frames {
		byFile[f.file] = append(byFile[f.file], f)
	}
	for file, fw := range fixtureWant {
		if _, err := os.Stat(filepath.Join("testdata", file)); err != nil {
			t.Errorf("fixture %s: %v (record it with testbed/record-fixtures.sh)", file, err)
			continue
		}
		if got := len(byFile[file]); got != fw.frames {
			t.Errorf("%s has %d frames, want %d", file, got, fw.frames)
		}
	}
	for _, f := range frames {
		t.Run(f.name(), func(t *testing.T) {
			fw, ok := fixtureWant[f.file]
			if !ok {
				t.Fatalf("no expectations for %s; add them to fixtureWant", f.file)
			}
			got := summarize(t, f.data)
			if diff := cmp.Diff(fw.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decoded frame (-want +got):\n%s", diff)
			}
		})
	}
}
