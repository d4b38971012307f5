// SPDX-License-Identifier: Apache-2.0

package dcbnl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStructLayouts pins the sizes of the C structures and the offsets of
// their fields as this package encodes them (linux/dcbnl.h; gcc gives the
// same on every Linux ABI: ieee_pfc is 136 bytes, not the 133 that
// encoding/binary would make of the Go struct).
func TestStructLayouts(t *testing.T) {
	ets, _ := (&ETS{
		Willing: true, ETSCap: 2, CBS: true,
		TCTxBW: [8]uint8{3: 0x11}, TCRxBW: [8]uint8{3: 0x12}, TCTSA: [8]uint8{3: 0x13}, PrioTC: [8]uint8{3: 0x14},
		TCRecoBW: [8]uint8{3: 0x15}, TCRecoTSA: [8]uint8{3: 0x16}, RecoPrioTC: [8]uint8{3: 0x17},
	}).MarshalBinary()
	if len(ets) != 59 || SizeofIEEEETS != 59 {
		t.Fatalf("struct ieee_ets: %d bytes (SizeofIEEEETS %d), want 59", len(ets), SizeofIEEEETS)
	}
	for off, want := range map[int]byte{0: 1, 1: 2, 2: 1, 3 + 3: 0x11, 11 + 3: 0x12, 19 + 3: 0x13, 27 + 3: 0x14, 35 + 3: 0x15, 43 + 3: 0x16, 51 + 3: 0x17} {
		if ets[off] != want {
			t.Errorf("ieee_ets byte %d = %#x, want %#x", off, ets[off], want)
		}
	}

	pfc, _ := (&PFC{Cap: 1, Enabled: 2, MBC: 3, Delay: 0x0405,
		Requests: [8]uint64{0: 0x1111, 7: 0x7777}, Indications: [8]uint64{0: 0x2222, 7: 0x8888}}).MarshalBinary()
	if len(pfc) != 136 || SizeofIEEEPFC != 136 {
		t.Fatalf("struct ieee_pfc: %d bytes (SizeofIEEEPFC %d), want 136", len(pfc), SizeofIEEEPFC)
	}
	ne := binary.NativeEndian
	checks := []struct {
		what      string
		got, want uint64
	}{
		{"pfc_cap @0", uint64(pfc[0]), 1},
		{"pfc_en @1", uint64(pfc[1]), 2},
		{"mbc @2", uint64(pfc[2]), 3},
		{"padding @3", uint64(pfc[3]), 0},
		{"delay @4", uint64(ne.Uint16(pfc[4:])), 0x0405},
		{"padding @6", uint64(ne.Uint16(pfc[6:])), 0},
		{"requests[0] @8", ne.Uint64(pfc[8:]), 0x1111},
		{"requests[7] @64", ne.Uint64(pfc[64:]), 0x7777},
		{"indications[0] @72", ne.Uint64(pfc[72:]), 0x2222},
		{"indications[7] @128", ne.Uint64(pfc[128:]), 0x8888},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("ieee_pfc %s = %#x, want %#x", c.what, c.got, c.want)
		}
	}

	app, _ := App{Selector: 5, Priority: 3, Protocol: 0x1234}.MarshalBinary()
	if len(app) != 4 || SizeofDCBApp != 4 {
		t.Fatalf("struct dcb_app: %d bytes, want 4", len(app))
	}
	if app[0] != 5 || app[1] != 3 || ne.Uint16(app[2:]) != 0x1234 {
		t.Errorf("struct dcb_app = % x: want selector @0, priority @1, protocol (host order) @2", app)
	}
	if SizeofDCBMsg != 4 || SizeofIEEEMaxrate != 64 || SizeofDCBBuffer != 44 || SizeofCEEPG != 20 || SizeofCEEPFC != 4 || SizeofPeerAppInfo != 2 {
		t.Errorf("sizes: dcbmsg %d, ieee_maxrate %d, dcbnl_buffer %d, cee_pg %d, cee_pfc %d, dcb_peer_app_info %d",
			SizeofDCBMsg, SizeofIEEEMaxrate, SizeofDCBBuffer, SizeofCEEPG, SizeofCEEPFC, SizeofPeerAppInfo)
	}
}

// TestStructRoundTrip: UnmarshalBinary(MarshalBinary(x)) == x, and longer
// input (a newer kernel's structure) decodes the same.
func TestStructRoundTrip(t *testing.T) {
	ets := ETS{Willing: true, ETSCap: 8, TCTxBW: [8]uint8{50, 50}, TCTSA: [8]uint8{2, 2}, PrioTC: [8]uint8{0, 1, 1, 1}, RecoPrioTC: [8]uint8{7: 7}}
	b, _ := ets.MarshalBinary()
	var gotETS ETS
	if err := gotETS.UnmarshalBinary(append(b, 0xaa, 0xbb)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ets, gotETS); diff != "" {
		t.Errorf("ETS round trip (-want +got):\n%s", diff)
	}

	pfc := PFC{Cap: 8, Enabled: 0x08, MBC: 1, Delay: 999, Requests: [8]uint64{1, 2, 3, 4, 5, 6, 7, 8}, Indications: [8]uint64{^uint64(0)}}
	b, _ = pfc.MarshalBinary()
	var gotPFC PFC
	if err := gotPFC.UnmarshalBinary(append(b, make([]byte, 8)...)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pfc, gotPFC); diff != "" {
		t.Errorf("PFC round trip (-want +got):\n%s", diff)
	}

	app := App{Selector: DCB_APP_SEL_PCP, Priority: 7, Protocol: 0xfffe}
	b, _ = app.MarshalBinary()
	var gotApp App
	if err := gotApp.UnmarshalBinary(b); err != nil || gotApp != app {
		t.Errorf("App round trip = %+v, %v; want %+v", gotApp, err, app)
	}
}

// TestUnmarshalShort: every structure decoder rejects input shorter than
// the C structure with an error matching ErrMalformed.
func TestUnmarshalShort(t *testing.T) {
	decoders := []struct {
		what string
		size int
		fn   func([]byte) error
	}{
		{"struct ieee_ets", 59, new(ETS).UnmarshalBinary},
		{"struct ieee_pfc", 136, new(PFC).UnmarshalBinary},
		{"struct dcb_app", 4, new(App).UnmarshalBinary},
		{"struct dcbnl_buffer", 44, new(Buffer).UnmarshalBinary},
		{"struct cee_pg", 20, new(CEEPeerPG).UnmarshalBinary},
		{"struct cee_pfc", 4, new(CEEPeerPFC).UnmarshalBinary},
		{"struct dcb_peer_app_info", 2, new(PeerAppInfo).UnmarshalBinary},
	}
	for _, d := range decoders {
		err := d.fn(make([]byte, d.size-1))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s of %d bytes: %v, want ErrMalformed", d.what, d.size-1, err)
			continue
		}
		want := fmt.Sprintf("malformed dcbnl message: %s needs %d bytes, got %d", d.what, d.size, d.size-1)
		if err.Error() != want {
			t.Errorf("message = %q, want %q", err, want)
		}
		if err := d.fn(make([]byte, d.size)); err != nil {
			t.Errorf("%s of %d bytes: %v", d.what, d.size, err)
		}
	}
}

func TestModeString(t *testing.T) {
	tests := []struct {
		m    Mode
		want string
	}{
		{ModeHost | ModeIEEE, "host agent, IEEE"},
		{ModeHost | ModeCEE, "host agent, CEE"},
		{ModeLLDManaged | ModeIEEE | ModeCEE, "firmware-managed (LLD_MANAGED), IEEE+CEE"},
		{ModeLLDManaged | ModeIEEE, "firmware-managed (LLD_MANAGED), IEEE"},
		{ModeStatic, "static"},
		{ModeHost | ModeIEEE | ModeStatic, "host agent, IEEE, static"},
		{ModeIEEE | ModeCEE, "no host agent (HOST clear), IEEE+CEE"}, // mlx5 in firmware mode
		{ModeHost | ModeLLDManaged | ModeIEEE, "host agent and firmware-managed (HOST+LLD_MANAGED), IEEE"},
		{ModeHost, "host agent"},
		{0, "none"},
		{0x20 | ModeHost, "host agent, unknown bits 0x20"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Mode(%#02x).String() = %q, want %q", uint8(tt.m), got, tt.want)
		}
	}
	m := ModeLLDManaged | ModeCEE
	if m.Host() || !m.LLDManaged() || !m.CEE() || m.IEEE() || m.Static() {
		t.Errorf("Mode(%#x) predicates wrong", uint8(m))
	}
}

func TestFeatFlags(t *testing.T) {
	f := FeatFlags(DCB_FEATCFG_ERROR | DCB_FEATCFG_WILLING)
	if !f.Error() || f.Enabled() || !f.Willing() || f.Advertise() {
		t.Errorf("FeatFlags(%#x) predicates wrong", uint8(f))
	}
}

func ExampleMode_String() {
	fmt.Println(ModeHost | ModeIEEE)
	fmt.Println(ModeLLDManaged | ModeIEEE | ModeCEE)
	// Output:
	// host agent, IEEE
	// firmware-managed (LLD_MANAGED), IEEE+CEE
}
