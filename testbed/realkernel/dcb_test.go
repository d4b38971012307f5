// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// dcbETS is `dcb -j ets show`'s object (iproute2 dcb/dcb_ets.c).
type dcbETS struct {
	Willing bool      `json:"willing"`
	ETSCap  int       `json:"ets_cap"`
	CBS     bool      `json:"cbs"`
	TCBW    [8]int    `json:"tc_bw"`
	TCTSA   [8]string `json:"tc_tsa"`
	PrioTC  [8]int    `json:"prio_tc"`
}

// dcbPFC is `dcb -j pfc show`'s object (dcb/dcb_pfc.c).
type dcbPFC struct {
	PFCCap  int     `json:"pfc_cap"`
	Delay   int     `json:"delay"`
	PrioPFC [8]bool `json:"prio_pfc"`
}

// dcbApp is `dcb -j app show`'s object (dcb/dcb_app.c): pairs of
// protocol and priority per selector.
type dcbApp struct {
	Ethtype [][2]int `json:"ethtype_prio"`
	Stream  [][2]int `json:"stream_port_prio"`
	Dgram   [][2]int `json:"dgram_port_prio"`
	Port    [][2]int `json:"port_prio"`
	DSCP    [][2]int `json:"dscp_prio"`
}

// dcbtopETS returns dcb's ETS as dcbtop's parameters say it.
func (e dcbETS) params() *dcb.ETS {
	out := &dcb.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: uint8(e.ETSCap)}
	for i := range 8 {
		out.PrioTC[i], out.TCBandwidth[i] = uint8(e.PrioTC[i]), uint8(e.TCBW[i])
		switch e.TCTSA[i] {
		case "strict":
			out.TSA[i] = lldp.TSAStrict
		case "cbs":
			out.TSA[i] = lldp.TSACBS
		case "ets":
			out.TSA[i] = lldp.TSAETS
		case "vendor":
			out.TSA[i] = lldp.TSAVendor
		}
	}
	return out
}

// enabled returns the priorities dcb shows PFC on.
func (p dcbPFC) enabled() dcb.PrioSet {
	var s dcb.PrioSet
	for i, on := range p.PrioPFC {
		if on {
			s |= 1 << i
		}
	}
	return s
}

// apps returns dcb's APP table as dcbtop's entries, sorted.
func (a dcbApp) apps() []dcb.App {
	var out []dcb.App
	add := func(sel lldp.AppSelector, pairs [][2]int) {
		for _, p := range pairs {
			out = append(out, dcb.App{Selector: sel, Protocol: uint16(p[0]), Priority: uint8(p[1])})
		}
	}
	add(lldp.AppSelEthertype, a.Ethtype)
	add(lldp.AppSelTCP, a.Stream)
	add(lldp.AppSelUDP, a.Dgram)
	add(lldp.AppSelPort, a.Port)
	add(lldp.AppSelDSCP, a.DSCP)
	return sortApps(out)
}

func sortApps(a []dcb.App) []dcb.App {
	a = slices.Clone(a)
	slices.SortFunc(a, func(x, y dcb.App) int {
		return strings.Compare(fmt.Sprint(x.Selector, x.Protocol, x.Priority), fmt.Sprint(y.Selector, y.Protocol, y.Priority))
	})
	return a
}

// What iproute2's dcb writes through the real kernel's DCB netlink, dcbtop
// reads: ETS, PFC with its delay, the APP table, the rate limits, the
// receive buffer and the DCBX mode, each as dcb itself reads it back.
func TestReadsWhatDcbWrote(t *testing.T) {
	freshDevice(t)
	dcbSet(t, "ets", "set", "dev", "dcbt0", "tc-tsa", "0:ets", "1:ets", "2:strict", "3:strict", "4:strict", "5:strict", "6:strict", "7:strict",
		"tc-bw", "0:40", "1:60", "prio-tc", "3:1", "4:1")
	dcbSet(t, "pfc", "set", "dev", "dcbt0", "prio-pfc", "3:on", "delay", "4096")
	dcbSet(t, "app", "add", "dev", "dcbt0", "dscp-prio", "26:3", "ethtype-prio", "0x8915:3", "dgram-port-prio", "4791:3")
	dcbSet(t, "maxrate", "set", "dev", "dcbt0", "tc-maxrate", "1:10Gbit")
	dcbSet(t, "buffer", "set", "dev", "dcbt0", "prio-buffer", "3:1", "buffer-size", "0:131072", "1:131072")

	var ets dcbETS
	var pfc dcbPFC
	var app dcbApp
	var maxrate struct {
		TCMaxrate [8]uint64 `json:"tc_maxrate"`
	}
	var buffer struct {
		PrioBuffer [8]uint8  `json:"prio_buffer"`
		Size       [8]uint32 `json:"buffer_size"`
		Total      uint32    `json:"total_size"`
	}
	var dcbx map[string]bool
	dcbJSON(t, &ets, "ets", "dcbt0")
	dcbJSON(t, &pfc, "pfc", "dcbt0")
	dcbJSON(t, &app, "app", "dcbt0")
	dcbJSON(t, &maxrate, "maxrate", "dcbt0")
	dcbJSON(t, &buffer, "buffer", "dcbt0")
	dcbJSON(t, &dcbx, "dcbx", "dcbt0")

	in := snapshot(t, "dcbt0")
	if in.LocalSource != "dcbnl" {
		t.Errorf("local_source %q, want dcbnl (the driver's, read through DCB netlink)", in.LocalSource)
	}
	if in.Local == nil {
		t.Fatal("no local parameters read")
	}
	if diff := cmp.Diff(ets.params(), in.Local.ETS); diff != "" {
		t.Errorf("ETS: dcbtop differs from dcb (-dcb +dcbtop):\n%s", diff)
	}
	if in.Local.PFC == nil || in.Local.PFC.Enabled != pfc.enabled() || int(in.Local.PFC.Cap) != pfc.PFCCap {
		t.Errorf("PFC: dcbtop %+v, dcb %+v", in.Local.PFC, pfc)
	}
	if diff := cmp.Diff(app.apps(), sortApps(in.Local.App)); diff != "" {
		t.Errorf("APP: dcbtop differs from dcb (-dcb +dcbtop):\n%s", diff)
	}
	if in.Counters == nil || in.Counters.QoS == nil {
		t.Fatalf("no QoS read (counters %+v)", in.Counters)
	}
	q := in.Counters.QoS
	if q.PFCDelay == nil || int(*q.PFCDelay) != pfc.Delay {
		t.Errorf("PFC delay: dcbtop %v, dcb %d", q.PFCDelay, pfc.Delay)
	}
	// The kernel's struct ieee_maxrate counts kbit/s (mlx5e_dcbnl_ieee_
	// setmaxrate divides by MLX5E_1GB, 1,000,000), which dcbtop shows as
	// the driver holds them. iproute2's dcb before its October 2025 fix
	// writes and reads bytes per second there, so its own numbers are no
	// judge: the driver's are (debugfs maxrate).
	var held [8]uint64
	if _, err := fmt.Sscan(readDebugfs(t, "dcbt0", "maxrate"), &held[0], &held[1], &held[2], &held[3], &held[4], &held[5], &held[6], &held[7]); err != nil {
		t.Fatal(err)
	}
	if q.MaxRateKbps == nil || *q.MaxRateKbps != held {
		t.Errorf("maxrate: dcbtop %v kbit/s, the driver holds %v", q.MaxRateKbps, held)
	}
	if held[1] != 10_000_000 {
		t.Logf("dcb maxrate set tc-maxrate 1:10Gbit wrote %d to the kernel's kbit/s (dcb -j shows %d): this dcb predates iproute2's unit fix", held[1], maxrate.TCMaxrate[1])
	}
	if q.Buffer == nil || q.Buffer.PrioBuffer != buffer.PrioBuffer || q.Buffer.SizeBytes != buffer.Size || q.Buffer.TotalBytes != buffer.Total {
		t.Errorf("buffer: dcbtop %+v, dcb %+v", q.Buffer, buffer)
	}
	if in.DCBXMode == nil || !dcbx["host"] || !strings.Contains(*in.DCBXMode, "host") || !strings.Contains(*in.DCBXMode, "IEEE") || !strings.Contains(*in.DCBXMode, "CEE") {
		t.Errorf("DCBX mode: dcbtop %v, dcb %v", in.DCBXMode, dcbx)
	}
}

// What dcbtop apply writes through the real kernel, iproute2's dcb reads
// back: ETS, PFC and the APP table, and an APP entry the file no longer
// has is deleted.
func TestDcbReadsWhatApplyWrote(t *testing.T) {
	freshDevice(t)
	dcbSet(t, "app", "add", "dev", "dcbt0", "dscp-prio", "10:1")
	params := `{"ets": {"willing": false, "cbs": false, "max_tcs": 8, "prio_tc": [0,0,0,1,0,0,0,0],
		"tc_bandwidth": [50,50,0,0,0,0,0,0], "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
		"pfc": {"willing": false, "mbc": false, "cap": 8, "enabled": [3]},
		"app": [{"selector": "dscp", "protocol": 26, "priority": 3}, {"selector": "udp-port", "protocol": 4791, "priority": 3}]}`
	code, stdout, stderr := dcbtop(t, params, "apply", "-i", "dcbt0", "-")
	if code != 0 {
		t.Fatalf("dcbtop apply: exit %d\n%s%s", code, stdout, stderr)
	}
	var ets dcbETS
	var pfc dcbPFC
	var app dcbApp
	dcbJSON(t, &ets, "ets", "dcbt0")
	dcbJSON(t, &pfc, "pfc", "dcbt0")
	dcbJSON(t, &app, "app", "dcbt0")
	want := &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50},
		TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict}}
	if diff := cmp.Diff(want, ets.params()); diff != "" {
		t.Errorf("dcb reads another ETS than applied (-applied +dcb):\n%s", diff)
	}
	if pfc.enabled() != 1<<3 {
		t.Errorf("dcb reads PFC on %v, want priority 3 alone", pfc.enabled())
	}
	wantApps := sortApps([]dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}, {Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}})
	if diff := cmp.Diff(wantApps, app.apps()); diff != "" {
		t.Errorf("dcb reads another APP table than applied (-applied +dcb):\n%s", diff)
	}
}

// A driver that refuses a write (the kernel's DCB netlink answers the set
// with the driver's error in DCB_ATTR_IEEE, not as a netlink error):
// dcbtop apply says it was not applied and exits non-zero, and the NIC
// keeps what it had. iproute2's dcb exits 0 for the same refusal.
func TestApplyRefusedByTheDriver(t *testing.T) {
	freshDevice(t)
	debugfs(t, "dcbt0", "fail_next", "22") // EINVAL, once
	code, stdout, stderr := dcbtop(t, `{"pfc": {"willing": false, "mbc": false, "cap": 8, "enabled": [3]}}`, "apply", "-i", "dcbt0", "-")
	if code == 0 {
		t.Errorf("dcbtop apply of a refused PFC exited 0:\n%s%s", stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "rejected") || !strings.Contains(stdout+stderr, "invalid argument") {
		t.Errorf("dcbtop apply does not say the write was refused:\n%s%s", stdout, stderr)
	}
	var pfc dcbPFC
	dcbJSON(t, &pfc, "pfc", "dcbt0")
	if pfc.enabled() != 0 {
		t.Errorf("PFC on %v after a refused write, want none", pfc.enabled())
	}
	// iproute2's dcb, for the record: the same refusal.
	debugfs(t, "dcbt0", "fail_next", "22")
	if out, err := runErr("dcb", "pfc", "set", "dev", "dcbt0", "prio-pfc", "3:on"); err == nil {
		t.Logf("dcb pfc set exits 0 although the driver refused it (%q)", out)
	}
}

// A NIC whose firmware runs DCBX (LLD_MANAGED, as mlx5's firmware agent):
// dcbtop says so (firmware-dcbx, the DCBX mode dcb shows), refuses to
// write, and the NIC keeps what it had.
func TestFirmwareManaged(t *testing.T) {
	freshDevice(t)
	debugfs(t, "dcbt0", "lld_managed", "1")
	var dcbx map[string]bool
	dcbJSON(t, &dcbx, "dcbx", "dcbt0")
	if !dcbx["lld_managed"] || dcbx["host"] {
		t.Fatalf("dcb dcbx show: %v, want lld_managed", dcbx)
	}
	in := snapshot(t, "dcbt0")
	if in.DCBXMode == nil || !strings.Contains(strings.ToLower(*in.DCBXMode), "firmware") && !strings.Contains(strings.ToLower(*in.DCBXMode), "lld") {
		t.Errorf("DCBX mode %v, want the firmware's (dcb: %v)", in.DCBXMode, dcbx)
	}
	if !slices.ContainsFunc(in.Diagnostics, func(d diag.Diagnostic) bool { return d.Code == diag.CodeFirmwareDCBX }) {
		t.Errorf("no firmware-dcbx diagnostic: %+v", in.Diagnostics)
	}
	code, stdout, stderr := dcbtop(t, `{"pfc": {"willing": false, "mbc": false, "cap": 8, "enabled": [3]}}`, "apply", "-i", "dcbt0", "-")
	if code == 0 {
		t.Errorf("dcbtop apply on a firmware-managed NIC exited 0:\n%s%s", stdout, stderr)
	}
	var pfc dcbPFC
	dcbJSON(t, &pfc, "pfc", "dcbt0")
	if pfc.enabled() != 0 {
		t.Errorf("PFC on %v after apply on a firmware-managed NIC, want none", pfc.enabled())
	}
}

// ethtool's per-priority statistics (ethtool -S, mlx5's names), its link
// PAUSE settings (ethtool -a) and their statistics (ethtool
// --include-statistics -a) are what dcbtop's counters show.
func TestEthtoolAgrees(t *testing.T) {
	freshDevice(t)
	debugfs(t, "dcbt0", "pause", "rx 3 500 12000")
	debugfs(t, "dcbt0", "pause", "tx 4 70 900")
	debugfs(t, "dcbt0", "pause", "rx link 9")
	run(t, "ethtool", "-A", "dcbt0", "rx", "on", "tx", "off")

	stats := map[string]uint64{}
	for _, line := range strings.Split(run(t, "ethtool", "-S", "dcbt0"), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if n, err := strconv.ParseUint(v, 10, 64); ok && err == nil {
			stats[k] = n
		}
	}
	pauseA := run(t, "ethtool", "--include-statistics", "-a", "dcbt0")

	in := snapshot(t, "dcbt0")
	if in.Counters == nil || len(in.Counters.PFC.Priorities) != 8 {
		t.Fatalf("no PFC counters: %+v", in.Counters)
	}
	for p := range 8 {
		pp := in.Counters.PFC.Priorities[p]
		for _, c := range []struct {
			name string
			got  *uint64
		}{
			{fmt.Sprintf("rx_prio%d_pause", p), pp.RxPause},
			{fmt.Sprintf("tx_prio%d_pause", p), pp.TxPause},
			{fmt.Sprintf("rx_prio%d_pause_duration", p), pp.RxPauseDurationUs},
			{fmt.Sprintf("tx_prio%d_pause_duration", p), pp.TxPauseDurationUs},
		} {
			if want, ok := stats[c.name]; !ok || c.got == nil || *c.got != want {
				t.Errorf("%s: ethtool -S %d (%v), dcbtop %v", c.name, want, ok, ptr(c.got))
			}
		}
	}
	if stats["rx_prio3_pause"] != 500 || stats["tx_prio4_pause"] != 70 {
		t.Errorf("ethtool -S does not show what the device counted: %v", stats)
	}
	lp := in.Counters.LinkPause
	if lp == nil || lp.RX == nil || !*lp.RX || lp.TX == nil || *lp.TX {
		t.Errorf("link PAUSE: dcbtop %+v, ethtool -a:\n%s", lp, pauseA)
	}
	if !strings.Contains(pauseA, "rx_pause_frames: 9") && !strings.Contains(pauseA, "rx_pause_frames:  9") {
		t.Logf("ethtool --include-statistics -a:\n%s", pauseA)
	}
	if lp == nil || lp.RxFrames == nil || *lp.RxFrames != 9 {
		t.Errorf("link PAUSE frames received: dcbtop %v, want 9 (ethtool:\n%s)", lp, pauseA)
	}
}

func ptr(p *uint64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The host QoS that dcbtop apply writes straight to the kernel (the
// receive buffer split, the PFC delay, DSCP APP entries), iproute2's dcb
// reads back; and a -w recording of the run replays to the counters and
// QoS the live run showed (what dcbtop records is what it read).
func TestDcbReadsWhatApplyQoSWrote(t *testing.T) {
	freshDevice(t)
	code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--buffer", "0,0,0,1,0,0,0,0:131072,131072", "--pfc-delay", "32", "--dscp", "26=3,46=5")
	if code != 0 {
		t.Fatalf("dcbtop apply --buffer --pfc-delay --dscp: exit %d\n%s%s", code, stdout, stderr)
	}
	var buffer struct {
		PrioBuffer [8]uint8  `json:"prio_buffer"`
		Size       [8]uint32 `json:"buffer_size"`
	}
	var pfc dcbPFC
	var app dcbApp
	dcbJSON(t, &buffer, "buffer", "dcbt0")
	dcbJSON(t, &pfc, "pfc", "dcbt0")
	dcbJSON(t, &app, "app", "dcbt0")
	if buffer.PrioBuffer != [8]uint8{0, 0, 0, 1} || buffer.Size[0] != 131072 || buffer.Size[1] != 131072 {
		t.Errorf("dcb reads the buffer %+v, want priority 3 on buffer 1, 128 KiB each", buffer)
	}
	if pfc.Delay != 32 {
		t.Errorf("dcb reads PFC delay %d, want 32", pfc.Delay)
	}
	wantApps := sortApps([]dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 46, Priority: 5}})
	if diff := cmp.Diff(wantApps, app.apps()); diff != "" {
		t.Errorf("dcb reads another APP table than applied (-applied +dcb):\n%s", diff)
	}

	debugfs(t, "dcbt0", "pause", "rx 3 42 800")
	rec := filepath.Join(t.TempDir(), "run.pcapng")
	live := snapshot(t, "dcbt0", "-w", rec)
	replayed := replaySnapshot(t, rec, "dcbt0")
	if live.Counters == nil || replayed.Counters == nil {
		t.Fatalf("counters live %v, replayed %v", live.Counters != nil, replayed.Counters != nil)
	}
	if diff := cmp.Diff(live.Counters.QoS, replayed.Counters.QoS); diff != "" {
		t.Errorf("the replay's QoS differs from the live run's (-live +replay):\n%s", diff)
	}
	lp, rp := live.Counters.PFC.Priorities, replayed.Counters.PFC.Priorities
	if len(lp) != 8 || len(rp) != 8 || ptr(lp[3].RxPause) != uint64(42) || ptr(rp[3].RxPause) != uint64(42) {
		t.Errorf("priority 3's rx pauses: live %v, replayed %v, want 42 (ethtool -S)", ptrAt(lp, 3), ptrAt(rp, 3))
	}
}

// replaySnapshot returns interface dev of `dcbtop -r FILE --json`.
func replaySnapshot(t *testing.T, file, dev string) engine.Interface {
	t.Helper()
	code, stdout, stderr := dcbtop(t, "", "-r", file, "--json")
	if code != 0 {
		t.Fatalf("dcbtop -r %s --json: exit %d\n%s", file, code, stderr)
	}
	return snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r --json", stdout), dev)
}

func ptrAt(ps []lossless.PrioPause, i int) any {
	if i >= len(ps) {
		return nil
	}
	return ptr(ps[i].RxPause)
}

// dcbMaxrate is `dcb -j maxrate show`'s object (iproute2 dcb/dcb_maxrate.c):
// the eight rates as that dcb converts them. Before iproute2's unit fix
// (October 2025) dcb shows struct ieee_maxrate's u64s unconverted (the
// kernel's kbit/s read as bytes per second); after it, bytes per second
// converted from kbit/s (× 125).
type dcbMaxrate struct {
	TCMaxrate [8]uint64 `json:"tc_maxrate"`
}

// heldMaxrate returns the rate limits as the DCB test device holds them
// (debugfs maxrate: struct ieee_maxrate's u64s, kbit/s).
func heldMaxrate(t *testing.T, dev string) [8]uint64 {
	t.Helper()
	var held [8]uint64
	if _, err := fmt.Sscan(readDebugfs(t, dev, "maxrate"), &held[0], &held[1], &held[2], &held[3], &held[4], &held[5], &held[6], &held[7]); err != nil {
		t.Fatal(err)
	}
	return held
}

// dcbDCBX is `dcb -j dcbx show`'s object (dcb/dcb_dcbx.c): the mode's bits
// by name, each only when set (decode into a zero value).
type dcbDCBX struct {
	Host       bool `json:"host"`
	LLDManaged bool `json:"lld_managed"`
	CEE        bool `json:"cee"`
	IEEE       bool `json:"ieee"`
}

// What dcbtop apply --maxrate and --dcbx-mode write through the real
// kernel, the driver holds and iproute2's dcb reads back: the rate limits
// as struct ieee_maxrate's kbit/s (judged by the driver's own u64s, and by
// dcb knowing which side of its unit fix it is), the DCBX mode both ways
// (dcb dcbx show), each previewed, undone by the command it prints, and a
// firmware-managed NIC's refusal of host writes before anything is sent.
func TestApplyMaxrateAndDCBXMode(t *testing.T) {
	freshDevice(t)
	code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--maxrate", "1:10gbit,3:25gbit", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "dcbt0: maxrate TC1 unlimited → 10 Gbit/s\n") || !strings.Contains(stdout, "dry run: nothing written") {
		t.Fatalf("dcbtop apply --maxrate --dry-run: exit %d\n%s%s", code, stdout, stderr)
	}
	if held := heldMaxrate(t, "dcbt0"); held != ([8]uint64{}) {
		t.Fatalf("the dry run wrote %v", held)
	}
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--maxrate", "1:10gbit,3:25gbit")
	if code != 0 || !strings.Contains(stdout, "dcbt0: written and read back: rate limits\n") ||
		!strings.Contains(stdout, "dcbt0: to undo: dcbtop apply -i dcbt0 --maxrate 1:0,3:0\n") {
		t.Fatalf("dcbtop apply --maxrate: exit %d\n%s%s", code, stdout, stderr)
	}
	want := [8]uint64{1: 10_000_000, 3: 25_000_000}
	if held := heldMaxrate(t, "dcbt0"); held != want {
		t.Errorf("the driver holds %v kbit/s, want %v", held, want)
	}
	var mr dcbMaxrate
	dcbJSON(t, &mr, "maxrate", "dcbt0")
	text := run(t, "dcb", "maxrate", "show", "dev", "dcbt0")
	switch mr.TCMaxrate {
	case want: // before the fix: the kbit/s shown as bytes per second
		t.Logf("dcb predates iproute2's maxrate unit fix: it shows the kernel's kbit/s as bytes per second: %s", strings.TrimSpace(text))
		if !strings.Contains(text, "1:80Mbit") || !strings.Contains(text, "3:200Mbit") {
			t.Errorf("dcb maxrate show: %q, want 1:80Mbit and 3:200Mbit (10,000,000 and 25,000,000 read as bytes per second)", text)
		}
	case [8]uint64{1: 10_000_000 * 125, 3: 25_000_000 * 125}: // with the fix: bytes per second
		if !strings.Contains(text, "1:10Gbit") || !strings.Contains(text, "3:25Gbit") {
			t.Errorf("dcb maxrate show: %q, want 1:10Gbit and 3:25Gbit", text)
		}
	default:
		t.Errorf("dcb -j maxrate show: %v, the driver %v kbit/s", mr.TCMaxrate, want)
	}
	in := snapshot(t, "dcbt0")
	if in.Counters == nil || in.Counters.QoS == nil || in.Counters.QoS.MaxRateKbps == nil || *in.Counters.QoS.MaxRateKbps != want {
		t.Errorf("dcbtop --json reads the rate limits %+v, want %v", in.Counters, want)
	}
	if code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--maxrate", "1:0,3:0"); code != 0 || heldMaxrate(t, "dcbt0") != ([8]uint64{}) {
		t.Errorf("undo: exit %d, the driver holds %v\n%s%s", code, heldMaxrate(t, "dcbt0"), stdout, stderr)
	}

	// The DCBX mode: the device starts host-managed, IEEE and CEE.
	var dx dcbDCBX
	dcbJSON(t, &dx, "dcbx", "dcbt0")
	if !dx.Host || dx.LLDManaged || !dx.IEEE || !dx.CEE {
		t.Fatalf("dcb dcbx show: %+v, want host, ieee and cee", dx)
	}
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--dcbx-mode", "lld-managed")
	if code != 0 || !strings.Contains(stdout, "dcbt0: DCBX mode host agent, IEEE+CEE → firmware-managed (LLD_MANAGED)\n") ||
		!strings.Contains(stdout, "after it: + firmware-dcbx") || !strings.Contains(stdout, "dcbt0: written and read back: DCBX mode\n") ||
		!strings.Contains(stdout, "dcbt0: to undo: dcbtop apply -i dcbt0 --dcbx-mode host\n") || !strings.Contains(stdout, "named IEEE and CEE") {
		t.Fatalf("dcbtop apply --dcbx-mode lld-managed: exit %d\n%s%s", code, stdout, stderr)
	}
	dx = dcbDCBX{}
	dcbJSON(t, &dx, "dcbx", "dcbt0")
	if dx.Host || !dx.LLDManaged || !dx.IEEE || dx.CEE {
		t.Errorf("dcb dcbx show after lld-managed: %+v, want lld_managed and ieee", dx)
	}
	// A firmware-managed NIC: host writes are refused before any is sent.
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--maxrate", "2:1gbit")
	if code != 1 || !strings.Contains(stderr, "firmware") || heldMaxrate(t, "dcbt0") != ([8]uint64{}) {
		t.Errorf("--maxrate on a firmware-managed NIC: exit %d, the driver holds %v\n%s%s", code, heldMaxrate(t, "dcbt0"), stdout, stderr)
	}
	// The undo, with the rate limits after it: DCBX goes to the host first.
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--dcbx-mode", "host", "--maxrate", "2:1gbit")
	if code != 0 || !strings.Contains(stdout, "written and read back: DCBX mode, rate limits") {
		t.Errorf("--dcbx-mode host --maxrate: exit %d\n%s%s", code, stdout, stderr)
	}
	dx = dcbDCBX{}
	dcbJSON(t, &dx, "dcbx", "dcbt0")
	if !dx.Host || dx.LLDManaged || !dx.IEEE || dx.CEE {
		t.Errorf("dcb dcbx show after host: %+v, want host and ieee", dx)
	}
	if held := heldMaxrate(t, "dcbt0"); held != ([8]uint64{2: 1_000_000}) {
		t.Errorf("the driver holds %v, want TC2 at 1,000,000 kbit/s", held)
	}
	if in := snapshot(t, "dcbt0"); in.DCBXMode == nil || *in.DCBXMode != "host agent, IEEE" {
		t.Errorf("dcbtop --json: DCBX mode %v, want host agent, IEEE", in.DCBXMode)
	}
	// Nothing to change.
	if code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--dcbx-mode", "host,ieee"); code != 0 || !strings.Contains(stdout, "nothing to change") {
		t.Errorf("--dcbx-mode host,ieee again: exit %d\n%s%s", code, stdout, stderr)
	}
}

// ethtoolStormTimeout is what `ethtool --get-tunable DEV
// pfc-prevention-tout` prints for the PFC storm prevention timeout: its
// last word ("100"; ethtool may print "off" for 0).
func ethtoolStormTimeout(t *testing.T, dev string) string {
	t.Helper()
	out := run(t, "ethtool", "--get-tunable", dev, "pfc-prevention-tout")
	f := strings.Fields(out)
	if len(f) == 0 || !strings.Contains(out, "pfc-prevention-tout") {
		t.Fatalf("ethtool --get-tunable %s pfc-prevention-tout: %q", dev, out)
	}
	return f[len(f)-1]
}

// The PFC storm prevention timeout (the ethtool tunable
// ETHTOOL_PFC_PREVENTION_TOUT, dcbtest taking it as mlx5 does): dcbtop
// reads what ethtool reads and wrote, beside the storm counters and in a
// recording's replay; dcbtop apply --pfc-storm-timeout writes what
// ethtool then reads, auto reading back as the driver's 100 ms, undone by
// the command it prints; a value the driver refuses (EINVAL) is said in
// one line, the driver keeping its timeout.
func TestPFCStormTimeout(t *testing.T) {
	freshDevice(t)
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "100" {
		t.Fatalf("ethtool reads the timeout %q, want dcbtest's 100", got)
	}
	in := snapshot(t, "dcbt0")
	if in.Counters == nil || in.Counters.PFC.StormPreventionTimeoutMs == nil || *in.Counters.PFC.StormPreventionTimeoutMs != 100 {
		t.Fatalf("dcbtop --json: storm_prevention_timeout_ms %v, want 100 (ethtool)", in.Counters)
	}
	code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--pfc-storm-timeout", "300")
	if code != 0 || !strings.Contains(stdout, "dcbt0: PFC storm prevention timeout 100 ms → 300 ms\n") ||
		!strings.Contains(stdout, "dcbt0: written and read back: PFC storm prevention timeout\n") ||
		!strings.Contains(stdout, "dcbt0: to undo: dcbtop apply -i dcbt0 --pfc-storm-timeout 100\n") {
		t.Fatalf("dcbtop apply --pfc-storm-timeout 300: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "300" {
		t.Errorf("ethtool reads %q after the apply, want 300", got)
	}
	if code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--pfc-storm-timeout", "off"); code != 0 || !strings.Contains(stdout, "300 ms → off") {
		t.Errorf("--pfc-storm-timeout off: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "0" && got != "off" {
		t.Errorf("ethtool reads %q after off, want 0", got)
	}
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--pfc-storm-timeout", "auto")
	if code != 0 || !strings.Contains(stdout, "auto: the driver reads back its default, 100 ms") {
		t.Errorf("--pfc-storm-timeout auto: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = dcbtop(t, "", "apply", "-i", "dcbt0", "--pfc-storm-timeout", "50")
	if code != 1 || !strings.Contains(stderr, "the driver refused 50 ms") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--pfc-storm-timeout 50 (dcbtest takes 80-8000): exit %d\n%s%s", code, stdout, stderr)
	}
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "100" {
		t.Errorf("ethtool reads %q after a refused write, want 100", got)
	}

	// What ethtool writes, dcbtop reads, live and in the replay of its
	// recording.
	run(t, "ethtool", "--set-tunable", "dcbt0", "pfc-prevention-tout", "500")
	rec := filepath.Join(t.TempDir(), "run.pcapng")
	live := snapshot(t, "dcbt0", "-w", rec)
	replayed := replaySnapshot(t, rec, "dcbt0")
	for name, in := range map[string]engine.Interface{"live": live, "replayed": replayed} {
		if in.Counters == nil || in.Counters.PFC.StormPreventionTimeoutMs == nil || *in.Counters.PFC.StormPreventionTimeoutMs != 500 {
			t.Errorf("%s: storm_prevention_timeout_ms %v, want 500 (ethtool --set-tunable)", name, in.Counters)
		}
	}
}

// The guest's kernel (Debian 12's 6.1) predates the APP rewrite table
// (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3): its DCB_CMD_IEEE_GET reply has no
// such attribute, dcbtop's snapshot says qos.rewrite null, and dcbtop
// apply --rewr-dscp says so in one line and writes nothing. (A 6.3
// kernel's answers are the nltest fake's: capture/kernel TestApplyQoS.)
func TestNoRewriteTable(t *testing.T) {
	freshDevice(t)
	real, err := dcbnl.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	ie, err := real.IEEE("dcbt0")
	if err != nil {
		t.Fatal(err)
	}
	if ie.Rewr != nil {
		t.Skipf("this kernel has a rewrite table (%v): the test is for one before 6.3", ie.Rewr)
	}
	in := snapshot(t, "dcbt0")
	if in.Counters == nil || in.Counters.QoS == nil || in.Counters.QoS.Rewrite != nil {
		t.Errorf("dcbtop --json: qos %+v, want rewrite null", in.Counters)
	}
	code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--rewr-dscp", "3:26")
	want := "dcbtop: dcbt0: not applied: the kernel has no APP rewrite table (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3): rewrite entries cannot be set here\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("dcbtop apply --rewr-dscp: exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
}
