// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// ieeeSetTrust is the payload of DCB_CMD_IEEE_SET of a trust table on
// ifname, built by hand as net/dcb/dcbnl.c reads it: struct dcbmsg,
// DCB_ATTR_IFNAME, DCB_ATTR_IEEE (nested) holding
// DCB_ATTR_DCB_APP_TRUST_TABLE (nested), one u8 per selector typed
// DCB_ATTR_IEEE_APP, or DCB_ATTR_DCB_APP for PCP (dcbnl_app_attr_type_get),
// each padded to 4 bytes.
func ieeeSetTrust(ifname string, sels ...uint8) []byte {
	attr := kerneltest.AppendAttr
	var table []byte
	for _, s := range sels {
		typ := uint16(1)
		if s == 255 {
			typ = 2
		}
		table = attr(table, typ, []byte{s})
	}
	b := attr([]byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_IEEE_SET, 0, 0}, 1, append([]byte(ifname), 0))
	return attr(b, 13|0x8000, attr(nil, 11|0x8000, table))
}

// ieeeSetMaxrate is the payload of DCB_CMD_IEEE_SET of rate limits on
// ifname, built by hand: DCB_ATTR_IEEE (nested) holding
// DCB_ATTR_IEEE_MAXRATE (7), struct ieee_maxrate's eight u64 kbit/s in
// host byte order.
func ieeeSetMaxrate(ifname string, kbps [8]uint64) []byte {
	attr := kerneltest.AppendAttr
	var m []byte
	for _, v := range kbps {
		m = binary.NativeEndian.AppendUint64(m, v)
	}
	b := attr([]byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_IEEE_SET, 0, 0}, 1, append([]byte(ifname), 0))
	return attr(b, 13|0x8000, attr(nil, 7, m))
}

// sdcbx is the payload of DCB_CMD_SDCBX of mode m on ifname, by hand:
// DCB_ATTR_DCBX (14), a u8.
func sdcbx(ifname string, m uint8) []byte {
	attr := kerneltest.AppendAttr
	b := attr([]byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_SDCBX, 0, 0}, 1, append([]byte(ifname), 0))
	return attr(b, 14, []byte{m})
}

// ieeeSetRewr is the payload of DCB_CMD_IEEE_SET of rewrite entries on
// ifname, by hand as a Linux 6.3 kernel reads it: DCB_ATTR_IEEE holding
// DCB_ATTR_DCB_REWR_TABLE (12, nested), each struct dcb_app typed
// DCB_ATTR_IEEE_APP for an IEEE selector.
func ieeeSetRewr(ifname string, apps ...dcbnl.App) []byte {
	attr := kerneltest.AppendAttr
	var table []byte
	for _, a := range apps {
		b, _ := a.MarshalBinary()
		table = attr(table, 1, b)
	}
	b := attr([]byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_IEEE_SET, 0, 0}, 1, append([]byte(ifname), 0))
	return attr(b, 13|0x8000, attr(nil, 12|0x8000, table))
}

// TestApplyQoS writes QoS changes through a real dcbnl.Client to the fake
// driver over netlink (nltest) and rdma_cm's configfs in a temporary
// tree: the requests in order (the trust table's byte for byte), the
// state before and after read back, the notes, the refusals, the undo.
func TestApplyQoS(t *testing.T) {
	host := dcbnl.ModeHost | dcbnl.ModeIEEE
	lld := dcbnl.ModeLLDManaged | dcbnl.ModeIEEE
	delay := uint16(7)
	dscp26 := dcbnl.App{Selector: 5, Priority: 3, Protocol: 26}
	both := dcbnl.ModeHost | dcbnl.ModeIEEE | dcbnl.ModeCEE
	rates := func(f *kerneltest.Fake) { f.State.MaxRate = &[8]uint64{0: 1_000_000} }
	lldMode := qos.DCBXMode{Agent: qos.DCBXLLDManaged}
	hostMode := qos.DCBXMode{Agent: qos.DCBXHost}
	cee := qos.DCBXMode{Agent: qos.DCBXHost, Version: "cee"}
	mlx5 := func(m dcbnl.Mode) uint8 { // en_dcbnl.c mlx5e_dcbnl_setdcbx
		if m&dcbnl.ModeLLDManaged != 0 || m != 0 && !m.Host() {
			return 1
		}
		return 0
	}
	for _, tt := range []struct {
		name     string
		setup    func(f *kerneltest.Fake)
		change   qos.Change
		wantReqs []string
		wantErr  string
		wantNote string
		check    func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request)
	}{
		{"trust pcp → dscp, pcp", func(f *kerneltest.Fake) { f.State.AppTrust = []uint8{255}; f.State.App = []dcbnl.App{dscp26} },
			qos.Change{Trust: []string{"dscp", "pcp"}}, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request) {
				if want := ieeeSetTrust("mlx0", 5, 255); !bytes.Equal(reqs[1].Data, want) {
					t.Errorf("IEEE_SET:\n got % x\nwant % x", reqs[1].Data, want)
				}
				if diff := cmp.Diff([]string{"dscp", "pcp"}, res.After.Trust); diff != "" || res.After.TrustDerived {
					t.Errorf("trust after (-want +got):\n%s", diff)
				}
				undo, notes := res.Undo(qos.Change{Trust: []string{"dscp", "pcp"}})
				if diff := cmp.Diff(qos.Change{Trust: []string{"pcp"}}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}},
		{"no trust table (mlx5): trust DSCP is the DSCP entries", nil,
			qos.Change{Trust: []string{"dscp", "pcp"}, DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 3}}},
			[]string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "the trust follows the DSCP entries",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if !res.After.TrustDerived || res.After.Trust[0] != "dscp" {
					t.Errorf("trust after %v (derived %v), want dscp first, derived", res.After.Trust, res.After.TrustDerived)
				}
				undo, _ := res.Undo(qos.Change{DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 3}}})
				if diff := cmp.Diff(qos.Change{DSCPDelete: []uint8{26}}, undo); diff != "" {
					t.Errorf("undo (-want +got):\n%s", diff)
				}
			}},
		{"no trust table (mlx5), no DSCP entry: refused", nil, qos.Change{Trust: []string{"dscp", "pcp"}},
			[]string{"IEEE_GET"}, "give DSCP entries (--dscp 26=3)", "", nil},
		{"no trust table (mlx5), trust PCP: refused", func(f *kerneltest.Fake) { f.State.App = []dcbnl.App{dscp26} },
			qos.Change{Trust: []string{"pcp"}}, []string{"IEEE_GET"}, "remove them (--dscp-delete) instead", "", nil},
		{"DSCP 26 → 5 replaces 26 → 3", func(f *kerneltest.Fake) { f.State.App = []dcbnl.App{dscp26} },
			qos.Change{DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 5}}}, []string{"IEEE_GET", "IEEE_DEL", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if diff := cmp.Diff([]qos.DSCPPriority{{DSCP: 26, Priority: 5}}, res.After.DSCP); diff != "" {
					t.Errorf("DSCP after (-want +got):\n%s", diff)
				}
				undo, _ := res.Undo(qos.Change{DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 5}}})
				if diff := cmp.Diff(qos.Change{DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 3}}}, undo); diff != "" {
					t.Errorf("undo (-want +got):\n%s", diff)
				}
			}},
		{"PFC delay 1234 → 7, the rest of PFC kept", func(f *kerneltest.Fake) { f.State.PFC.Enabled = 1 << 3 },
			qos.Change{PFCDelay: &delay}, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "resets the link",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if p := f.State.PFC; p.Delay != 7 || p.Enabled != 1<<3 || p.Cap != 8 {
					t.Errorf("the driver's PFC %+v, want delay 7, priority 3, cap 8", *p)
				}
			}},
		{"buffer ignored by the driver: read back differs", func(f *kerneltest.Fake) {
			f.State.Buffer = &dcbnl.Buffer{Size: [8]uint32{262144}, TotalSize: 524288}
			f.Ignore["BUFFER"] = true
		}, qos.Change{Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{131072, 131072}}},
			[]string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "the driver accepted the writes but reads back other values: buffer split", "", nil},
		{"buffer written, the total kept", func(f *kerneltest.Fake) { f.State.Buffer = &dcbnl.Buffer{Size: [8]uint32{262144}, TotalSize: 524288} },
			qos.Change{Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{131072, 131072}}},
			[]string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if b := f.State.Buffer; b.TotalSize != 524288 || b.PrioBuffer[3] != 1 {
					t.Errorf("the driver's buffer %+v", *b)
				}
			}},
		{"firmware DCBX: refused", func(f *kerneltest.Fake) { f.Mode = &lld }, qos.Change{PFCDelay: &delay},
			[]string{"IEEE_GET"}, "the NIC firmware runs DCBX", "", nil},
		{"nothing differs: nothing written", func(f *kerneltest.Fake) { f.State.App = []dcbnl.App{dscp26} },
			qos.Change{DSCP: []qos.DSCPPriority{{DSCP: 26, Priority: 3}}}, []string{"IEEE_GET"}, "", "", nil},
		{"maxrate TC1 and TC3, TC0's kept", rates, qos.Change{MaxRate: []qos.TCRate{{TC: 1, Kbps: 10_000_000}, {TC: 3, Kbps: 25_000_000}}},
			[]string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request) {
				want := [8]uint64{1_000_000, 10_000_000, 0, 25_000_000}
				if b := ieeeSetMaxrate("mlx0", want); !bytes.Equal(reqs[1].Data, b) {
					t.Errorf("IEEE_SET:\n got % x\nwant % x", reqs[1].Data, b)
				}
				if res.After.MaxRateKbps == nil || *res.After.MaxRateKbps != want {
					t.Errorf("after %v, want %v", res.After.MaxRateKbps, want)
				}
				undo, notes := res.Undo(qos.Change{MaxRate: []qos.TCRate{{TC: 1, Kbps: 10_000_000}, {TC: 3, Kbps: 25_000_000}}})
				if diff := cmp.Diff(qos.Change{MaxRate: []qos.TCRate{{TC: 1}, {TC: 3}}}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
				if diff := cmp.Diff([]string{"--maxrate", "1:0,3:0"}, undo.Args()); diff != "" {
					t.Errorf("undo args (-want +got):\n%s", diff)
				}
			}},
		{"maxrate: no ieee_getmaxrate, refused", nil, qos.Change{MaxRate: []qos.TCRate{{TC: 1, Kbps: 10_000_000}}},
			[]string{"IEEE_GET"}, "the driver reports no rate limits", "", nil},
		{"maxrate unchanged: nothing written", rates, qos.Change{MaxRate: []qos.TCRate{{TC: 0, Kbps: 1_000_000}}},
			[]string{"IEEE_GET"}, "", "", nil},
		{"maxrate rounded by the driver: read back differs", func(f *kerneltest.Fake) { rates(f); f.Ignore["MAXRATE"] = true },
			qos.Change{MaxRate: []qos.TCRate{{TC: 2, Kbps: 150_000}}}, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"},
			"TC2 rate limit unlimited, want 150 Mbit/s", "", nil},
		{"maxrate refused by the driver (EINVAL)", func(f *kerneltest.Fake) { rates(f); f.SetErr["MAXRATE"] = syscall.EINVAL },
			qos.Change{MaxRate: []qos.TCRate{{TC: 2, Kbps: 300_000_000}}}, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"},
			"rate limits: ", "", nil},
		{"DCBX host → lld-managed: LLD_MANAGED with the version in force", nil, qos.Change{DCBXMode: &lldMode},
			[]string{"IEEE_GET", "SDCBX", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request) {
				if b := sdcbx("mlx0", 0x0a); !bytes.Equal(reqs[1].Data, b) {
					t.Errorf("SDCBX:\n got % x\nwant % x", reqs[1].Data, b)
				}
				if res.After.DCBX == nil || *res.After.DCBX != 0x0a || res.After.DCBXWords != "firmware-managed (LLD_MANAGED), IEEE" {
					t.Errorf("after %v %q", res.After.DCBX, res.After.DCBXWords)
				}
				undo, notes := res.Undo(qos.Change{DCBXMode: &lldMode})
				if diff := cmp.Diff(qos.Change{DCBXMode: &qos.DCBXMode{Agent: qos.DCBXHost, Version: "ieee"}}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}},
		{"DCBX host of both versions → lld-managed: IEEE, the undo says why", func(f *kerneltest.Fake) { f.Mode = &both }, qos.Change{DCBXMode: &lldMode},
			[]string{"IEEE_GET", "SDCBX", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if *f.Mode != dcbnl.ModeLLDManaged|dcbnl.ModeIEEE {
					t.Errorf("the driver's mode %v", *f.Mode)
				}
				undo, notes := res.Undo(qos.Change{DCBXMode: &lldMode})
				if diff := cmp.Diff(qos.Change{DCBXMode: &hostMode}, undo); diff != "" || len(notes) != 1 || !strings.Contains(notes[0], "named IEEE and CEE") {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}},
		{"DCBX lld-managed → host,cee, alone on a firmware-managed NIC", func(f *kerneltest.Fake) { f.Mode = &lld }, qos.Change{DCBXMode: &cee},
			[]string{"IEEE_GET", "SDCBX", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if *f.Mode != dcbnl.ModeHost|dcbnl.ModeCEE {
					t.Errorf("the driver's mode %v", *f.Mode)
				}
			}},
		{"firmware-managed: DCBX to the host first, then the rate limits", func(f *kerneltest.Fake) { f.Mode = &lld; rates(f) },
			qos.Change{DCBXMode: &hostMode, MaxRate: []qos.TCRate{{TC: 1, Kbps: 5_000_000}}},
			[]string{"IEEE_GET", "SDCBX", "IEEE_SET", "IEEE_GET"}, "", "", nil},
		{"firmware-managed: rate limits without DCBX to the host, refused", func(f *kerneltest.Fake) { f.Mode = &lld; rates(f) },
			qos.Change{MaxRate: []qos.TCRate{{TC: 1, Kbps: 5_000_000}}}, []string{"IEEE_GET"}, "the NIC firmware runs DCBX", "", nil},
		{"DCBX already host: nothing written", nil, qos.Change{DCBXMode: &hostMode}, []string{"IEEE_GET"}, "", "", nil},
		{"DCBX lld-managed on mlx5: LLD_MANAGED refused, 0 taken", func(f *kerneltest.Fake) { f.DCBXStatus = mlx5 }, qos.Change{DCBXMode: &lldMode},
			[]string{"IEEE_GET", "SDCBX", "SDCBX", "IEEE_GET"}, "", "took 0, which mlx5 reads as",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request) {
				if b := sdcbx("mlx0", 0); !bytes.Equal(reqs[2].Data, b) {
					t.Errorf("second SDCBX:\n got % x\nwant % x", reqs[2].Data, b)
				}
			}},
		{"DCBX lld-managed refused by the driver (ixgbe)", func(f *kerneltest.Fake) {
			f.DCBXStatus = func(m dcbnl.Mode) uint8 { return map[bool]uint8{true: 0, false: 1}[m.Host() && !m.LLDManaged()] }
		}, qos.Change{DCBXMode: &lldMode},
			[]string{"IEEE_GET", "SDCBX", "SDCBX", "IEEE_GET"}, "no firmware agent takes DCBX here", "", nil},
		{"DCBX: no getdcbx, refused", func(f *kerneltest.Fake) { f.Mode = nil }, qos.Change{DCBXMode: &hostMode},
			[]string{"IEEE_GET", "GDCBX", "IEEE_GET"}, "the driver reports no DCBX mode", "", nil}, // the second IEEE_GET tells a missing getdcbx from no DCB (dcbnl explainNotSupported)
		{"DSCP rewrite on a kernel without the table (6.1): refused", nil, qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 26}}},
			[]string{"IEEE_GET"}, "the kernel has no APP rewrite table (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3)", "", nil},
		{"DSCP rewrite on a 6.3 kernel: 3 → 26 replaces 3 → 24, PCP kept", func(f *kerneltest.Fake) {
			f.State.Rewr = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 24}, {Selector: 255, Priority: 5, Protocol: 5}}
		}, qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 26}}}, []string{"IEEE_GET", "IEEE_DEL", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, reqs []kerneltest.Request) {
				if want := ieeeSetRewr("mlx0", dcbnl.App{Selector: 5, Priority: 3, Protocol: 26}); !bytes.Equal(reqs[2].Data, want) {
					t.Errorf("IEEE_SET:\n got % x\nwant % x", reqs[2].Data, want)
				}
				want := []lossless.RewriteEntry{{Selector: "pcp", Priority: 5, Protocol: 5}, {Selector: "dscp", Priority: 3, Protocol: 26}}
				if diff := cmp.Diff(want, res.After.Rewrite); diff != "" {
					t.Errorf("after (-want +got):\n%s", diff)
				}
				undo, notes := res.Undo(qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 26}}})
				if diff := cmp.Diff(qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 24}}}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}},
		{"DSCP rewrite of a new priority: its undo deletes it", func(f *kerneltest.Fake) { f.State.Rewr = []dcbnl.App{} },
			qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 4, DSCP: 46}}}, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				undo, _ := res.Undo(qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 4, DSCP: 46}}})
				if diff := cmp.Diff(qos.Change{RewriteDSCPDelete: []uint8{4}}, undo); diff != "" {
					t.Errorf("undo (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"--rewr-dscp-delete", "4"}, undo.Args()); diff != "" {
					t.Errorf("undo args (-want +got):\n%s", diff)
				}
			}},
		{"DSCP rewrite deleted", func(f *kerneltest.Fake) { f.State.Rewr = []dcbnl.App{{Selector: 5, Priority: 4, Protocol: 46}} },
			qos.Change{RewriteDSCPDelete: []uint8{4}}, []string{"IEEE_GET", "IEEE_DEL", "IEEE_GET"}, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if len(f.State.Rewr) != 0 || res.After.Rewrite == nil || len(res.After.Rewrite) != 0 {
					t.Errorf("the kernel's table %v, after %v", f.State.Rewr, res.After.Rewrite)
				}
			}},
		{"rdma_cm default ToS 0 → 106", nil, qos.Change{RoCEToS: []qos.RoCEToSChange{{Device: "mlx5_0", Port: 1, ToS: 106}}},
			nil, "", "",
			func(t *testing.T, f *kerneltest.Fake, res qos.WriteResult, _ []kerneltest.Request) {
				if b := res.Before.RoCEToS; len(b) != 1 || b[0].ToS == nil || *b[0].ToS != 0 {
					t.Errorf("before %+v, want 0", b)
				}
				undo, notes := res.Undo(qos.Change{RoCEToS: []qos.RoCEToSChange{{Device: "mlx5_0", Port: 1, ToS: 106}}})
				if diff := cmp.Diff(qos.Change{RoCEToS: []qos.RoCEToSChange{{Device: "mlx5_0", Port: 1, ToS: 0}}}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := kerneltest.NewFake()
			f.Mode = &host
			if tt.setup != nil {
				tt.setup(f)
			}
			root := t.TempDir()
			port := filepath.Join(root, "kernel/config/rdma_cm/mlx5_0/ports/1")
			if err := os.MkdirAll(port, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(port, "default_roce_tos"), []byte("0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var reqs []kerneltest.Request
			res := ApplyQoS(f.NetlinkLog(t, &reqs), rdma.DirWriter(root), nil, "mlx0", tt.change)
			var names []string
			for _, r := range reqs {
				names = append(names, r.Cmd)
			}
			if diff := cmp.Diff(tt.wantReqs, names); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantErr == "" && res.Err != nil:
				t.Fatalf("error %v", res.Err)
			case tt.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want %q", res.Err, tt.wantErr)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(res.Notes, "; "), tt.wantNote) {
				t.Errorf("notes %q, want %q", res.Notes, tt.wantNote)
			}
			if tt.check != nil {
				tt.check(t, f, res, reqs)
			}
		})
	}
}
