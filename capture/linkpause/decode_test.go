// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

func u64p(v uint64) *uint64 { return &v }

// TestRequests pins the encoder to the hand-written requests.
func TestRequests(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	for _, tt := range []struct {
		name      string
		got, want []byte
	}{
		{"PAUSE_GET with stats", pauseGetRequest("eth0", ethtoolFlagStats), reqPauseStats},
		{"PAUSE_GET plain", pauseGetRequest("eth0", 0), reqPausePlain},
		{"CTRL_GETFAMILY", getFamilyRequest("ethtool"), reqGetFamily},
	} {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The flags word carries ETHTOOL_FLAG_STATS (bit 2) and nothing else.
	if f := reqPauseStats[len(reqPauseStats)-4]; f != 0x04 {
		t.Errorf("header flags = %#x, want ETHTOOL_FLAG_STATS", f)
	}
}

// TestDecodeReply decodes the fixtures' replies into Pauses.
func TestDecodeReply(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	settings := Settings{Autoneg: On, RX: On, TX: Off}
	tests := []struct {
		name       string
		msg        []byte
		statsAsked bool
		want       *Pause
	}{
		{"with stats", replyStats, true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink,
			Stats: Stats{TxFrames: u64p(5), RxFrames: u64p(1<<32 + 2)},
		}},
		{"driver without get_pause_stats", replyNoStatsOp, true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink, Reason: ReasonNoStatsOp,
		}},
		{"stats asked, no nest", replyPlain, true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink, Reason: ReasonNoStatsNest,
		}},
		{"stats not asked", replyPlain, false, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink, Reason: ReasonOldKernelStats,
		}},
		{"padding and unknown attributes", replyPadded, true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink,
			Stats: Stats{TxFrames: u64p(7)}, Reason: ReasonNoRxStat,
		}},
		{"only rx counted", nlfixture.Cat(genlPauseReply, replyHeader, autonegOn, rxOn, txOff,
			[]byte{0x10, 0x00, 0x05, 0x80, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}), true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink,
			Stats: Stats{RxFrames: u64p(0)}, Reason: ReasonNoTxStat,
		}},
		{"settings missing", nlfixture.Cat(genlPauseReply, replyHeader, rxOn, statsBoth), true, &Pause{
			Ifname: "eth0", Ifindex: 2, Settings: Settings{RX: On}, Source: SourceNetlink,
			Stats:  Stats{TxFrames: u64p(5), RxFrames: u64p(1<<32 + 2)},
			Reason: "kernel reply has no ETHTOOL_A_PAUSE_AUTONEG; kernel reply has no ETHTOOL_A_PAUSE_TX",
		}},
		{"no header, nothing else", genlPauseReply, true, &Pause{
			Ifname: "eth0", Source: SourceNetlink,
			Reason: "kernel reply has no ETHTOOL_A_PAUSE_AUTONEG; kernel reply has no ETHTOOL_A_PAUSE_RX; " +
				"kernel reply has no ETHTOOL_A_PAUSE_TX; " + ReasonNoStatsNest,
		}},
		{"last attribute without its padding", nlfixture.Cat(genlPauseReply, autonegOn, rxOn, txOff[:5]), false, &Pause{
			Ifname: "eth0", Settings: settings, Source: SourceNetlink, Reason: ReasonOldKernelStats,
		}},
		{"any non-zero u8 is on", nlfixture.Cat(genlPauseReply, []byte{0x05, 0x00, 0x02, 0x00, 0x02, 0, 0, 0}), false, &Pause{
			Ifname: "eth0", Settings: Settings{Autoneg: On}, Source: SourceNetlink,
			Reason: "kernel reply has no ETHTOOL_A_PAUSE_RX; kernel reply has no ETHTOOL_A_PAUSE_TX; " + ReasonOldKernelStats,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs, err := decodeMessage(tt.msg, ethtoolMsgPauseGetReply, "PAUSE_GET reply")
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeReply(attrs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.pause("eth0", tt.statsAsked)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeReplyMalformed: every broken reply is an error wrapping
// ErrMalformed that names what is wrong, and no values.
func TestDecodeReplyMalformed(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	tests := []struct {
		name  string
		attrs []byte
		want  string // in the error message
	}{
		{"attribute longer than the message", []byte{0x10, 0x00, 0x02, 0x00, 0x01, 0, 0, 0},
			"PAUSE_GET reply: attribute 2 has length 16 with 8 bytes left"},
		{"attribute shorter than its header", []byte{0x02, 0x00, 0x02, 0x00}, "attribute 2 has length 2"},
		{"trailing bytes", nlfixture.Cat(autonegOn, []byte{0x00, 0x00}), "2 trailing bytes"},
		{"truncated in the middle of a header", autonegOn[:3], "3 trailing bytes"},
		{"u8 of 2 bytes", []byte{0x06, 0x00, 0x02, 0x00, 0x01, 0x00, 0, 0}, "ETHTOOL_A_PAUSE_AUTONEG: u8 of 2 bytes"},
		{"u8 of 0 bytes", []byte{0x04, 0x00, 0x04, 0x00}, "ETHTOOL_A_PAUSE_TX: u8 of 0 bytes"},
		{"u64 of 4 bytes", []byte{0x0c, 0x00, 0x05, 0x80, 0x08, 0x00, 0x02, 0x00, 0x05, 0, 0, 0},
			"ETHTOOL_A_PAUSE_STAT_TX_FRAMES: u64 of 4 bytes"},
		{"stats nest cut short", []byte{0x0c, 0x00, 0x05, 0x80, 0x0c, 0x00, 0x03, 0x00, 0x05, 0, 0, 0},
			"ETHTOOL_A_PAUSE_STATS: attribute 3 has length 12 with 8 bytes left"},
		{"header nest cut short", replyHeader[:20], "attribute 1 has length 24 with 20 bytes left"},
		{"ifindex of 2 bytes", []byte{0x0c, 0x00, 0x01, 0x80, 0x06, 0x00, 0x01, 0x00, 0x02, 0x00, 0, 0},
			"ETHTOOL_A_HEADER_DEV_INDEX: u32 of 2 bytes"},
		{"setting twice", nlfixture.Cat(rxOn, rxOn), "ETHTOOL_A_PAUSE_RX: given twice"},
		{"counter twice", []byte{0x1c, 0x00, 0x05, 0x80,
			0x0c, 0x00, 0x02, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0,
			0x0c, 0x00, 0x02, 0x00, 0x06, 0, 0, 0, 0, 0, 0, 0}, "ETHTOOL_A_PAUSE_STAT_TX_FRAMES: given twice"},
		{"stats nest twice", nlfixture.Cat(statsEmpty, statsEmpty), "ETHTOOL_A_PAUSE_STATS: given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodeReply(tt.attrs)
			if !errors.Is(err, ErrMalformed) || r != nil {
				t.Fatalf("decodeReply = %+v, %v; want nil and an error matching ErrMalformed", r, err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tt.want)
			}
		})
	}
}

// TestDecodeMessage checks the generic netlink header of replies.
func TestDecodeMessage(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"shorter than genlmsghdr", []byte{0x16, 0x01}, "PAUSE_GET reply of 2 bytes is shorter than struct genlmsghdr"},
		{"wrong command", reqPauseStats, "PAUSE_GET reply has command 21, want 22"},
	} {
		_, err := decodeMessage(tt.msg, ethtoolMsgPauseGetReply, "PAUSE_GET reply")
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want ErrMalformed with %q", tt.name, err, tt.want)
		}
	}
}

// TestReplyAboutAnotherDevice: a reply naming another interface is refused.
func TestReplyAboutAnotherDevice(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	r, err := decodeReply(replyStats[genlHdrLen:])
	if err != nil {
		t.Fatal(err)
	}
	if p, err := r.pause("eth1", true); !errors.Is(err, ErrMalformed) || p != nil {
		t.Errorf("pause(eth1) = %+v, %v; want ErrMalformed", p, err)
	}
}

// TestDecodeFamily decodes the controller's reply and refuses broken ones.
func TestDecodeFamily(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	id, err := decodeFamily(replyFamily[genlHdrLen:], "ethtool")
	if err != nil || id != testFamily {
		t.Fatalf("decodeFamily = %#x, %v; want %#x", id, err, testFamily)
	}
	for _, tt := range []struct {
		name  string
		attrs []byte
	}{
		{"no ID", replyFamily[genlHdrLen : genlHdrLen+12]},
		{"ID of 4 bytes", []byte{0x08, 0x00, 0x01, 0x00, 0x14, 0, 0, 0}},
		{"another family", nlfixture.Cat([]byte{0x0c, 0x00, 0x02, 0x00, 'n', 'l', '8', '0', '2', '1', '1', 0}, replyFamily[16:24])},
		{"truncated", replyFamily[genlHdrLen : genlHdrLen+14]},
	} {
		if id, err := decodeFamily(tt.attrs, "ethtool"); !errors.Is(err, ErrMalformed) || id != 0 {
			t.Errorf("%s: decodeFamily = %#x, %v; want ErrMalformed", tt.name, id, err)
		}
	}
}

// TestState pins the tri-state's conversions.
func TestState(t *testing.T) {
	if Unknown.Bool() != nil || *On.Bool() != true || *Off.Bool() != false {
		t.Error("Bool")
	}
	if Unknown.String() != "unknown" || On.String() != "on" || Off.String() != "off" || State(9).String() != "unknown" {
		t.Error("String")
	}
	var zero Settings
	if zero.Enabled() != Unknown || zero.Autoneg.Known() {
		t.Error("a zero Settings must be Unknown, not Off")
	}
	for _, tt := range []struct {
		s    Settings
		want State
	}{
		{Settings{RX: Off, TX: Off}, Off},
		{Settings{RX: On}, On},
		{Settings{TX: On, RX: Off}, On},
		{Settings{RX: Off}, Unknown},
	} {
		if got := tt.s.Enabled(); got != tt.want {
			t.Errorf("%+v.Enabled() = %v, want %v", tt.s, got, tt.want)
		}
	}
}
