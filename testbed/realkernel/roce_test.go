// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/testbed"
)

// rxeOn makes a Soft-RoCE device rxe over dev (drivers/infiniband/sw/
// rxe; rdma_rxe needs crc32_generic loaded first, or it fails with "failed
// to init crc32 algorithm err:-2") and deletes it when t ends.
func rxeOn(t *testing.T, rxe, dev string) {
	t.Helper()
	for _, m := range []string{"crc32_generic", "rdma_rxe", "rdma_ucm", "rdma_cm"} {
		run(t, "modprobe", m)
	}
	// rdma_cm's configfs (drivers/infiniband/core/cma_configfs.c), where
	// the default ToS is set: configfs is a module on Debian's kernel,
	// loaded with rdma_cm, mounted here.
	if b, _ := os.ReadFile("/proc/mounts"); !strings.Contains(string(b), " /sys/kernel/config configfs ") {
		run(t, "mount", "-t", "configfs", "configfs", "/sys/kernel/config")
	}
	run(t, "rdma", "link", "add", rxe, "type", "rxe", "netdev", dev)
	t.Cleanup(func() {
		if out, err := runErr("rdma", "link", "delete", rxe); err != nil {
			t.Errorf("rdma link delete %s: %v: %s", rxe, err, out)
		}
	})
}

// What the kernel's RDMA core says of a RoCE port, dcbtop shows: the
// port of `rdma link` over its netdev and the RoCE v2 GID of the
// interface's address from the port's sysfs GID table; the ToS that
// `dcbtop apply --roce-tos` writes to rdma_cm's configfs is read back
// there and leaves on the wire (tcpdump, on the other end of the pair,
// decodes it from rdma_cm's connection request), and the DCB test
// device's classification by the APP table (DSCP 26 on priority 3) puts
// those packets on priority 3 (ethtool -S).
func TestRoCEToSOnTheWire(t *testing.T) {
	freshDevice(t)
	peer := testbed.NewNS(t, "roce")
	run(t, "ip", "link", "set", "dcbt1", "netns", peer.Name)
	for _, args := range [][]string{{"ip", "link", "set", "dcbt1", "up"}, {"ip", "addr", "add", "10.9.0.2/24", "dev", "dcbt1"}} {
		if out, err := peer.Run(args...); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	run(t, "ip", "addr", "add", "10.9.0.1/24", "dev", "dcbt0")
	rxeOn(t, "rxe0", "dcbt0")
	dcbSet(t, "app", "add", "dev", "dcbt0", "dscp-prio", "26:3")
	dcbSet(t, "pfc", "set", "dev", "dcbt0", "prio-pfc", "3:on")

	var links []struct {
		Ifname string `json:"ifname"`
		Port   int    `json:"port"`
		State  string `json:"state"`
		Netdev string `json:"netdev"`
	}
	if err := json.Unmarshal([]byte(run(t, "rdma", "-j", "link", "show")), &links); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(links, func(l struct {
		Ifname string `json:"ifname"`
		Port   int    `json:"port"`
		State  string `json:"state"`
		Netdev string `json:"netdev"`
	}) bool {
		return strings.HasPrefix(l.Ifname, "rxe0")
	})
	if i < 0 || links[i].Netdev != "dcbt0" {
		t.Fatalf("rdma link show: %+v, want rxe0 over dcbt0", links)
	}
	// The RoCE v2 GID of 10.9.0.1 in rxe0's sysfs GID table.
	gidIndex := -1
	for n := range 16 {
		gid, _ := os.ReadFile(filepath.Join("/sys/class/infiniband/rxe0/ports/1/gids", strconv.Itoa(n)))
		typ, _ := os.ReadFile(filepath.Join("/sys/class/infiniband/rxe0/ports/1/gid_attrs/types", strconv.Itoa(n)))
		if strings.HasSuffix(strings.TrimSpace(string(gid)), "ffff:0a09:0001") && strings.Contains(string(typ), "v2") {
			gidIndex = n
		}
	}
	if gidIndex < 0 {
		t.Fatal("no RoCE v2 GID of 10.9.0.1 in /sys/class/infiniband/rxe0/ports/1/gids")
	}

	in := snapshot(t, "dcbt0")
	roce := func(in []lossless.RoCEPortSample) *lossless.RoCEPortSample {
		for i := range in {
			if in[i].Device == "rxe0" && in[i].Port == 1 {
				return &in[i]
			}
		}
		return nil
	}
	if in.Counters == nil || roce(in.Counters.RoCE) == nil {
		t.Fatalf("dcbtop shows no RoCE port rxe0/1 on dcbt0 (rdma link: %+v)", links[i])
	}
	port := roce(in.Counters.RoCE)
	if !slices.ContainsFunc(port.GIDs, func(g lossless.RoCEGID) bool {
		return g.Index == gidIndex && g.IPv4 != nil && *g.IPv4 == "10.9.0.1" && g.Type != nil && strings.Contains(*g.Type, "v2")
	}) {
		t.Errorf("dcbtop's GIDs of rxe0/1 lack the RoCE v2 GID %d of 10.9.0.1: %+v", gidIndex, port.GIDs)
	}

	code, stdout, stderr := dcbtop(t, "", "apply", "-i", "dcbt0", "--roce-tos", "rxe0/1=106")
	if code != 0 {
		t.Fatalf("dcbtop apply --roce-tos rxe0/1=106: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile("/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos"); err != nil || strings.TrimSpace(string(b)) != "106" {
		t.Errorf("rdma_cm's configfs reads %q (%v), want 106", b, err)
	}
	in = snapshot(t, "dcbt0")
	if p := roce(in.Counters.RoCE); p == nil || p.DefaultToS == nil || p.DefaultToS.ToS != 106 {
		t.Errorf("dcbtop's default ToS of rxe0/1 after the apply: %+v, want 106", p)
	}

	// On the wire: rdma_cm's connection request to the other end (nobody
	// answers it; its retries are what is looked at).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tcpdump := exec.CommandContext(ctx, "ip", "netns", "exec", peer.Name, "tcpdump", "-i", "dcbt1", "-n", "-v", "-l", "-c", "1", "udp", "port", "4791")
	var out bytes.Buffer
	tcpdump.Stdout = &out
	errPipe, err := tcpdump.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tcpdump.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	before, start := txPrio(t, 3), time.Now()
	rping := exec.CommandContext(ctx, "rping", "-c", "-a", "10.9.0.2", "-C", "1")
	_ = rping.Start()
	err = tcpdump.Wait()
	_ = rping.Process.Kill()
	_ = rping.Wait()
	if err != nil {
		t.Fatalf("tcpdump: %v (nothing on UDP 4791 within 30 s?)\n%s", err, out.String())
	}
	t.Logf("rdma_cm's first RoCE v2 packet after %v:\n%s", time.Since(start).Round(time.Millisecond), out.String())
	if !regexp.MustCompile(`tos 0x6a\b`).MatchString(out.String()) {
		t.Errorf("tcpdump does not see tos 0x6a on RoCE v2 packets:\n%s", out.String())
	}
	if after := txPrio(t, 3); after <= before {
		t.Errorf("tx_prio3_packets %d -> %d: the APP table's DSCP 26 did not put RoCE packets on priority 3", before, after)
	}
}

// txPrio returns ethtool -S dcbt0's tx_prio{p}_packets.
func txPrio(t *testing.T, p int) uint64 {
	t.Helper()
	key := "tx_prio" + strconv.Itoa(p) + "_packets: "
	for _, line := range strings.Split(run(t, "ethtool", "-S", "dcbt0"), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("ethtool -S dcbt0 has no %s", key)
	return 0
}
