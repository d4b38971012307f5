// SPDX-License-Identifier: Apache-2.0

//go:build linux

package rdmastat

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// A fakeKernel answers the requests sent through an nltest connection, the
// way ib_core's nldev does, and records them.
type fakeKernel struct{ *nlfixture.Kernel }

// newFake returns a Client whose kernel is answer: it returns the
// attributes of each reply message to req (one for a doit, one per device
// for a dump), or an errno to send back as a netlink error. Replies carry
// the type of their request (nlmsg_put with RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
// the same command) in nldev.c).
func newFake(t *testing.T, answer func(req netlink.Message) ([][]byte, syscall.Errno)) (*Client, fakeKernel) {
	t.Helper()
	nlfixture.RequireLittleEndian(t)
	fk := fakeKernel{&nlfixture.Kernel{Answer: func(req netlink.Message) ([]netlink.Message, syscall.Errno) {
		datas, errno := answer(req)
		var msgs []netlink.Message
		for _, d := range datas {
			msgs = append(msgs, netlink.Message{Header: netlink.Header{Type: req.Header.Type}, Data: d})
		}
		return msgs, errno
	}}}
	c := NewClient(fk.Dial())
	t.Cleanup(func() { c.Close() })
	return c, fk
}

// types returns the message types of the recorded requests, by name.
func (fk fakeKernel) types() []string {
	var names []string
	for _, r := range fk.Requests() {
		names = append(names, map[netlink.HeaderType]string{
			typeGet: "GET", typeStatGet: "STAT_GET", typeStatGetStatus: "STAT_GET_STATUS",
		}[r.Header.Type])
	}
	return names
}

// devMsg is one message of a GET dump (fill_dev_info), cut after the
// attributes the package reads plus one it does not.
func devMsg(name string, index, ports uint32) []byte {
	return nlfixture.Cat(
		nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(index)),
		nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr(name)),
		nla(RDMA_NLDEV_ATTR_PORT_INDEX, le32(ports)),
		nla(5, cstr("28.39.1002")), // RDMA_NLDEV_ATTR_FW_VERSION
	)
}

// reqPort returns the device index and port of a STAT request.
func reqPort(t *testing.T, req netlink.Message) (dev, port uint32) {
	ad, err := netlink.NewAttributeDecoder(req.Data)
	if err != nil {
		t.Errorf("request attributes: %v", err)
		return 0, 0
	}
	for ad.Next() {
		switch ad.Type() {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			dev = ad.Uint32()
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			port = ad.Uint32()
		}
	}
	return dev, port
}

// mlx5Kernel is a kernel with mlx5_0 (index 3) and mlx5_1 (index 4), one
// port each, whose mlx5_0 port 1 has the optional counters in enabled
// enabled. statusErrno, when not 0, is its answer to STAT_GET_STATUS (an
// older kernel's EINVAL).
func mlx5Kernel(t *testing.T, enabled map[string]uint64, statusErrno syscall.Errno) func(netlink.Message) ([][]byte, syscall.Errno) {
	return func(req netlink.Message) ([][]byte, syscall.Errno) {
		switch req.Header.Type {
		case typeGet:
			return [][]byte{devMsg("mlx5_1", 4, 1), devMsg("mlx5_0", 3, 1)}, 0
		case typeStatGet, typeStatGetStatus:
			if dev, port := reqPort(t, req); dev != 3 || port != 1 {
				return nil, syscall.EINVAL // ib_device_get_by_index or ib_get_hw_stats_port failed
			}
			if req.Header.Type == typeStatGet {
				return [][]byte{mlx5StatGet(enabled)}, 0
			}
			if statusErrno != 0 {
				return nil, statusErrno
			}
			return [][]byte{mlx5Status(enabled)}, 0
		}
		return nil, syscall.EINVAL // rdma_nl_rcv_msg: unknown op
	}
}

// TestRequests checks the exact bytes of the three requests: netlink
// header (RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd); NLM_F_REQUEST, with
// NLM_F_DUMP for GET; never NLM_F_ACK) and the attributes, with no family
// header.
func TestRequests(t *testing.T) {
	c, fk := newFake(t, mlx5Kernel(t, nil, 0))
	if _, err := c.Port("mlx5_0", 1); err != nil {
		t.Fatalf("Port: %v", err)
	}
	want := [][]byte{
		{ // GET dump
			0x10, 0x00, 0x00, 0x00, // nlmsg_len 16
			0x01, 0x14, // RDMA_NL_GET_TYPE(5, RDMA_NLDEV_CMD_GET) = 0x1401
			0x01, 0x03, // NLM_F_REQUEST|NLM_F_DUMP (NLM_F_ROOT|NLM_F_MATCH)
			0, 0, 0, 0, 0, 0, 0, 0, // seq, pid (zeroed by wire)
		},
		{ // STAT_GET
			0x20, 0x00, 0x00, 0x00, // nlmsg_len 32
			0x11, 0x14, // RDMA_NL_GET_TYPE(5, RDMA_NLDEV_CMD_STAT_GET) = 0x1411
			0x01, 0x00, // NLM_F_REQUEST
			0, 0, 0, 0, 0, 0, 0, 0,
			0x08, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, // RDMA_NLDEV_ATTR_DEV_INDEX 3
			0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, // RDMA_NLDEV_ATTR_PORT_INDEX 1
		},
		{ // STAT_GET_STATUS
			0x20, 0x00, 0x00, 0x00,
			0x18, 0x14, // RDMA_NL_GET_TYPE(5, RDMA_NLDEV_CMD_STAT_GET_STATUS) = 0x1418
			0x01, 0x00,
			0, 0, 0, 0, 0, 0, 0, 0,
			0x08, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00,
			0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
		},
	}
	reqs := fk.Requests()
	if len(reqs) != len(want) {
		t.Fatalf("sent %d requests (%v), want %d", len(reqs), fk.types(), len(want))
	}
	for i, w := range want {
		if got := nlfixture.Wire(t, reqs[i]); string(got) != string(w) {
			t.Errorf("request %d:\n got % x\nwant % x", i, got, w)
		}
	}
}

// mlx5Counters is the Port.Counters of mlx5_0/1 as mlx5StatGet and
// mlx5Status describe it, with the optional counters given.
func mlx5Counters(status bool, optional ...Counter) []Counter {
	cs := []Counter{
		{Name: "np_cnp_sent", Value: u64p(5149)},
		{Name: "np_ecn_marked_roce_packets", Value: u64p(5150)},
		{Name: "out_of_buffer", Value: u64p(12)},
		{Name: "out_of_sequence", Value: u64p(3)},
		{Name: "rp_cnp_handled", Value: u64p(4242)},
		{Name: "rp_cnp_ignored", Value: u64p(0)},
		{Name: "rx_icrc_encapsulated", Value: u64p(0)},
	}
	return append(optional, cs...) // the cc_ names sort first
}

// TestPort reads mlx5_0/1 from fake kernels: optional counters disabled,
// enabled, and a kernel without STAT_GET_STATUS.
func TestPort(t *testing.T) {
	tests := []struct {
		name         string
		enabled      map[string]uint64
		statusErrno  syscall.Errno
		want         Port
		wantDisabled []string
		wantCommand  string
	}{
		{
			name:    "optional counters disabled but one",
			enabled: map[string]uint64{"cc_rx_ce_pkts": 77},
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: mlx5Counters(true,
				Counter{Name: "cc_rx_ce_pkts", Value: u64p(77), Optional: true, Enabled: true},
				Counter{Name: "cc_rx_cnp_pkts", Optional: true},
				Counter{Name: "cc_tx_cnp_pkts", Optional: true},
			)},
			wantDisabled: []string{"cc_rx_cnp_pkts", "cc_tx_cnp_pkts"},
			wantCommand:  "rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts",
		},
		{
			name:    "optional counters all disabled (mlx5's default)",
			enabled: nil,
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: mlx5Counters(true,
				Counter{Name: "cc_rx_ce_pkts", Optional: true},
				Counter{Name: "cc_rx_cnp_pkts", Optional: true},
				Counter{Name: "cc_tx_cnp_pkts", Optional: true},
			)},
			wantDisabled: []string{"cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts"},
			wantCommand:  "rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts",
		},
		{
			name:    "optional counters all enabled",
			enabled: map[string]uint64{"cc_rx_ce_pkts": 77, "cc_rx_cnp_pkts": 5, "cc_tx_cnp_pkts": 6},
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: mlx5Counters(true,
				Counter{Name: "cc_rx_ce_pkts", Value: u64p(77), Optional: true, Enabled: true},
				Counter{Name: "cc_rx_cnp_pkts", Value: u64p(5), Optional: true, Enabled: true},
				Counter{Name: "cc_tx_cnp_pkts", Value: u64p(6), Optional: true, Enabled: true},
			)},
		},
		{
			name:        "kernel without STAT_GET_STATUS (before 5.16: EINVAL)",
			enabled:     map[string]uint64{"cc_rx_ce_pkts": 77},
			statusErrno: syscall.EINVAL,
			want: Port{Device: "mlx5_0", Port: 1,
				StatusWhy: "the kernel refuses RDMA_NLDEV_CMD_STAT_GET_STATUS (invalid argument; it came with optional counters in Linux 5.16): which counters are optional is unknown",
				Counters:  mlx5Counters(false, Counter{Name: "cc_rx_ce_pkts", Value: u64p(77)})},
		},
		{
			name:        "STAT_GET_STATUS refused with EOPNOTSUPP",
			statusErrno: syscall.EOPNOTSUPP,
			want: Port{Device: "mlx5_0", Port: 1,
				StatusWhy: "the kernel refuses RDMA_NLDEV_CMD_STAT_GET_STATUS (operation not supported; it came with optional counters in Linux 5.16): which counters are optional is unknown",
				Counters:  mlx5Counters(false)},
		},
		{
			name:        "STAT_GET_STATUS failing otherwise",
			statusErrno: syscall.ENOMEM,
			want: Port{Device: "mlx5_0", Port: 1,
				StatusWhy: "STAT_GET_STATUS mlx5_0/1: cannot allocate memory",
				Counters:  mlx5Counters(false)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fk := newFake(t, mlx5Kernel(t, tt.enabled, tt.statusErrno))
			got, err := c.Port("mlx5_0", 1)
			if err != nil {
				t.Fatalf("Port: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Port (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDisabled, got.Disabled()); diff != "" {
				t.Errorf("Disabled (-want +got):\n%s", diff)
			}
			if cmd := got.EnableCommand(); cmd != tt.wantCommand {
				t.Errorf("EnableCommand = %q, want %q", cmd, tt.wantCommand)
			}
			if diff := cmp.Diff([]string{"GET", "STAT_GET", "STAT_GET_STATUS"}, fk.types()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			// A second read uses the cached index: no second dump.
			if _, err := c.Port("mlx5_0", 1); err != nil {
				t.Fatalf("second Port: %v", err)
			}
			if diff := cmp.Diff([]string{"GET", "STAT_GET", "STAT_GET_STATUS", "STAT_GET", "STAT_GET_STATUS"}, fk.types()); diff != "" {
				t.Errorf("requests after a second Port (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPortErrors checks the failures: each is an *Error with a one-line
// message naming the device and port, matching the documented targets,
// after the documented requests.
func TestPortErrors(t *testing.T) {
	mlx5 := mlx5Kernel(t, nil, 0)
	tests := []struct {
		name      string
		answer    func(netlink.Message) ([][]byte, syscall.Errno)
		device    string
		port      int
		wantMsg   string
		wantIs    []error
		wantNotIs []error
		wantReqs  []string
	}{
		{
			name: "unknown device", answer: mlx5, device: "mlx5_9", port: 1,
			wantMsg:  "mlx5_9: no such RDMA device",
			wantIs:   []error{os.ErrNotExist, syscall.ENODEV},
			wantReqs: []string{"GET"},
		},
		{
			name: "no devices at all", device: "mlx5_0", port: 1,
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return nil, 0
				}
				return nil, syscall.EINVAL
			},
			wantMsg:  "mlx5_0: no such RDMA device",
			wantIs:   []error{os.ErrNotExist},
			wantReqs: []string{"GET"},
		},
		{
			name: "a name that cannot be a device", answer: mlx5, device: "mlx5_0/1", port: 1,
			wantMsg:  `"mlx5_0/1": no such RDMA device (names are 1 to 63 bytes of printable ASCII without spaces, commas or slashes)`,
			wantIs:   []error{os.ErrNotExist},
			wantReqs: nil,
		},
		{
			name: "unknown port", answer: mlx5, device: "mlx5_0", port: 2,
			wantMsg:  "mlx5_0/2: no such port (mlx5_0 has port 1 only)",
			wantIs:   []error{os.ErrNotExist, syscall.EINVAL},
			wantReqs: []string{"GET"},
		},
		{
			name: "port 0", answer: mlx5, device: "mlx5_0", port: 0,
			wantMsg:  "mlx5_0: no such port (mlx5_0 has port 1 only)",
			wantIs:   []error{os.ErrNotExist},
			wantReqs: []string{"GET"},
		},
		{
			name: "kernel EINVAL for a port the dump has: no hardware counters",
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return [][]byte{devMsg("siw0", 2, 1)}, 0
				}
				return nil, syscall.EINVAL // stat_get_doit_default_counter: no alloc_hw_port_stats
			},
			device: "siw0", port: 1,
			wantMsg:   "siw0/1: the driver reports no hardware counters for this port (STAT_GET: invalid argument)",
			wantIs:    []error{syscall.EINVAL},
			wantNotIs: []error{os.ErrNotExist},
			// The first dump was fresh: no second one.
			wantReqs: []string{"GET", "STAT_GET"},
		},
		{
			name: "permission denied",
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
				}
				return nil, syscall.EPERM
			},
			device: "mlx5_0", port: 1,
			wantMsg:  "STAT_GET mlx5_0/1: permission denied (operation not permitted)",
			wantIs:   []error{os.ErrPermission, syscall.EPERM},
			wantReqs: []string{"GET", "STAT_GET"},
		},
		{
			name: "dump refused",
			answer: func(netlink.Message) ([][]byte, syscall.Errno) {
				return nil, syscall.EINVAL // nldev not registered
			},
			device: "mlx5_0", port: 1,
			wantMsg:   "GET mlx5_0/1: invalid argument",
			wantIs:    []error{syscall.EINVAL},
			wantNotIs: []error{os.ErrNotExist},
			wantReqs:  []string{"GET"},
		},
		{
			name: "reply for another port",
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return [][]byte{devMsg("mlx5_0", 3, 2)}, 0
				}
				return [][]byte{nlfixture.Cat(handle(3, "mlx5_0", 2), table())}, 0
			},
			device: "mlx5_0", port: 1,
			wantMsg:  "STAT_GET mlx5_0/1: malformed RDMA netlink reply: reply for port 2, asked for 1",
			wantIs:   []error{ErrMalformed},
			wantReqs: []string{"GET", "STAT_GET"},
		},
		{
			name: "reply without the table",
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
				}
				return [][]byte{handle(3, "mlx5_0", 1)}, 0
			},
			device: "mlx5_0", port: 1,
			wantMsg:  "STAT_GET mlx5_0/1: malformed RDMA netlink reply: no RDMA_NLDEV_ATTR_STAT_HWCOUNTERS",
			wantIs:   []error{ErrMalformed},
			wantReqs: []string{"GET", "STAT_GET"},
		},
		{
			name: "broken reply framing",
			answer: func(req netlink.Message) ([][]byte, syscall.Errno) {
				if req.Header.Type == typeGet {
					return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
				}
				return [][]byte{nlfixture.Cat(handle(3, "mlx5_0", 1), []byte{0xff, 0x00, 0x50, 0x80})}, 0
			},
			device: "mlx5_0", port: 1,
			wantMsg:  "STAT_GET mlx5_0/1: malformed RDMA netlink reply: attributes: invalid attribute; length too short or too large",
			wantIs:   []error{ErrMalformed},
			wantReqs: []string{"GET", "STAT_GET"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fk := newFake(t, tt.answer)
			p, err := c.Port(tt.device, tt.port)
			if err == nil {
				t.Fatalf("Port = %+v, want an error", p)
			}
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Errorf("error %T is not an *Error", err)
			}
			if got := err.Error(); got != tt.wantMsg {
				t.Errorf("error = %q\n           want %q", got, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			for _, target := range tt.wantIs {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = false", target)
				}
			}
			for _, target := range append(tt.wantNotIs, ErrNoRDMA, os.ErrPermission) {
				if slicesContains(tt.wantIs, target) {
					continue
				}
				if errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = true", target)
				}
			}
			if diff := cmp.Diff(tt.wantReqs, fk.types()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func slicesContains(errs []error, target error) bool {
	for _, e := range errs {
		if e == target {
			return true
		}
	}
	return false
}

// TestStaleIndex checks that a device whose index changed since the cached
// dump (a driver reload) is found again: EINVAL for the old index, a new
// dump, and STAT_GET with the new index.
func TestStaleIndex(t *testing.T) {
	dumps := 0
	c, fk := newFake(t, func(req netlink.Message) ([][]byte, syscall.Errno) {
		switch req.Header.Type {
		case typeGet:
			dumps++
			if dumps == 1 {
				return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
			}
			return [][]byte{devMsg("mlx5_0", 7, 1)}, 0
		case typeStatGet, typeStatGetStatus:
			if dev, _ := reqPort(t, req); dev != 7 || dumps < 2 {
				return nil, syscall.EINVAL
			}
			return [][]byte{nlfixture.Cat(handle(7, "mlx5_0", 1), table(valueEntry("np_cnp_sent", 1)))}, 0
		}
		return nil, syscall.EINVAL
	})
	// Fill the cache with the first dump.
	devs, err := c.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if diff := cmp.Diff([]Device{{Name: "mlx5_0", Index: 3, Ports: 1}}, devs); diff != "" {
		t.Errorf("Devices (-want +got):\n%s", diff)
	}
	p, err := c.Port("mlx5_0", 1)
	if err != nil {
		t.Fatalf("Port: %v", err)
	}
	want := Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: []Counter{{Name: "np_cnp_sent", Value: u64p(1)}}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Port (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GET", "STAT_GET", "GET", "STAT_GET", "STAT_GET_STATUS"}, fk.types()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if dev, _ := reqPort(t, fk.Requests()[3]); dev != 7 {
		t.Errorf("retried STAT_GET for device index %d, want 7", dev)
	}
}

// TestRenamedDevice checks that a reply naming another device (the cached
// index was handed to a new device) makes the Client dump again.
func TestRenamedDevice(t *testing.T) {
	dumps := 0
	c, fk := newFake(t, func(req netlink.Message) ([][]byte, syscall.Errno) {
		if req.Header.Type == typeGet {
			dumps++
			if dumps == 1 {
				return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
			}
			return [][]byte{devMsg("mlx5_bond_0", 3, 1)}, 0 // renamed
		}
		return [][]byte{nlfixture.Cat(handle(3, "mlx5_bond_0", 1), table())}, 0
	})
	if _, err := c.Devices(); err != nil { // the cache now has mlx5_0 as index 3
		t.Fatalf("Devices: %v", err)
	}
	_, err := c.Port("mlx5_0", 1)
	if got, want := fmt.Sprint(err), "mlx5_0: no such RDMA device"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"GET", "STAT_GET", "GET"}, fk.types()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// The new name works.
	if _, err := c.Port("mlx5_bond_0", 1); err != nil {
		t.Errorf("Port(mlx5_bond_0): %v", err)
	}
}

// TestMalformedEntriesThroughClient checks that a reply with bad entries
// still gives a Port, with the bad entries left out or unknown.
func TestMalformedEntriesThroughClient(t *testing.T) {
	c, _ := newFake(t, func(req netlink.Message) ([][]byte, syscall.Errno) {
		switch req.Header.Type {
		case typeGet:
			return [][]byte{devMsg("mlx5_0", 3, 1)}, 0
		case typeStatGet:
			return [][]byte{nlfixture.Cat(handle(3, "mlx5_0", 1), nla(300, []byte{1}), table(
				valueEntry("out_of_buffer", 12),
				rawEntry(nameAttr(cstr("np_cnp_sent")), valueAttr([]byte{1, 2, 3})),
				rawEntry(valueAttr(le64(5))),
				rawEntry(nameAttr(cstr(strings.Repeat("x", 65))), valueAttr(le64(5))),
			))}, 0
		}
		return [][]byte{nlfixture.Cat(handle(3, "mlx5_0", 1), table(
			statusEntry("out_of_buffer", 4, nil),
			statusEntry("np_cnp_sent", 14, nil),
			statusEntry("cc_rx_ce_pkts", 16, &off),
		))}, 0
	})
	p, err := c.Port("mlx5_0", 1)
	if err != nil {
		t.Fatalf("Port: %v", err)
	}
	want := Port{Device: "mlx5_0", Port: 1, StatusKnown: true,
		Counters: []Counter{
			{Name: "cc_rx_ce_pkts", Optional: true},
			{Name: "np_cnp_sent"},
			{Name: "out_of_buffer", Value: u64p(12)},
		},
		Skipped: []string{
			"STAT_GET entry 2 (np_cnp_sent): value of 3 bytes, not a u64: left unknown",
			"STAT_GET entry 3: no name",
			"STAT_GET entry 4: name of 65 bytes, more than 64",
		}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Port (-want +got):\n%s", diff)
	}
	if got, want := p.EnableCommand(), "rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts"; got != want {
		t.Errorf("EnableCommand = %q, want %q", got, want)
	}
}

// TestDevices checks the device list: sorted, bad messages left out, and
// empty (not an error) on a host without devices.
func TestDevices(t *testing.T) {
	tests := []struct {
		name string
		dump [][]byte
		want []Device
	}{
		{"none", nil, []Device{}},
		{"two, sorted", [][]byte{devMsg("mlx5_1", 4, 1), devMsg("mlx5_0", 3, 2)},
			[]Device{{Name: "mlx5_0", Index: 3, Ports: 2}, {Name: "mlx5_1", Index: 4, Ports: 1}}},
		{"bad messages left out", [][]byte{
			devMsg("rxe0", 9, 1),
			nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr("noindex")),
			devMsg("rxe0", 10, 1), // a repeated name: the first is kept
			devMsg("bad name", 11, 1),
		}, []Device{{Name: "rxe0", Index: 9, Ports: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fk := newFake(t, func(netlink.Message) ([][]byte, syscall.Errno) { return tt.dump, 0 })
			got, err := c.Devices()
			if err != nil {
				t.Fatalf("Devices: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Devices (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"GET"}, fk.types()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcurrentPorts reads two ports from several goroutines at once (for
// the race detector): requests are serialised on the one connection.
func TestConcurrentPorts(t *testing.T) {
	c, _ := newFake(t, func(req netlink.Message) ([][]byte, syscall.Errno) {
		switch req.Header.Type {
		case typeGet:
			return [][]byte{devMsg("mlx5_0", 3, 2)}, 0
		}
		_, port := reqPort(t, req)
		return [][]byte{nlfixture.Cat(handle(3, "mlx5_0", port), table(valueEntry("np_cnp_sent", uint64(port))))}, 0
	})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			port := 1 + i%2
			p, err := c.Port("mlx5_0", port)
			if err != nil {
				t.Errorf("Port: %v", err)
				return
			}
			if v := p.Counters[0].Value; v == nil || *v != uint64(port) {
				t.Errorf("port %d: np_cnp_sent = %v", port, v)
			}
		})
	}
	wg.Wait()
}

// TestDialErrors checks how socket errors map: EPROTONOSUPPORT (no
// ib_core) is ErrNoRDMA for dial only, EPERM and EACCES are
// os.ErrPermission, and the errno stays reachable.
func TestDialErrors(t *testing.T) {
	tests := []struct {
		op      string
		errno   syscall.Errno
		wantMsg string
		noRDMA  bool
		perm    bool
	}{
		{opDial, syscall.EPROTONOSUPPORT, "no RDMA subsystem: NETLINK_RDMA is unavailable (ib_core not loaded, or a kernel without CONFIG_INFINIBAND)", true, false},
		{opDial, syscall.EACCES, "dial: permission denied (permission denied)", false, true},
		{opDial, syscall.EMFILE, "dial: too many open files", false, false},
		{opStatGet, syscall.EPROTONOSUPPORT, "STAT_GET mlx5_0/1: protocol not supported", false, false},
	}
	for _, tt := range tests {
		dev, port := "", 0
		if tt.op != opDial {
			dev, port = "mlx5_0", 1
		}
		err := opError(tt.op, dev, port, &netlink.OpError{Op: "socket", Err: os.NewSyscallError("socket", tt.errno)})
		if got := err.Error(); got != tt.wantMsg {
			t.Errorf("%s %v: message %q, want %q", tt.op, tt.errno, got, tt.wantMsg)
		}
		if errors.Is(err, ErrNoRDMA) != tt.noRDMA || errors.Is(err, os.ErrPermission) != tt.perm {
			t.Errorf("%s %v: Is(ErrNoRDMA) = %v, Is(os.ErrPermission) = %v", tt.op, tt.errno,
				errors.Is(err, ErrNoRDMA), errors.Is(err, os.ErrPermission))
		}
		if !errors.Is(err, tt.errno) {
			t.Errorf("%s %v: errno not reachable through Unwrap", tt.op, tt.errno)
		}
	}
}
