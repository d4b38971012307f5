// SPDX-License-Identifier: Apache-2.0

package ecn_test

import (
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/ecn"
)

const (
	pci     = "0000:3b:00.0"
	pciDir  = "devices/pci0000:00/0000:00:02.0/" + pci
	netDir  = pciDir + "/net/eth0"
	ccDir   = "kernel/debug/mlx5/" + pci + "/cc_params"
	ofedDir = "class/net/eth0/ecn"
	hint    = "mlxconfig -d " + pci + " q ROCE_CC_PRIO_MASK_P1 CNP_DSCP_P1 CNP_802P_PRIO_P1"
)

// A layout says how buildRoot lays a fixture out.
type layout struct {
	fixture   string // directory under testdata/sysfs
	driver    string // the device's driver link; "" for none
	noDebugfs bool   // no kernel/debug mount point at all
	// flat makes class/net/eth0 a plain directory whose device link
	// points into devices/, instead of a symlink into devices/.
	flat bool
	// edit changes the laid-out tree before the test reads it.
	edit func(t *testing.T, root string)
}

// buildRoot lays fixture l out in a temporary directory as the kernel lays
// out /sys (see testdata/sysfs/README.md) and returns that root.
func buildRoot(t *testing.T, l layout) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("testdata", "sysfs", l.fixture)
	eth0 := netDir
	if l.flat {
		eth0 = "class/net/eth0"
	}
	for _, m := range []struct{ from, to string }{
		{"devices/PCI", pciDir},
		{"class/net/eth0", eth0},
		{"kernel/debug/mlx5/PCI", "kernel/debug/mlx5/" + pci},
		{"bus", "bus"},
	} {
		if _, err := os.Stat(filepath.Join(src, m.from)); err != nil {
			continue
		}
		if err := os.CopyFS(filepath.Join(root, m.to), os.DirFS(filepath.Join(src, m.from))); err != nil {
			t.Fatal(err)
		}
	}
	if !l.noDebugfs {
		mkdir(t, root, "kernel/debug")
	}
	mkdir(t, root, eth0)
	if !l.flat {
		symlink(t, root, "class/net/eth0", "../../"+netDir)
		symlink(t, root, netDir+"/device", "../../../"+pci)
	} else {
		mkdir(t, root, pciDir)
		symlink(t, root, "class/net/eth0/device", "../../../"+pciDir)
	}
	if l.driver != "" {
		mkdir(t, root, "bus/pci/drivers/"+l.driver)
		symlink(t, root, pciDir+"/driver", "../../../../bus/pci/drivers/"+l.driver)
	}
	if l.edit != nil {
		l.edit(t, root)
	}
	return root
}

func mkdir(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, root, rel, to string) {
	t.Helper()
	mkdir(t, root, filepath.Dir(rel))
	if err := os.Symlink(to, filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

func write(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func remove(rel string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
}

func u8(v uint8) *uint8 { return &v }
func yes(v bool) *bool  { return &v }

const (
	U   = ecn.Unknown
	off = ecn.Off
	on  = ecn.On
)

// rpDefaults are the roce_rp values of the ofed fixture, and
// ccDefaults the non-CNP cc_params values of the upstream one.
var (
	rpDefaults = map[string]uint64{
		"clamp_tgt_rate": 0, "clamp_tgt_rate_after_time_inc": 1,
		"rpg_time_reset": 300, "rpg_byte_reset": 32767, "rpg_threshold": 1,
		"rpg_max_rate": 0, "rpg_ai_rate": 5, "rpg_hai_rate": 50, "rpg_gd": 11,
		"rpg_min_dec_fac": 50, "rpg_min_rate": 1, "rate_to_set_on_first_cnp": 0,
		"dce_tcp_g": 1019, "dce_tcp_rtt": 1, "rate_reduce_monitor_period": 4,
		"initial_alpha_value": 1023,
	}
	ccDefaults = map[string]uint64{
		"rp_clamp_tgt_rate": 0, "rp_clamp_tgt_rate_ati": 1, "rp_time_reset": 300,
		"rp_byte_reset": 32767, "rp_threshold": 1, "rp_ai_rate": 5, "rp_max_rate": 0,
		"rp_hai_rate": 50, "rp_min_dec_fac": 50, "rp_min_rate": 1,
		"rp_rate_to_set_on_first_cnp": 0, "rp_dce_tcp_g": 1019, "rp_dce_tcp_rtt": 1,
		"rp_rate_reduce_monitor_period": 4, "rp_initial_alpha_value": 1023, "rp_gd": 11,
		"np_min_time_between_cnps": 0, "rtt_resp_dscp_valid": 0, "rtt_resp_dscp": 0,
	}
)

func with(m map[string]uint64, kv ...any) map[string]uint64 {
	out := make(map[string]uint64, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = uint64(kv[i+1].(int))
	}
	return out
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout layout
		ifname string
		want   ecn.Settings
	}{{
		name:   "ofed",
		layout: layout{fixture: "ofed", driver: "mlx5_core"},
		want: ecn.Settings{
			Source:            ofedDir,
			NotificationPoint: [8]ecn.Tri{off, off, off, on, on, off, on, off},
			ReactionPoint:     [8]ecn.Tri{off, off, on, on, on, off, off, off},
			CNPDSCP:           u8(48),
			CNPPriority:       u8(6),
			Params:            with(rpDefaults, "min_time_between_cnps", 4),
		},
	}, {
		// The tree is the driver's, whatever the driver link says.
		name:   "ofed without a driver link",
		layout: layout{fixture: "ofed"},
		want: ecn.Settings{
			Source:            ofedDir,
			NotificationPoint: [8]ecn.Tri{off, off, off, on, on, off, on, off},
			ReactionPoint:     [8]ecn.Tri{off, off, on, on, on, off, off, off},
			CNPDSCP:           u8(48),
			CNPPriority:       u8(6),
			Params:            with(rpDefaults, "min_time_between_cnps", 4),
		},
	}, {
		// class/net/eth0 a plain directory, device -> ../../../devices/...
		name:   "ofed flat",
		layout: layout{fixture: "ofed", driver: "mlx5_core", flat: true},
		want: ecn.Settings{
			Source:            ofedDir,
			NotificationPoint: [8]ecn.Tri{off, off, off, on, on, off, on, off},
			ReactionPoint:     [8]ecn.Tri{off, off, on, on, on, off, off, off},
			CNPDSCP:           u8(48),
			CNPPriority:       u8(6),
			Params:            with(rpDefaults, "min_time_between_cnps", 4),
		},
	}, {
		name: "ofed with priority 7's enable file missing",
		layout: layout{fixture: "ofed", driver: "mlx5_core",
			edit: remove(netDir + "/ecn/roce_np/enable/7")},
		want: ecn.Settings{
			Source:            ofedDir,
			NotificationPoint: [8]ecn.Tri{off, off, off, on, on, off, on, U},
			ReactionPoint:     [8]ecn.Tri{off, off, on, on, on, off, off, off},
			CNPDSCP:           u8(48),
			CNPPriority:       u8(6),
			Params:            with(rpDefaults, "min_time_between_cnps", 4),
			Hint:              hint,
		},
	}, {
		name: "ofed with only roce_rp",
		layout: layout{fixture: "ofed", driver: "mlx5_core",
			edit: remove(netDir + "/ecn/roce_np")},
		want: ecn.Settings{
			Source:        ofedDir,
			ReactionPoint: [8]ecn.Tri{off, off, on, on, on, off, off, off},
			Params:        rpDefaults,
			Hint:          hint,
		},
	}, {
		name: "ofed tree with nothing in it",
		layout: layout{fixture: "ofed", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(netDir+"/ecn")(t, root)
			mkdir(t, root, netDir+"/ecn/roce_np")
		}},
		want: ecn.Settings{
			Why:  ofedDir + " exists but none of its values could be read",
			Hint: hint,
		},
	}, {
		name:   "upstream debugfs",
		layout: layout{fixture: "upstream", driver: "mlx5_core"},
		want: ecn.Settings{
			Source:                ccDir,
			CNPDSCP:               u8(48),
			CNPPriority:           u8(6),
			CNPPriorityFromPacket: yes(false),
			Params:                ccDefaults,
			Hint:                  hint, // no per-priority enable in debugfs
		},
	}, {
		name: "upstream debugfs, CNP priority from the packet",
		layout: layout{fixture: "upstream", driver: "mlx5_core",
			edit: write(ccDir+"/np_cnp_prio_mode", "1\n")},
		want: ecn.Settings{
			Source:                ccDir,
			CNPDSCP:               u8(48),
			CNPPriorityFromPacket: yes(true),
			Params:                ccDefaults,
			Hint:                  hint,
		},
	}, {
		name: "upstream debugfs without the mode file",
		layout: layout{fixture: "upstream", driver: "mlx5_core",
			edit: remove(ccDir + "/np_cnp_prio_mode")},
		want: ecn.Settings{
			Source:      ccDir,
			CNPDSCP:     u8(48),
			CNPPriority: u8(6),
			Params:      ccDefaults,
			Hint:        hint,
		},
	}, {
		name: "upstream debugfs without roce_cc_general",
		layout: layout{fixture: "upstream", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(ccDir+"/rtt_resp_dscp")(t, root)
			remove(ccDir+"/rtt_resp_dscp_valid")(t, root)
		}},
		want: ecn.Settings{
			Source:                ccDir,
			CNPDSCP:               u8(48),
			CNPPriority:           u8(6),
			CNPPriorityFromPacket: yes(false),
			Params: func() map[string]uint64 {
				m := with(ccDefaults)
				delete(m, "rtt_resp_dscp")
				delete(m, "rtt_resp_dscp_valid")
				return m
			}(),
			Hint: hint,
		},
	}, {
		// The debugfs directory belongs to mlx5_core; another driver's
		// netdev does not look there.
		name:   "upstream debugfs, other driver",
		layout: layout{fixture: "upstream", driver: "virtio_net"},
		want: ecn.Settings{
			Why: "virtio_net: no DCQCN settings are known for this driver (no class/net/eth0/ecn)",
		},
	}, {
		name: "cc_params empty",
		layout: layout{fixture: "upstream", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(ccDir)(t, root)
			mkdir(t, root, ccDir)
		}},
		want: ecn.Settings{
			Why:  ccDir + " exists but none of its values could be read",
			Hint: hint,
		},
	}, {
		name: "no cc_params",
		layout: layout{fixture: "upstream", driver: "mlx5_core",
			edit: remove(ccDir)},
		want: ecn.Settings{
			Why:  ccDir + " does not exist: mlx5_ib made none: it is not loaded, or the firmware does not allow congestion-control query and modify (cong.c mlx5_ib_init_cong_debugfs)",
			Hint: hint,
		},
	}, {
		name: "no mlx5 directory for the device",
		layout: layout{fixture: "upstream", driver: "mlx5_core",
			edit: remove("kernel/debug/mlx5/" + pci)},
		want: ecn.Settings{
			Why:  "kernel/debug/mlx5/" + pci + " does not exist: mlx5_core made no debugfs directory for this device",
			Hint: hint,
		},
	}, {
		name:   "none: debugfs not mounted",
		layout: layout{fixture: "none", driver: "mlx5_core"},
		want: ecn.Settings{
			Why:  "kernel/debug/mlx5 does not exist: debugfs is not mounted there, or mlx5_core is not loaded",
			Hint: hint,
		},
	}, {
		name:   "none: no kernel/debug",
		layout: layout{fixture: "none", driver: "mlx5_core", noDebugfs: true},
		want: ecn.Settings{
			Why:  "kernel/debug does not exist: no debugfs mount point",
			Hint: hint,
		},
	}, {
		name: "none: kernel/debug a file",
		layout: layout{fixture: "none", driver: "mlx5_core", noDebugfs: true, edit: func(t *testing.T, root string) {
			mkdir(t, root, "kernel")
			write("kernel/debug", "")(t, root)
		}},
		want: ecn.Settings{
			Why:  "kernel/debug is not a directory",
			Hint: hint,
		},
	}, {
		name:   "none: no driver bound",
		layout: layout{fixture: "none"},
		want:   ecn.Settings{Why: "device " + pci + " has no driver bound"},
	}, {
		name:   "none: bnxt_en",
		layout: layout{fixture: "none", driver: "bnxt_en"},
		want: ecn.Settings{
			Why:  "bnxt_en: no DCQCN settings are known for this driver (no class/net/eth0/ecn)",
			Hint: "bnxt_re: as root, grep . /sys/kernel/debug/bnxt_re/" + pci + "/cc_config/* (Broadcom's out-of-tree bnxt_re uses configfs instead)",
		},
	}, {
		name:   "none: ice",
		layout: layout{fixture: "none", driver: "ice"},
		want: ecn.Settings{
			Why:  "ice: no DCQCN settings are known for this driver (no class/net/eth0/ecn)",
			Hint: "irdma: dcbtop knows no file that shows its DCQCN settings; see Intel's irdma documentation",
		},
	}, {
		name: "none: virtual interface",
		layout: layout{fixture: "none", driver: "mlx5_core",
			edit: remove(netDir + "/device")},
		want: ecn.Settings{
			Why: "class/net/eth0 has no device link: a virtual interface, without RDMA congestion control of its own",
		},
	}, {
		name: "none: device link to ..",
		layout: layout{fixture: "none", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(netDir+"/device")(t, root)
			symlink(t, root, netDir+"/device", "..")
		}},
		want: ecn.Settings{
			Why: `class/net/eth0/device: link to ".." has no usable name`,
		},
	}, {
		// A device name that is not a PCI address is not put in the
		// mlxconfig command.
		name: "none: device not named like PCI",
		layout: layout{fixture: "none", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(netDir+"/device")(t, root)
			symlink(t, root, netDir+"/device", "../../../virtio2")
			mkdir(t, root, "devices/pci0000:00/0000:00:02.0/virtio2")
			symlink(t, root, "devices/pci0000:00/0000:00:02.0/virtio2/driver", "../../../../bus/pci/drivers/mlx5_core")
		}},
		want: ecn.Settings{
			Why:  "kernel/debug/mlx5 does not exist: debugfs is not mounted there, or mlx5_core is not loaded",
			Hint: "mlxconfig -d <PCI> q ROCE_CC_PRIO_MASK_P1 CNP_DSCP_P1 CNP_802P_PRIO_P1",
		},
	}, {
		name:   "no such interface",
		layout: layout{fixture: "ofed", driver: "mlx5_core"},
		ifname: "eth1",
		want:   ecn.Settings{Why: "class/net/eth1 does not exist: no such interface"},
	}, {
		name:   "broken",
		layout: layout{fixture: "broken", driver: "mlx5_core"},
		want: ecn.Settings{
			Source:            ofedDir,
			NotificationPoint: [8]ecn.Tri{U, U, U, on, off, U, U, on},
			Params:            map[string]uint64{"rpg_max_rate": 4294967295, "rpg_ai_rate": 5},
			Hint:              hint,
			Problems: []string{
				ofedDir + "/roce_np/enable/0: 2 is out of range 0..1",
				ofedDir + `/roce_np/enable/1: not a decimal number: "on\n"`,
				ofedDir + "/roce_np/enable/2: a directory, not a file",
				ofedDir + `/roce_np/enable/5: not a decimal number: "1\n\n"`,
				ofedDir + `/roce_np/enable/6: not a decimal number: "-1\n"`,
				ofedDir + `/roce_np/min_time_between_cnps: not a decimal number: "0x4\n"`,
				ofedDir + "/roce_np/cnp_dscp: 64 is out of range 0..63",
				ofedDir + "/roce_np/cnp_802p_prio: empty",
				ofedDir + "/roce_rp/clamp_tgt_rate: 2 is out of range 0..1",
				ofedDir + `/roce_rp/rpg_time_reset: not a decimal number: " 300\n"`,
				ofedDir + "/roce_rp/rpg_gd: 64 bytes or more: not one value",
				ofedDir + "/roce_rp/dce_tcp_g: 4294967296 is out of range 0..4294967295",
			},
		},
	}, {
		name:   "broken debugfs",
		layout: layout{fixture: "broken-debugfs", driver: "mlx5_core"},
		want: ecn.Settings{
			Source: ccDir,
			Params: map[string]uint64{"rp_time_reset": 300},
			Hint:   hint,
			Problems: []string{
				ccDir + `/rp_gd: not a decimal number: "abc\n"`,
				ccDir + "/np_cnp_dscp: a directory, not a file",
				ccDir + "/np_cnp_prio_mode: 2 is out of range 0..1",
				ccDir + "/np_cnp_prio: 8 is out of range 0..7",
			},
		},
	}, {
		name: "ofed roce_np a file",
		layout: layout{fixture: "ofed", driver: "mlx5_core", edit: func(t *testing.T, root string) {
			remove(netDir+"/ecn/roce_np")(t, root)
			write(netDir+"/ecn/roce_np", "1\n")(t, root)
		}},
		want: ecn.Settings{
			Source:        ofedDir,
			ReactionPoint: [8]ecn.Tri{off, off, on, on, on, off, off, off},
			Params:        rpDefaults,
			Hint:          hint,
			Problems:      []string{ofedDir + "/roce_np: not a directory"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := buildRoot(t, tc.layout)
			ifname := tc.ifname
			if ifname == "" {
				ifname = "eth0"
			}
			got := ecn.Read(hostfs.Dir(root), ifname)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Read(%s) (-want +got):\n%s", ifname, diff)
			}
		})
	}
}

// TestReadInvalidName refuses names the kernel would refuse without
// touching a file: the root does not exist, so any access would say so.
func TestReadInvalidName(t *testing.T) {
	root := filepath.Join(t.TempDir(), "absent")
	for name, why := range map[string]string{
		"":                 "empty",
		".":                "not a file name",
		"..":               "not a file name",
		"../../etc":        "byte 2 ('/') is not allowed",
		"a/b":              "byte 1 ('/') is not allowed",
		"eth0:1":           "byte 4 (':') is not allowed",
		"eth 0":            "byte 3 (' ') is not allowed",
		"eth0\n":           `byte 4 ('\n') is not allowed`,
		"eth\x000":         `byte 3 ('\x00') is not allowed`,
		"eth\xa00":         `byte 3 ('\u00a0') is not allowed`,
		"sixteen-bytes-xx": "longer than 15 bytes",
	} {
		want := ecn.Settings{Why: "invalid interface name " + strconv.Quote(name) + ": " + why}
		if diff := cmp.Diff(want, ecn.Read(hostfs.Dir(root), name)); diff != "" {
			t.Errorf("Read(%q) (-want +got):\n%s", name, diff)
		}
	}
	// Fifteen bytes is a valid name; this one just does not exist.
	got := ecn.Read(hostfs.Dir(root), "fifteen-bytes-x")
	if want := "class/net/fifteen-bytes-x does not exist: no such interface"; got.Why != want {
		t.Errorf("Read(fifteen bytes).Why = %q, want %q", got.Why, want)
	}
}

// TestReadUnreadable: debugfs is root-only; as another user, the step
// that cannot be entered is named. Root reads through mode 0, so the
// test needs a user that is not.
func TestReadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root bypasses file modes")
	}
	root := buildRoot(t, layout{fixture: "upstream", driver: "mlx5_core", edit: func(t *testing.T, root string) {
		if err := os.Chmod(filepath.Join(root, "kernel/debug"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "kernel/debug"), 0o755) })
	}})
	want := ecn.Settings{
		Why:  "kernel/debug/mlx5: permission denied (debugfs is for root only)",
		Hint: hint,
	}
	if diff := cmp.Diff(want, ecn.Read(hostfs.Dir(root), "eth0")); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

// TestReadFileModes: a file the reader may not open is a problem, not a
// zero. Skipped as root, like TestReadUnreadable.
func TestReadFileModes(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root bypasses file modes")
	}
	root := buildRoot(t, layout{fixture: "ofed", driver: "mlx5_core", edit: func(t *testing.T, root string) {
		if err := os.Chmod(filepath.Join(root, netDir, "ecn/roce_np/cnp_dscp"), 0); err != nil {
			t.Fatal(err)
		}
	}})
	got := ecn.Read(hostfs.Dir(root), "eth0")
	if got.CNPDSCP != nil {
		t.Errorf("CNPDSCP = %d, want unknown", *got.CNPDSCP)
	}
	want := []string{ofedDir + "/roce_np/cnp_dscp: open: permission denied"}
	if diff := cmp.Diff(want, got.Problems); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
}

// TestFixturesHaveNoColons keeps the testdata trees storable in a Go
// module zip (no ':' and no symlinks).
func TestFixturesHaveNoColons(t *testing.T) {
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ":") {
			t.Errorf("%s: ':' in a fixture name", path)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s: a symlink in the fixtures", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTriString(t *testing.T) {
	for tri, want := range map[ecn.Tri]string{ecn.Unknown: "unknown", ecn.Off: "off", ecn.On: "on", 7: "Tri(7)"} {
		if got := tri.String(); got != want {
			t.Errorf("Tri(%d).String() = %q, want %q", uint8(tri), got, want)
		}
	}
}
