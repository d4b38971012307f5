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
	OtherOrg          []string // OUI/subtype of the organizationally specific TLVs kept raw
	Diagnostics       []string // codes
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
		case *RawTLV:
			if oui, sub, ok := x.OrgID(); ok {
				s.OtherOrg = append(s.OtherOrg, oui.String()+"/"+strconv.Itoa(int(sub)))
			}
		}
	}
	for _, d := range du.Diagnostics {
		s.Diagnostics = append(s.Diagnostics, d.Code)
	}
	return s
}

// What testbed/record-fixtures.sh sent (its ETS_CFG, ETS_RECO, PFC_34,
// APP_FULL and CEE variables), and what the vendor captures hold.
var fixtureWant = map[string]struct {
	frames int
	want   frameSummary
}{
	"lldpd-ieee-full.pcap": {3, frameSummary{
		Header:    EthernetHeader{Dst: NearestBridge, Src: MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}},
		ChassisID: "mac 02:dc:b0:00:00:01", PortID: "mac 02:dc:b0:00:00:01", TTL: 4,
		SystemName: "sw-ieee", SystemDescription: "dcbtop fixture: IEEE 802.1Qaz ETS+RECO+PFC+APP", PortDescription: "p0",
		Mgmt: []string{"192.0.2.1"}, Caps: &SystemCapabilities{0x009c, 0x0080},
		// ETS_CFG: willing 0, CBS 0, max TCs 0 (8); p3 -> TC1, p5 -> TC2;
		// 40/50/10 ETS, TC3-7 strict.
		ETS: &ETS{MaxTCs: 8, PrioTC: [8]uint8{3: 1, 5: 2}, Bandwidth: [8]uint8{40, 50, 10}, TSA: [8]TSA{TSAETS, TSAETS, TSAETS}},
		// ETS_RECO: p3 -> TC1, p4 -> TC1, p6 -> TC2; 30/70 ETS.
		Reco: &ETS{Recommendation: true, PrioTC: [8]uint8{3: 1, 4: 1, 6: 2}, Bandwidth: [8]uint8{30, 70}, TSA: [8]TSA{TSAETS, TSAETS}},
		// PFC_34: willing 0, MBC 0, cap 8, priorities 3 and 4.
		PFC: &PFC{Cap: 8, Enabled: 0x18},
		// APP_FULL.
		App: &AppPriority{Entries: []AppEntry{
			{Priority: 3, Selector: AppSelEthertype, Protocol: 0x8906},
			{Priority: 3, Selector: AppSelUDP, Protocol: 4791},
			{Priority: 4, Selector: AppSelTCP, Protocol: 3260},
			{Priority: 2, Selector: AppSelPort, Protocol: 4420},
			{Priority: 3, Selector: AppSelDSCP, Protocol: 26},
			{Priority: 5, Selector: AppSelDSCP, Protocol: 46},
		}},
		Dialect:  DialectIEEE,
		OtherOrg: []string{"00-12-0f/3", "00-12-0f/1"},
	}},
	"lldpd-cee.pcap": {3, frameSummary{
		Header:    EthernetHeader{Dst: NearestBridge, Src: MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}},
		ChassisID: "mac 02:dc:b0:00:00:01", PortID: "mac 02:dc:b0:00:00:01", TTL: 4,
		SystemName: "sw-cee", SystemDescription: "dcbtop fixture: CEE DCBX (dcbx-reference 4.5)", PortDescription: "p0",
		Mgmt: []string{"192.0.2.1"}, Caps: &SystemCapabilities{0x009c, 0x0080},
		CEE:     refCEEWant, // the §4.5 sub-TLVs
		Dialect: DialectCEE, OtherOrg: []string{"00-12-0f/3", "00-12-0f/1"},
	}},
	"lldpd-plain.pcap": {3, frameSummary{
		Header:    EthernetHeader{Dst: NearestBridge, Src: MAC{0x02, 0xdc, 0xb0, 0, 0, 0x01}},
		ChassisID: "mac 02:dc:b0:00:00:01", PortID: "mac 02:dc:b0:00:00:01", TTL: 4,
		SystemName: "sw-plain", SystemDescription: "dcbtop fixture: plain LLDP, no DCBX", PortDescription: "p0",
		Mgmt: []string{"192.0.2.1"}, Caps: &SystemCapabilities{0x009c, 0x0080},
		Dialect: DialectNone, OtherOrg: []string{"00-12-0f/3", "00-12-0f/1"},
	}},
	"lldpd-hostile.pcap": {2, frameSummary{
		Header:    EthernetHeader{Dst: NearestBridge, Src: MAC{0x02, 0xdc, 0xb0, 0, 0, 0x66}},
		ChassisID: "mac 02:dc:b0:00:00:66", PortID: "mac 02:dc:b0:00:00:66", TTL: 4,
		// Escape sequences are kept as sent; the UI sanitizes them.
		SystemName: "evil\x1b[31mhost\x1b[0m", SystemDescription: "\x1b[2J\x1b]0;owned\a\aevil\r\n", PortDescription: "p0",
		Mgmt: []string{"192.0.2.66"}, Caps: &SystemCapabilities{0x009c, 0x0080},
		ETS:     &ETS{MaxTCs: 8, PrioTC: [8]uint8{3: 1, 5: 2}, Bandwidth: [8]uint8{40, 50, 10}, TSA: [8]TSA{TSAETS, TSAETS, TSAETS}},
		Dialect: DialectIEEE, OtherOrg: []string{"00-12-0f/3", "00-12-0f/1"},
	}},
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
