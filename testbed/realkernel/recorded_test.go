// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
)

// srcDir holds the source tree's recordings (testbed/vm's TestRealKernel
// copies them into the output directory beside the binaries).
var srcDir = os.Getenv("DCBTOP_SRC")

// checkRecorded holds the real kernel's reply b to the recording rel
// (under the source tree) by layout (nlfixture.Layout: attributes,
// nesting, lengths; not values), and writes b to the output directory's
// kernel/rel for `DCBTOP_VM_UPDATE=1` to copy into the tree.
func checkRecorded(t *testing.T, rel, comment string, b []byte) {
	t.Helper()
	out := filepath.Join("/tmp/out/kernel", rel)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte(nlfixture.FormatRecorded(comment, b)), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := nlfixture.ReadRecorded(filepath.Join(srcDir, rel))
	if err != nil {
		t.Errorf("%v (DCBTOP_VM_UPDATE=1 records it)", err)
		return
	}
	got, err := nlfixture.Layout(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := nlfixture.Layout(want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, wl) {
		t.Errorf("the kernel's reply no longer has the layout of %s (DCBTOP_VM_UPDATE=1 records it anew; then the fixtures' tests say what to change):\nkernel:   %q\nrecorded: %q", rel, got, wl)
	}
}

// The real kernel's answers to the requests of dcbtop's ethtool-netlink
// and RDMA-netlink clients, recorded for the clients' unit tests, which
// hold their hand-written fixtures to them (capture/linkpause and
// capture/rdmastat, TestFixturesAgainstKernel): ETHTOOL_MSG_PAUSE_GET
// with ETHTOOL_FLAG_STATS on the DCB test device (pause ops and pause
// statistics, as a NIC driver has them), and RDMA_NLDEV_CMD_STAT_GET and
// STAT_GET_STATUS of a Soft-RoCE port that has carried nothing; and the
// counter files of the Soft-RoCE sysfs fixture tree (capture/counters).
func TestRecordedReplies(t *testing.T) {
	if srcDir == "" {
		t.Fatal("DCBTOP_SRC is not set")
	}
	freshDevice(t)
	run(t, "ethtool", "-A", "dcbt0", "autoneg", "off", "rx", "on", "tx", "off")
	debugfs(t, "dcbt0", "pause", "tx link 5")
	debugfs(t, "dcbt0", "pause", "rx link 2")

	// ethtool netlink (include/uapi/linux/genetlink.h, ethtool_netlink.h:
	// CTRL_CMD_GETFAMILY 3, CTRL_ATTR_FAMILY_ID 1 and _NAME 2;
	// ETHTOOL_MSG_PAUSE_GET 21, ETHTOOL_A_PAUSE_HEADER 1,
	// ETHTOOL_A_HEADER_DEV_NAME 2 and _FLAGS 3, ETHTOOL_FLAG_STATS 4).
	g, err := netlink.Dial(syscall.NETLINK_GENERIC, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	genl := func(typ netlink.HeaderType, cmd uint8, ae *netlink.AttributeEncoder) []byte {
		t.Helper()
		attrs, err := ae.Encode()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := g.Execute(netlink.Message{Header: netlink.Header{Type: typ, Flags: netlink.Request}, Data: append([]byte{cmd, 1, 0, 0}, attrs...)})
		if err != nil || len(msgs) != 1 || len(msgs[0].Data) < 4 {
			t.Fatalf("generic netlink %#x command %d: %v (%d messages)", typ, cmd, err, len(msgs))
		}
		return msgs[0].Data[4:]
	}
	ae := netlink.NewAttributeEncoder()
	ae.String(2, "ethtool")
	ad, err := netlink.NewAttributeDecoder(genl(0x10, 3, ae)) // GENL_ID_CTRL
	if err != nil {
		t.Fatal(err)
	}
	var family netlink.HeaderType
	for ad.Next() {
		if ad.Type() == 1 {
			family = netlink.HeaderType(ad.Uint16())
		}
	}
	ae = netlink.NewAttributeEncoder()
	ae.Nested(1, func(nae *netlink.AttributeEncoder) error {
		nae.String(2, "dcbt0")
		nae.Uint32(3, 4)
		return nil
	})
	pause := genl(family, 21, ae)
	checkRecorded(t, "capture/linkpause/testdata/kernel/pause-get-stats.hex",
		"ETHTOOL_MSG_PAUSE_GET_REPLY attributes (after the genetlink header) for dcbt0 with ETHTOOL_FLAG_STATS:\nautoneg off, rx on, tx off, 5 pause frames sent, 2 received (testbed/realkernel TestRecordedReplies)",
		pause)

	// RDMA netlink.
	rxeOn(t, "rxe0", "dcbt0")
	// The Soft-RoCE fixture tree of capture/counters (testdata/sysfs/rxe,
	// written from this kernel's sysfs) names the counters this kernel
	// has, no more and no fewer, in each directory dcbtop reads them from.
	for _, dir := range []string{"hw_counters", "cm_tx_msgs", "cm_rx_msgs"} {
		names := func(path string) []string {
			t.Helper()
			entries, err := os.ReadDir(path)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range entries {
				out = append(out, e.Name())
			}
			return out
		}
		rel := "class/infiniband/rxe0/ports/1/" + dir
		kernel := names("/sys/" + rel)
		fixture := names(filepath.Join(srcDir, "capture/counters/testdata/sysfs/rxe", rel))
		if !slices.Equal(kernel, fixture) {
			t.Errorf("capture/counters/testdata/sysfs/rxe/%s names %q; the kernel's rxe0 has %q", rel, fixture, kernel)
		}
	}
	var devs []struct {
		Index  uint32 `json:"ifindex"`
		Ifname string `json:"ifname"`
	}
	if err := json.Unmarshal([]byte(run(t, "rdma", "-j", "dev", "show", "rxe0")), &devs); err != nil || len(devs) != 1 {
		t.Fatalf("rdma -j dev show rxe0: %v %+v", err, devs)
	}
	c, err := netlink.Dial(20, nil) // NETLINK_RDMA
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, r := range []struct {
		cmd  netlink.HeaderType
		file string
		what string
	}{
		{rdmastat.RDMA_NLDEV_CMD_STAT_GET, "stat-get-rxe.hex", "RDMA_NLDEV_CMD_STAT_GET"},
		{rdmastat.RDMA_NLDEV_CMD_STAT_GET_STATUS, "stat-get-status-rxe.hex", "RDMA_NLDEV_CMD_STAT_GET_STATUS"},
	} {
		ae := netlink.NewAttributeEncoder()
		ae.Uint32(rdmastat.RDMA_NLDEV_ATTR_DEV_INDEX, devs[0].Index)
		ae.Uint32(rdmastat.RDMA_NLDEV_ATTR_PORT_INDEX, 1)
		req, err := ae.Encode()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := c.Execute(netlink.Message{Header: netlink.Header{Type: rdmastat.RDMA_NL_NLDEV<<rdmastat.RDMA_NL_CLIENT_SHIFT + r.cmd, Flags: netlink.Request}, Data: req})
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%s: %v (%d messages)", r.what, err, len(msgs))
		}
		checkRecorded(t, "capture/rdmastat/testdata/kernel/"+r.file,
			r.what+" reply attributes for rxe0 (Soft-RoCE over testbed/kmod's dcbt0) port 1, no traffic yet (testbed/realkernel TestRecordedReplies)",
			msgs[0].Data)
	}
}
