// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/engine"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const fixtures = "testdata/sysfs"

func rd(v uint64, src string) lossless.Reading { return lossless.Reading{Value: v, Source: src} }

func derived(v uint64, src string) lossless.Reading {
	return lossless.Reading{Value: v, Source: src, Derived: true}
}

// mlx5Port is the mlx5 fixture's port as sampled.
func mlx5Port() lossless.RDMAPortSample {
	p := lossless.RDMAPortSample{Device: "mlx5_0", Port: 1}
	p.NDK[lossless.NDKConnect] = derived(12, "infiniband_cm/mlx5_0/1/cm_tx_msgs/rtu")
	p.NDK[lossless.NDKAccept] = derived(3, "infiniband_cm/mlx5_0/1/cm_rx_msgs/rtu")
	p.NDK[lossless.NDKConnectFailure] = derived(0, "infiniband_cm/mlx5_0/1/cm_rx_msgs/rej+cm_tx_msgs/rej")
	p.NDK[lossless.NDKRDMAInOctets] = rd(4000, "ports/1/counters/port_rcv_data x4")
	p.NDK[lossless.NDKRDMAOutOctets] = rd(8000, "ports/1/counters/port_xmit_data x4")
	p.NDK[lossless.NDKRDMAInFrames] = rd(10, "ports/1/counters/port_rcv_packets")
	p.NDK[lossless.NDKRDMAOutFrames] = rd(20, "ports/1/counters/port_xmit_packets")
	p.Congestion[lossless.CNPSent] = rd(5, "ports/1/hw_counters/np_cnp_sent")
	p.Congestion[lossless.CNPHandled] = rd(2, "ports/1/hw_counters/rp_cnp_handled")
	p.Congestion[lossless.CNPIgnored] = rd(0, "ports/1/hw_counters/rp_cnp_ignored")
	p.Congestion[lossless.ECNMarked] = rd(9, "ports/1/hw_counters/np_ecn_marked_roce_packets")
	p.Congestion[lossless.OutOfSequence] = rd(0, "ports/1/hw_counters/out_of_sequence")
	p.Congestion[lossless.OutOfBuffer] = rd(0, "ports/1/hw_counters/out_of_buffer")
	return p
}

// irdmaPort is the irdma fixture's port as sampled.
func irdmaPort() lossless.RDMAPortSample {
	p := lossless.RDMAPortSample{Device: "irdma0", Port: 1}
	p.NDK[lossless.NDKRDMAInOctets] = rd(2000, "ports/1/hw_counters/ip4InOctets+ip6InOctets")
	p.NDK[lossless.NDKRDMAOutOctets] = rd(4000, "ports/1/hw_counters/ip4OutOctets+ip6OutOctets")
	p.NDK[lossless.NDKRDMAInFrames] = rd(20, "ports/1/hw_counters/ip4InPkts+ip6InPkts")
	p.NDK[lossless.NDKRDMAOutFrames] = rd(40, "ports/1/hw_counters/ip4OutPkts+ip6OutPkts")
	p.Congestion[lossless.CNPSent] = rd(7, "ports/1/hw_counters/cnpSent")
	p.Congestion[lossless.CNPHandled] = rd(4, "ports/1/hw_counters/cnpHandled")
	p.Congestion[lossless.CNPIgnored] = rd(1, "ports/1/hw_counters/cnpIgnored")
	p.Congestion[lossless.ECNMarked] = rd(11, "ports/1/hw_counters/RxECNMrkd")
	return p
}

// bnxtPort is the bnxt_re fixture's port as sampled.
func bnxtPort() lossless.RDMAPortSample {
	p := lossless.RDMAPortSample{Device: "bnxt_re0", Port: 1}
	p.NDK[lossless.NDKRDMAInOctets] = rd(51200, "ports/1/hw_counters/rx_bytes")
	p.NDK[lossless.NDKRDMAOutOctets] = rd(61440, "ports/1/hw_counters/tx_bytes")
	p.NDK[lossless.NDKRDMAInFrames] = rd(25, "ports/1/hw_counters/rx_pkts")
	p.NDK[lossless.NDKRDMAOutFrames] = rd(30, "ports/1/hw_counters/tx_pkts")
	p.Congestion[lossless.CNPSent] = rd(4, "ports/1/hw_counters/np_cnp_pkts")
	p.Congestion[lossless.CNPHandled] = rd(2, "ports/1/hw_counters/rp_cnp_handled")
	p.Congestion[lossless.ECNMarked] = rd(6, "ports/1/hw_counters/np_ecn_marked_roce_packets")
	return p
}

// rxePort is the rxe fixture's port as sampled: packets, no octets; the
// connection-manager counters from the port's own directory (Linux 5.14
// on).
func rxePort() lossless.RDMAPortSample {
	p := lossless.RDMAPortSample{Device: "rxe0", Port: 1}
	p.NDK[lossless.NDKRDMAInFrames] = rd(424, "ports/1/hw_counters/rcvd_pkts")
	p.NDK[lossless.NDKRDMAOutFrames] = rd(13023, "ports/1/hw_counters/sent_pkts")
	p.NDK[lossless.NDKConnect] = derived(2, "infiniband/rxe0/ports/1/cm_tx_msgs/rtu")
	p.NDK[lossless.NDKAccept] = derived(0, "infiniband/rxe0/ports/1/cm_rx_msgs/rtu")
	p.NDK[lossless.NDKConnectFailure] = derived(1, "infiniband/rxe0/ports/1/cm_rx_msgs/rej+cm_tx_msgs/rej")
	p.Congestion[lossless.OutOfSequence] = rd(2, "ports/1/hw_counters/out_of_seq_request")
	return p
}

// sysfsOnly samples the sysfs source alone (the RDMA ports' counters and
// the ECN settings) under root.
func sysfsOnly(root string) *counters.Sampler {
	return counters.Compose(counters.SysfsSource(hostfs.Dir(root)))
}

// sysfsErr returns the sysfs source's error in ev, "" when none, failing
// t if another source's is there.
func sysfsErr(t *testing.T, ev engine.CountersSampled) string {
	t.Helper()
	switch {
	case len(ev.Errors) == 0:
		return ""
	case len(ev.Errors) > 1 || ev.Errors[0].Source != "sysfs":
		t.Errorf("errors %q, want the sysfs source's only", ev.Errors)
	}
	return ev.Errors[0].Err
}

func sample(ifname string, ports []lossless.RDMAPortSample, ecn *lossless.ECNSample) engine.CountersSampled {
	return engine.CountersSampled{Interface: ifname, At: t0, Interval: time.Second, RDMA: ports, ECN: ecn}
}

// TestFixtures samples each fixture tree and checks every value, unit
// (x4), Source and Derived flag; the counters Linux has no source for
// (ConnectionError, ActiveConnection, CQError) have none.
func TestFixtures(t *testing.T) {
	tests := []struct {
		root, ifname string
		want         engine.CountersSampled
	}{
		{"mlx5", "mlx0", sample("mlx0", []lossless.RDMAPortSample{mlx5Port()},
			&lossless.ECNSample{Source: "class/net/mlx0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3})},
		// An RDMA interface with no DCQCN source: unknown, with why.
		{"irdma", "ens1f0", sample("ens1f0", []lossless.RDMAPortSample{irdmaPort()}, &lossless.ECNSample{EnablesUnknown: true,
			Why: "class/net/ens1f0 has no device link: a virtual interface, without RDMA congestion control of its own"})},
		{"bnxt_re", "ens2f0np0", sample("ens2f0np0", []lossless.RDMAPortSample{bnxtPort()}, &lossless.ECNSample{EnablesUnknown: true,
			Why: "class/net/ens2f0np0 has no device link: a virtual interface, without RDMA congestion control of its own"})},
		{"rxe", "dcbt0", sample("dcbt0", []lossless.RDMAPortSample{rxePort()}, &lossless.ECNSample{EnablesUnknown: true,
			Why: "class/net/dcbt0 has no device link: a virtual interface, without RDMA congestion control of its own"})},
		{"nordma", "eth0", sample("eth0", []lossless.RDMAPortSample{}, nil)},
		// The mlx5 device is mlx0's; another netdev gets nothing of it.
		{"mlx5", "eth0", sample("eth0", []lossless.RDMAPortSample{}, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.root+"/"+tt.ifname, func(t *testing.T) {
			s := sysfsOnly(filepath.Join(fixtures, tt.root))
			got := s.Sample(tt.ifname, t0, time.Second)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sample(%q) (-want +got):\n%s", tt.ifname, diff)
			}
			if got.RDMA == nil {
				t.Error("RDMA is nil, want an empty slice")
			}
			for _, p := range got.RDMA {
				for _, c := range []lossless.NDKCounter{lossless.NDKConnectionError, lossless.NDKActiveConnection, lossless.NDKCQError} {
					if p.NDK[c].OK() {
						t.Errorf("%s has source %q; Linux has no such counter", c.Key(), p.NDK[c].Source)
					}
				}
			}
		})
	}
}

// TestFixtureInEngine feeds a fixture's sample to an engine: the masks,
// values and sources of the snapshot are those of the example.
func TestFixtureInEngine(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	tests := []struct {
		root, ifname      string
		missing, derived  uint32
		ndk               lossless.NDKValues
		inOctetsSource    string
		congestionCNPSent *uint64
	}{
		{"mlx5", "mlx0", 67108856, 7,
			lossless.NDKValues{Connect: u(12), Accept: u(3), ConnectFailure: u(0), RDMAInOctets: u(4000),
				RDMAOutOctets: u(8000), RDMAInFrames: u(10), RDMAOutFrames: u(20)},
			"ports/1/counters/port_rcv_data x4", u(5)},
		// No connection manager: bits 0-2 missing too, none derived.
		{"irdma", "ens1f0", 67108863, 0,
			lossless.NDKValues{RDMAInOctets: u(2000), RDMAOutOctets: u(4000), RDMAInFrames: u(20), RDMAOutFrames: u(40)},
			"ports/1/hw_counters/ip4InOctets+ip6InOctets", u(7)},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			s := sysfsOnly(filepath.Join(fixtures, tt.root))
			e := engine.New(engine.Config{})
			e.Step(s.Sample(tt.ifname, t0, time.Second))
			snap := e.Snapshot()
			if len(snap.Interfaces) != 1 || snap.Interfaces[0].Counters == nil {
				t.Fatalf("snapshot interfaces %+v", snap.Interfaces)
			}
			c := snap.Interfaces[0].Counters
			if len(c.RDMA) != 1 {
				t.Fatalf("RDMA %+v, want one port", c.RDMA)
			}
			r := c.RDMA[0]
			if r.MissingCounterMask != tt.missing || r.DerivedCounterMask != tt.derived {
				t.Errorf("masks missing %d derived %d, want %d and %d", r.MissingCounterMask, r.DerivedCounterMask, tt.missing, tt.derived)
			}
			if diff := cmp.Diff(tt.ndk, r.NDK); diff != "" {
				t.Errorf("NDK (-want +got):\n%s", diff)
			}
			if got := r.Sources["rdma_in_octets"]; got != tt.inOctetsSource {
				t.Errorf("source of rdma_in_octets %q, want %q", got, tt.inOctetsSource)
			}
			if diff := cmp.Diff(tt.congestionCNPSent, r.Congestion.CNPSent); diff != "" {
				t.Errorf("np_cnp_sent (-want +got):\n%s", diff)
			}
			if c.Error != nil {
				t.Errorf("error %q", *c.Error)
			}
			if c.PFC.Source != nil {
				t.Errorf("PFC source %q without ethtool or dcbnl", *c.PFC.Source)
			}
		})
	}
}

// copyFixture copies a fixture tree to a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(fixtures, name))); err != nil {
		t.Fatal(err)
	}
	return root
}

// write sets the file at rel (slash-separated) under root to content,
// creating directories.
func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const mlxPort = "class/infiniband/mlx5_0/ports/1/"

// TestRates changes the tree between two samples a second apart and
// checks the rates the engine computes from them: a counter that went
// down was reset, and its rate is its new value over the interval.
func TestRates(t *testing.T) {
	root := copyFixture(t, "mlx5")
	s := sysfsOnly(root)
	e := engine.New(engine.Config{})
	e.Step(s.Sample("mlx0", t0, time.Second))
	for rel, v := range map[string]string{
		mlxPort + "counters/port_rcv_data":                           "3000\n", // +2000 words: 8000 octets/s
		mlxPort + "counters/port_xmit_data":                          "500\n",  // reset: 500 words, 2000 octets/s
		mlxPort + "counters/port_rcv_packets":                        "16\n",
		mlxPort + "counters/port_xmit_packets":                       "20\n",
		mlxPort + "hw_counters/np_cnp_sent":                          "2\n", // reset from 5
		mlxPort + "hw_counters/rp_cnp_handled":                       "2\n",
		mlxPort + "hw_counters/np_ecn_marked_roce_packets":           "30\n",
		mlxPort + "hw_counters/out_of_sequence":                      "1\n",
		"class/infiniband_cm/mlx5_0/1/cm_tx_msgs/rtu":                "14\n",
		"class/infiniband_cm/mlx5_0/1/cm_tx_msgs/rej":                "1\n",
		"class/infiniband_cm/mlx5_0/1/cm_rx_msgs/rej":                "2\n",
		"class/net/mlx0/ecn/roce_np/enable/4":                        "1\n",
		"class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_ignored": "0", // no newline: still a number
	} {
		write(t, root, rel, v)
	}
	next := s.Sample("mlx0", t0.Add(time.Second), time.Second)
	if len(next.Errors) != 0 {
		t.Fatalf("Errors %q", next.Errors)
	}
	e.Step(next)
	c := e.Snapshot().Interfaces[0].Counters
	want := map[string]float64{
		"connect": 2, "accept": 0, "connect_failure": 3,
		"rdma_in_octets": 8000, "rdma_out_octets": 2000, "rdma_in_frames": 6, "rdma_out_frames": 0,
		"np_cnp_sent": 2, "rp_cnp_handled": 0, "rp_cnp_ignored": 0, "np_ecn_marked_roce_packets": 21,
		"out_of_sequence": 1, "out_of_buffer": 0,
	}
	if diff := cmp.Diff(want, c.RDMA[0].Rates); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	if got := *c.RDMA[0].NDK.RDMAInOctets; got != 12000 {
		t.Errorf("rdma_in_octets %d, want 12000", got)
	}
	if c.ECN == nil || c.ECN.NotificationPoint != 1<<3|1<<4 || c.ECN.ReactionPoint != 1<<3 {
		t.Errorf("ECN %+v, want NP {3,4} RP {3}", c.ECN)
	}
}

// TestBadFiles puts garbage where a counter should be: the counter is
// missing, Err names the file in one line, and nothing else changes.
func TestBadFiles(t *testing.T) {
	const rcv = mlxPort + "counters/port_rcv_data"
	noInOctets := func(p *lossless.RDMAPortSample) { p.NDK[lossless.NDKRDMAInOctets] = lossless.Reading{} }
	tests := []struct {
		name    string
		prepare func(t *testing.T, root string)
		fix     func(p *lossless.RDMAPortSample) // the port as sampled, from mlx5Port
		wantErr string
	}{
		{"letters", func(t *testing.T, root string) { write(t, root, rcv, "abc\n") }, noInOctets,
			rcv + ": not a number"},
		{"empty", func(t *testing.T, root string) { write(t, root, rcv, "") }, noInOctets, rcv + ": not a number"},
		{"only a newline", func(t *testing.T, root string) { write(t, root, rcv, "\n") }, noInOctets, rcv + ": not a number"},
		{"negative", func(t *testing.T, root string) { write(t, root, rcv, "-1\n") }, noInOctets, rcv + ": not a number"},
		{"hex", func(t *testing.T, root string) { write(t, root, rcv, "0x10\n") }, noInOctets, rcv + ": not a number"},
		{"two numbers", func(t *testing.T, root string) { write(t, root, rcv, "12 34\n") }, noInOctets, rcv + ": not a number"},
		{"two newlines", func(t *testing.T, root string) { write(t, root, rcv, "1000\n\n") }, noInOctets, rcv + ": not a number"},
		{"leading space", func(t *testing.T, root string) { write(t, root, rcv, " 1000\n") }, noInOctets, rcv + ": not a number"},
		{"NUL", func(t *testing.T, root string) { write(t, root, rcv, "10\x0000\n") }, noInOctets, rcv + ": not a number"},
		{"huge text", func(t *testing.T, root string) { write(t, root, rcv, strings.Repeat("9", 1<<16)) }, noInOctets,
			rcv + ": not a number"},
		{"above 2^64-1", func(t *testing.T, root string) { write(t, root, rcv, "18446744073709551616\n") }, noInOctets,
			rcv + ": out of range"},
		{"directory", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, rcv)))
			must(t, os.Mkdir(filepath.Join(root, rcv), 0o755))
		}, noInOctets, rcv + ": a directory, not a file"},
		{"counters is a file", func(t *testing.T, root string) {
			must(t, os.RemoveAll(filepath.Join(root, mlxPort+"counters")))
			write(t, root, mlxPort+"counters", "0\n")
		}, func(p *lossless.RDMAPortSample) {
			for _, c := range []lossless.NDKCounter{lossless.NDKRDMAInOctets, lossless.NDKRDMAOutOctets, lossless.NDKRDMAInFrames, lossless.NDKRDMAOutFrames} {
				p.NDK[c] = lossless.Reading{}
			}
		}, mlxPort + "counters/port_rcv_data: not a directory; " + mlxPort + "counters/port_xmit_data: not a directory; " +
			mlxPort + "counters/port_rcv_packets: not a directory; " + mlxPort + "counters/port_xmit_packets: not a directory"},
		{"garbage with a fallback", func(t *testing.T, root string) {
			write(t, root, rcv, "many\n")
			write(t, root, mlxPort+"hw_counters/ip4InOctets", "4242\n")
		}, func(p *lossless.RDMAPortSample) {
			p.NDK[lossless.NDKRDMAInOctets] = rd(4242, "ports/1/hw_counters/ip4InOctets")
		}, rcv + ": not a number"},
		{"one of a sum", func(t *testing.T, root string) {
			write(t, root, "class/infiniband_cm/mlx5_0/1/cm_rx_msgs/rej", "x\n")
			write(t, root, "class/infiniband_cm/mlx5_0/1/cm_tx_msgs/rej", "4\n")
		}, func(p *lossless.RDMAPortSample) {
			p.NDK[lossless.NDKConnectFailure] = derived(4, "infiniband_cm/mlx5_0/1/cm_tx_msgs/rej")
		}, "class/infiniband_cm/mlx5_0/1/cm_rx_msgs/rej: not a number"},
		{"congestion", func(t *testing.T, root string) { write(t, root, mlxPort+"hw_counters/np_cnp_sent", "5.0\n") },
			func(p *lossless.RDMAPortSample) { p.Congestion[lossless.CNPSent] = lossless.Reading{} },
			mlxPort + "hw_counters/np_cnp_sent: not a number"},
		{"ECN flag 2", func(t *testing.T, root string) { write(t, root, "class/net/mlx0/ecn/roce_rp/enable/5", "2\n") },
			func(*lossless.RDMAPortSample) {}, "class/net/mlx0/ecn/roce_rp/enable/5: 2 is out of range 0..1"},
		{"ECN all garbage", func(t *testing.T, root string) {
			for _, pt := range []string{"roce_np", "roce_rp"} {
				for p := range 8 {
					write(t, root, "class/net/mlx0/ecn/"+pt+"/enable/"+string(rune('0'+p)), "on\n")
				}
			}
		}, func(*lossless.RDMAPortSample) {}, func() string {
			var errs []string
			for p := range 8 {
				errs = append(errs, fmt.Sprintf(`class/net/mlx0/ecn/roce_np/enable/%d: not a decimal number: "on\n"`, p))
			}
			return strings.Join(errs, "; ") + "; and 8 more"
		}()},
		{"unreadable GID entries are empty ones", func(t *testing.T, root string) {
			// The kernel answers EINVAL for unused GID entries.
			must(t, os.Mkdir(filepath.Join(root, mlxPort+"gid_attrs/ndevs/2"), 0o755))
			write(t, root, mlxPort+"gid_attrs/ndevs/3", "")
		}, func(*lossless.RDMAPortSample) {}, ""},
		{"not a port", func(t *testing.T, root string) {
			write(t, root, "class/infiniband/mlx5_0/ports/lo/counters/port_rcv_data", "1\n")
			write(t, root, "class/infiniband/mlx5_0/ports/99999999999999999999/gid_attrs/ndevs/0", "mlx0\n")
		}, func(*lossless.RDMAPortSample) {}, ""},
		{"odd device name", func(t *testing.T, root string) {
			write(t, root, "class/infiniband/odd\ndev/ports/1/gid_attrs/ndevs/0", "mlx0\n")
			write(t, root, "class/infiniband/odd\ndev/ports/1/counters/port_rcv_packets", "?\n")
		}, nil, `class/infiniband/odd\ndev/ports/1/counters/port_rcv_packets: not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := copyFixture(t, "mlx5")
			tt.prepare(t, root)
			got := sysfsOnly(root).Sample("mlx0", t0, time.Second)
			if sysfsErr(t, got) != tt.wantErr {
				t.Errorf("Err\n%q, want\n%q", sysfsErr(t, got), tt.wantErr)
			}
			if e := sysfsErr(t, got); strings.ContainsAny(e, "\n\r") || strings.Contains(e, root) {
				t.Errorf("Err %q is not one line relative to the root", e)
			}
			if tt.fix == nil {
				return
			}
			p := mlx5Port()
			tt.fix(&p)
			if diff := cmp.Diff([]lossless.RDMAPortSample{p}, got.RDMA); diff != "" {
				t.Errorf("RDMA (-want +got):\n%s", diff)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSaturation checks that x4 and sums stop at 2^64-1 instead of
// wrapping.
func TestSaturation(t *testing.T) {
	const max = "18446744073709551615\n"
	tests := []struct {
		name  string
		files map[string]string
		want  lossless.Reading
	}{
		{"x4", map[string]string{"counters/port_rcv_data": max}, rd(math.MaxUint64, "ports/1/counters/port_rcv_data x4")},
		{"x4 of a quarter", map[string]string{"counters/port_rcv_data": "4611686018427387903\n"},
			rd(math.MaxUint64-3, "ports/1/counters/port_rcv_data x4")},
		{"x4 just above a quarter", map[string]string{"counters/port_rcv_data": "4611686018427387904\n"},
			rd(math.MaxUint64, "ports/1/counters/port_rcv_data x4")},
		{"sum", map[string]string{"hw_counters/ip4InOctets": max, "hw_counters/ip6InOctets": "1\n"},
			rd(math.MaxUint64, "ports/1/hw_counters/ip4InOctets+ip6InOctets")},
		{"IPv6 only", map[string]string{"hw_counters/ip6InOctets": "77\n"}, rd(77, "ports/1/hw_counters/ip6InOctets")},
		// mlx5's optional counters never appear in sysfs: a file of that
		// name (a tree no kernel makes) is not read.
		{"mlx5 optional counter's name", map[string]string{"hw_counters/rdma_rx_bytes": max, "hw_counters/ip4InOctets": "1\n"},
			rd(1, "ports/1/hw_counters/ip4InOctets")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n")
			for rel, v := range tt.files {
				write(t, root, "class/infiniband/rxe0/ports/1/"+rel, v)
			}
			got := sysfsOnly(root).Sample("eth0", t0, time.Second)
			if len(got.Errors) != 0 || len(got.RDMA) != 1 {
				t.Fatalf("Errors %q, RDMA %+v", got.Errors, got.RDMA)
			}
			if diff := cmp.Diff(tt.want, got.RDMA[0].NDK[lossless.NDKRDMAInOctets]); diff != "" {
				t.Errorf("rdma_in_octets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBindings checks which RDMA device ports belong to an interface.
func TestBindings(t *testing.T) {
	type port struct {
		Dev  string
		Port int
	}
	tests := []struct {
		name   string
		files  map[string]string
		ifname string
		want   []port
	}{
		{"device link, no GID table: every port", map[string]string{
			"class/net/ib0/device/infiniband/mlx4_0/node_type": "1: CA\n",
			"class/infiniband/mlx4_0/ports/1/state":            "4: ACTIVE\n",
			"class/infiniband/mlx4_0/ports/2/state":            "1: DOWN\n",
		}, "ib0", []port{{"mlx4_0", 1}, {"mlx4_0", 2}}},
		{"device link, GID table: the ports naming the netdev", map[string]string{
			"class/net/eth1/device/infiniband/mlx4_0/node_type": "1: CA\n",
			"class/infiniband/mlx4_0/ports/1/gid_attrs/ndevs/0": "eth0\n",
			"class/infiniband/mlx4_0/ports/2/gid_attrs/ndevs/0": "eth1\n",
			"class/infiniband/mlx4_0/ports/2/gid_attrs/ndevs/1": "eth1\n",
		}, "eth1", []port{{"mlx4_0", 2}}},
		{"device link, GID table naming others only", map[string]string{
			"class/net/eth1/device/infiniband/mlx4_0/node_type": "1: CA\n",
			"class/infiniband/mlx4_0/ports/1/gid_attrs/ndevs/0": "eth0\n",
		}, "eth1", nil},
		{"device link, unused GID entries: every port", map[string]string{
			"class/net/ib0/device/infiniband/mlx5_0/node_type":  "1: CA\n",
			"class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0": "",
		}, "ib0", []port{{"mlx5_0", 1}}},
		{"soft-RoCE: GID table only", map[string]string{
			"class/net/eth0/ifindex":                          "2\n",
			"class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0": "eth0\n",
			"class/infiniband/rxe1/ports/1/gid_attrs/ndevs/0": "eth1\n",
		}, "eth0", []port{{"rxe0", 1}}},
		{"sorted by device, then port number", map[string]string{
			"class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/0":  "bond0\n",
			"class/infiniband/mlx5_0/ports/10/gid_attrs/ndevs/0": "bond0\n",
			"class/infiniband/mlx5_0/ports/2/gid_attrs/ndevs/0":  "bond0\n",
			"class/infiniband/mlx5_0/ports/3/gid_attrs/ndevs/0":  "eth9\n",
		}, "bond0", []port{{"mlx5_0", 2}, {"mlx5_0", 10}, {"mlx5_1", 1}}},
		{"device link to a device without ports", map[string]string{
			"class/net/eth0/device/infiniband/gone0/node_type": "1: CA\n",
		}, "eth0", nil},
		{"no class/infiniband", map[string]string{"class/net/eth0/ifindex": "2\n"}, "eth0", nil},
		{"odd but valid interface name", map[string]string{
			"class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0": "eth0.100@x\n",
		}, "eth0.100@x", []port{{"rxe0", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, v := range tt.files {
				write(t, root, rel, v)
			}
			got := sysfsOnly(root).Sample(tt.ifname, t0, time.Second)
			if len(got.Errors) != 0 {
				t.Errorf("Errors %q", got.Errors)
			}
			if got.RDMA == nil {
				t.Fatal("RDMA is nil")
			}
			var ports []port
			for _, p := range got.RDMA {
				ports = append(ports, port{p.Device, p.Port})
			}
			if diff := cmp.Diff(tt.want, ports); diff != "" {
				t.Errorf("ports (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInvalidNames gives names that are no interface's: they are never
// used in a path, and the sample says why it is empty.
func TestInvalidNames(t *testing.T) {
	et := &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(0xff)}
	s := counters.New(counters.Config{SysfsRoot: filepath.Join(fixtures, "mlx5"), Ethtool: et, DCB: &fakeDCB{req: [8]uint64{1}}})
	for _, name := range []string{"", ".", "..", "../mlx0", "mlx0/..", "../../../etc", "a:b", "eth 0", "eth0\n",
		"eth0\x00", "sixteen-chars-xx", strings.Repeat("x", 4096)} {
		got := s.Sample(name, t0, time.Second)
		want := engine.CountersSampled{Interface: name, At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
			Errors: []lossless.SourceError{{Err: "invalid interface name " + strconv.Quote(name)}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Sample(%q) (-want +got):\n%s", name, diff)
		}
	}
	if len(et.calls) != 0 {
		t.Errorf("ethtool asked about %q", et.calls)
	}
}

// TestDefaults checks the documented defaults.
func TestDefaults(t *testing.T) {
	if counters.EnvSysfsRoot != "DCBTOP_SYSFS_ROOT" || counters.DefaultSysfsRoot != "/sys" {
		t.Errorf("EnvSysfsRoot %q, DefaultSysfsRoot %q", counters.EnvSysfsRoot, counters.DefaultSysfsRoot)
	}
	if got := sourceNames(t, counters.New(counters.Config{SysfsRoot: t.TempDir()})); !slices.Equal(got, []string{"sysfs", "rdma"}) {
		t.Errorf("sources without readers %q, want sysfs and rdma", got)
	}
}

// TestECN checks how capture/ecn's settings become the engine's sample:
// the sixteen enables count only when all were read (one bad file leaves
// them unknown, never off), the CNP's marking passes through, and an
// interface without RDMA and without a source has none.
func TestECN(t *testing.T) {
	const dir = "class/net/eth0/ecn/"
	full := func(np, rp dcb.PrioSet, extra map[string]string) map[string]string {
		m := map[string]string{}
		for p := range 8 {
			m[fmt.Sprintf(dir+"roce_np/enable/%d", p)] = fmt.Sprintf("%d\n", np>>p&1)
			m[fmt.Sprintf(dir+"roce_rp/enable/%d", p)] = fmt.Sprintf("%d\n", rp>>p&1)
		}
		maps.Copy(m, extra)
		return m
	}
	dscp, prio := uint8(48), uint8(6)
	tests := []struct {
		name    string
		files   map[string]string
		want    *lossless.ECNSample
		wantErr string
	}{
		{"none", map[string]string{"class/net/eth0/ifindex": "2\n"}, nil, ""},
		{"vendor tree: enables and the CNP's marking", full(1<<3, 1<<3, map[string]string{dir + "roce_np/cnp_dscp": "48\n", dir + "roce_np/cnp_802p_prio": "6\n"}),
			&lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3, CNPDSCP: &dscp, CNPPriority: &prio}, ""},
		{"NP and RP apart", full(1<<2|1<<5, 1<<5, nil),
			&lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1<<2 | 1<<5, ReactionPoint: 1 << 5}, ""},
		{"a bad flag among good ones: enables unknown", full(1<<3, 1<<3, map[string]string{dir + "roce_rp/enable/3": "yes\n"}),
			&lossless.ECNSample{Source: "class/net/eth0/ecn", EnablesUnknown: true}, dir + `roce_rp/enable/3: not a decimal number: "yes\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, v := range tt.files {
				write(t, root, rel, v)
			}
			got := sysfsOnly(root).Sample("eth0", t0, time.Second)
			if diff := cmp.Diff(tt.want, got.ECN); diff != "" {
				t.Errorf("ECN (-want +got):\n%s", diff)
			}
			if e := sysfsErr(t, got); e != tt.wantErr {
				t.Errorf("Err %q, want %q", e, tt.wantErr)
			}
		})
	}
}
