// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/google/go-cmp/cmp"
)

// A counter that moved faster than any link can count has no rate for
// that interval (MaxCounterRate): a reset or a bad read, not traffic.
func TestPlausibleRate(t *testing.T) {
	for _, tt := range []struct {
		prev, cur uint64
		want      float64
		ok        bool
	}{
		{10, 30, 20, true},
		{0, 200e9, 200e9, true},    // 1.6 Tb/s of bytes
		{5, 1<<64 - 3, 0, false},   // a small negative number read as unsigned
		{0, 2e12, 0, false},        // 2e12 in a second: no link
		{1<<64 - 10, 20, 20, true}, // a decrease stays a reset
	} {
		got, ok := PlausibleRate(tt.prev, tt.cur, time.Second)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PlausibleRate(%d, %d, 1s) = %v, %v; want %v, %v", tt.prev, tt.cur, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRate(t *testing.T) {
	for _, tt := range []struct {
		prev, cur uint64
		dt        time.Duration
		want      float64
	}{
		{10, 30, 2 * time.Second, 10},
		{30, 30, time.Second, 0},
		{30, 5, time.Second, 5},                 // reset
		{1<<64 - 10, 20, 2 * time.Second, 10},   // wrap of a 64-bit counter counts as a reset
		{10, 30, 0, 0},                          // no interval, no rate
		{0, 1000, 500 * time.Millisecond, 2000}, // sub-second interval
	} {
		if got := Rate(tt.prev, tt.cur, tt.dt); got != tt.want {
			t.Errorf("Rate(%d, %d, %v) = %v, want %v", tt.prev, tt.cur, tt.dt, got, tt.want)
		}
	}
}

func TestPrioPattern(t *testing.T) {
	for _, tt := range []struct {
		src  string
		p    int
		want string
	}{
		{"rx_prio3_pause", 3, "rx_prio{p}_pause"},
		{"port.rx_priority_0_xoff_rx", 0, "port.rx_priority_{p}_xoff_rx"},
		{"tx_priority_7_xoff.nic", 7, "tx_priority_{p}_xoff.nic"},
		{"dcbnl ieee_pfc.indications[5]", 5, "dcbnl ieee_pfc.indications[{p}]"},
		{"rx_prio1_pause", 2, "rx_prio1_pause"},
	} {
		if got := prioPattern(tt.src, tt.p); got != tt.want {
			t.Errorf("prioPattern(%q, %d) = %q, want %q", tt.src, tt.p, got, tt.want)
		}
	}
}

func TestECNSampleJSONRoundTrip(t *testing.T) {
	dscp, prio, fromPacket := uint8(48), uint8(6), false
	for _, tt := range []struct {
		in   ECNSample
		want string
	}{
		{ECNSample{Source: "class/net/mlx0/ecn", NotificationPoint: 1<<3 | 1<<4, ReactionPoint: 1 << 3},
			`{"source":"class/net/mlx0/ecn","np_enabled":[3,4],"rp_enabled":[3],"cnp_dscp":null,"cnp_priority":null,"cnp_priority_from_packet":null,"why":null,"hint":null}`},
		{ECNSample{Source: "kernel/debug/mlx5/0000:3b:00.0/cc_params", EnablesUnknown: true, CNPDSCP: &dscp, CNPPriority: &prio, CNPPriorityFromPacket: &fromPacket,
			Hint: "mlxconfig -d 0000:3b:00.0 q ROCE_CC_PRIO_MASK_P1"},
			`{"source":"kernel/debug/mlx5/0000:3b:00.0/cc_params","np_enabled":null,"rp_enabled":null,"cnp_dscp":48,"cnp_priority":6,"cnp_priority_from_packet":false,"why":null,"hint":"mlxconfig -d 0000:3b:00.0 q ROCE_CC_PRIO_MASK_P1"}`},
		{ECNSample{EnablesUnknown: true, Why: "no DCQCN settings readable", Hint: "mlxconfig"},
			`{"source":"","np_enabled":null,"rp_enabled":null,"cnp_dscp":null,"cnp_priority":null,"cnp_priority_from_packet":null,"why":"no DCQCN settings readable","hint":"mlxconfig"}`},
	} {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal = %s, want %s", b, tt.want)
		}
		var out ECNSample
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.in, out); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		if !tt.in.equal(&out) {
			t.Errorf("%+v and its round trip are not equal", tt.in)
		}
	}
	var out ECNSample
	for _, bad := range []string{
		`{"source":"x","np_enabled":[3],"rp_enabled":[],"extra":1}`,
		`{"source":"x","np_enabled":[9],"rp_enabled":[]}`,
		`[]`,
	} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want an error", bad)
		}
	}
}

// TestRoCELandings: where the NIC puts RoCE traffic, by driver and trust.
// A UDP 4791 entry counts only on bnxt_en (bnxt_re takes RoCE's priority
// from it); mlx5's untagged RoCE read by PCP has none (priority 0); irdma
// tags it with rt_tos2priority(ToS); with the trust unknown each way is
// shown and the worse one judged.
func TestRoCELandings(t *testing.T) {
	pfc3 := &dcb.PFC{Cap: 8, Enabled: 1 << 3}
	udp3 := dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}
	dscp26 := dcb.App{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}
	tos := func(v uint8) *RoCEToS { return &RoCEToS{ToS: v, DSCP: v >> 2, ECN: v & 3} }
	three := 3
	untagged := RoCEPortSample{Device: "dev0", Port: 1, RoutableV2: &three,
		GIDs: []RoCEGID{{Index: 3, GID: sp("::ffff:10.0.0.1"), Type: sp("RoCE v2"), Netdev: sp("eth0")}}}
	vlan := untagged
	vlan.GIDs = []RoCEGID{{Index: 3, GID: sp("::ffff:10.0.0.1"), Type: sp("RoCE v2"), Netdev: sp("eth0.100")}}
	for _, tt := range []struct {
		name    string
		driver  string
		trust   []string
		table   []dcb.App
		port    RoCEPortSample
		tos     *RoCEToS
		want    string // landings: "by=priority" joined by spaces, ? for unknown
		verdict PathVerdict
	}{
		{"mlx5, trust unknown, only UDP 4791: both ways land on 0", "mlx5_core", nil, []dcb.App{udp3}, untagged, tos(106), "dscp=0 pcp=0", PathError},
		{"mlx5, trust unknown, DSCP 26 mapped: PCP still 0", "mlx5_core", nil, []dcb.App{dscp26, udp3}, untagged, tos(106), "dscp=3 pcp=0", PathError},
		{"mlx5, DSCP trusted", "mlx5_core", []string{"dscp", "pcp"}, []dcb.App{dscp26}, untagged, tos(106), "dscp=3", PathOK},
		{"mlx5, PCP trusted, untagged", "mlx5_core", []string{"pcp"}, []dcb.App{dscp26}, untagged, tos(106), "pcp=0", PathError},
		{"mlx5, PCP then DSCP, untagged: DSCP decides", "mlx5_core", []string{"pcp", "dscp"}, []dcb.App{dscp26}, untagged, tos(106), "dscp=3", PathOK},
		{"mlx5, PCP trusted, VLAN: its egress map, unknown", "mlx5_core", []string{"pcp"}, nil, vlan, tos(106), "pcp=?", PathUnknown},
		{"DSCP trusted, DSCP not mapped: default 0", "mlx5_core", []string{"dscp"}, nil, untagged, tos(106), "dscp=0", PathError},
		{"bnxt_en: the UDP 4791 entry", "bnxt_en", nil, []dcb.App{udp3}, untagged, nil, "app=3", PathOK},
		{"ice, PCP: rt_tos2priority(106) = 2", "ice", []string{"pcp"}, nil, untagged, tos(106), "pcp=2", PathError},
		{"ice, PCP, ToS unknown", "ice", []string{"pcp"}, nil, untagged, nil, "pcp=?", PathUnknown},
		{"ice, DSCP trusted: its DSCP map", "ice", []string{"dscp"}, []dcb.App{dscp26}, untagged, tos(106), "dscp=3", PathOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.port
			r.DefaultToS = tt.tos
			f := landingFacts{ifname: "eth0", table: tt.table, tableFrom: "the table", r: &r, driver: tt.driver}
			if tt.trust != nil {
				f.qos = &PortQoSSample{Trust: tt.trust}
			}
			l := landOn(f, pfc3)
			var got []string
			for _, x := range l.all {
				p := "?"
				if x.Priority != nil {
					p = fmt.Sprint(*x.Priority)
				}
				got = append(got, fmt.Sprintf("%s=%s", x.By, p))
				if x.How == "" {
					t.Errorf("%s landing without a how", x.By)
				}
			}
			if s := strings.Join(got, " "); s != tt.want || l.verdict != tt.verdict {
				t.Errorf("landings %s (%s), want %s (%s): %s", s, l.verdict, tt.want, tt.verdict, LandingWords(l.all))
			}
		})
	}
	if got := []int{rtTOS2Priority(0), rtTOS2Priority(106), rtTOS2Priority(0x10), rtTOS2Priority(0x18)}; !slices.Equal(got, []int{0, 2, 6, 4}) {
		t.Errorf("rt_tos2priority of 0, 106, 0x10, 0x18: %v, want 0 2 6 4", got)
	}
}

func sp(s string) *string { return &s }

// An interface without pause counters keeps no pause history (a host of
// a thousand veths kept 14 MB of empty rows); its first two samples with
// PFC counters make the ring, one row for each interval after the first.
func TestStateHistoryOnlyWithPFC(t *testing.T) {
	var ls State
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		ls.Sample(Sample{Interface: "veth0", At: at.Add(time.Duration(i) * time.Second), Interval: time.Second})
	}
	if ls.history != nil || ls.n != 0 {
		t.Errorf("no pause counters, 5 samples: history of %d rows, %d set; want none", len(ls.history), ls.n)
	}
	for i := range 3 {
		ls.Sample(Sample{Interface: "veth0", At: at.Add(time.Duration(5+i) * time.Second), Interval: time.Second, PFC: &PFCSample{}})
	}
	if len(ls.history) != HistorySize(time.Second) || ls.n != 2 {
		t.Errorf("3 samples with PFC counters: history of %d rows, %d set; want %d, 2", len(ls.history), ls.n, HistorySize(time.Second))
	}
	if h := ls.Snapshot().PauseHistory[3]; len(h) != 2 {
		t.Errorf("pause history of priority 3: %v, want 2 points", h)
	}
}

// count says one thing in the singular, the rest in the plural.
func TestCount(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 pauses", 1: "1 pause", 2: "2 pauses"} {
		if got := count(n, "pause"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
