// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"encoding/binary"
	"testing"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// Fixtures: replies written out to the kernel's layout, never produced by
// this package (which encodes requests only). Attributes are built by nla
// below, a few bytes at a time, in little-endian order: the tests that use
// them skip on big-endian hosts (nlfixture.RequireLittleEndian). One reply,
// replyOneCounter, is spelt out byte by byte to pin nla itself.

// nlaNested is NLA_F_NESTED (include/uapi/linux/netlink.h), which
// nla_nest_start sets since Linux 5.2.
const nlaNested = 1 << 15

// nla returns one netlink attribute: struct nlattr {u16 nla_len; u16
// nla_type} and the payload, padded to 4 bytes (NLA_ALIGN); nla_len counts
// the header and the payload, not the padding.
func nla(typ uint16, payload ...[]byte) []byte {
	var p []byte
	for _, b := range payload {
		p = append(p, b...)
	}
	b := binary.LittleEndian.AppendUint16(nil, uint16(4+len(p)))
	b = binary.LittleEndian.AppendUint16(b, typ)
	b = append(b, p...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// cstr is a string as nla_put_string sends it: with its NUL.
func cstr(s string) []byte { return append([]byte(s), 0) }

// handle is the start of every STAT_GET and STAT_GET_STATUS reply:
// fill_nldev_handle (DEV_INDEX, DEV_NAME) and the PORT_INDEX.
func handle(index uint32, name string, port uint32) []byte {
	return nlfixture.Cat(
		nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(index)),
		nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr(name)),
		nla(RDMA_NLDEV_ATTR_PORT_INDEX, le32(port)),
	)
}

// valueEntry is a STAT_GET counter entry (rdma_nl_stat_hwcounter_entry),
// nested with NLA_F_NESTED.
func valueEntry(name string, v uint64) []byte {
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY|nlaNested,
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, cstr(name)),
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, le64(v)))
}

// statusEntry is a STAT_GET_STATUS counter entry
// (nldev_stat_get_counter_status_doit): name, index and, for an optional
// counter (dynamic != nil), HWCOUNTER_DYNAMIC = 1 if enabled.
func statusEntry(name string, index uint32, dynamic *bool) []byte {
	parts := [][]byte{
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, cstr(name)),
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, le32(index)),
	}
	if dynamic != nil {
		var v byte
		if *dynamic {
			v = 1
		}
		parts = append(parts, nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, []byte{v}))
	}
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY|nlaNested, parts...)
}

// table is the HWCOUNTERS nest around entries.
func table(entries ...[]byte) []byte {
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS|nlaNested, entries...)
}

var (
	on  = true
	off = false
)

// The counters of an mlx5 port in RoCE mode, by name and index in the
// port's rdma_hw_stats (drivers/infiniband/hw/mlx5/counters.c: the Q
// counters basic_q_cnts, out_of_seq_q_cnts and retrans_q_cnts first, then
// cong_cnts, ext_ppcnt_cnts, and the optional op counters basic_op_cnts,
// rdmarx_cnp_op_cnts, rdmatx_cnp_op_cnts last), numbered as on a NIC
// without the extended-error and RoCE-acceleration Q counters, with a
// kernel from before the rdma_{tx,rx}_{packets,bytes} op counters. A
// subset (rx_write_requests and the like are left out), to keep the
// fixtures short; the values are made up.
var (
	mlx5Base = []struct {
		name  string
		index uint32
		value uint64
	}{
		{"out_of_buffer", 4, 12},
		{"out_of_sequence", 5, 3},
		{"rp_cnp_ignored", 11, 0},
		{"rp_cnp_handled", 12, 4242},
		{"np_ecn_marked_roce_packets", 13, 5150},
		{"np_cnp_sent", 14, 5149},
		{"rx_icrc_encapsulated", 15, 0},
	}
	mlx5Optional = []struct {
		name  string
		index uint32
	}{
		{"cc_rx_ce_pkts", 16},
		{"cc_rx_cnp_pkts", 17},
		{"cc_tx_cnp_pkts", 18},
	}
)

// mlx5StatGet is the STAT_GET reply of mlx5_0 (index 3) port 1 with the
// optional counters in enabled (a map from name to value): the kernel
// sends only those (stat_get_doit_default_counter skips disabled ones).
func mlx5StatGet(enabled map[string]uint64) []byte {
	var entries [][]byte
	for _, c := range mlx5Base {
		entries = append(entries, valueEntry(c.name, c.value))
	}
	for _, c := range mlx5Optional {
		if v, ok := enabled[c.name]; ok {
			entries = append(entries, valueEntry(c.name, v))
		}
	}
	return nlfixture.Cat(handle(3, "mlx5_0", 1), table(entries...))
}

// mlx5Status is the STAT_GET_STATUS reply of mlx5_0 port 1, with the
// optional counters named in enabled enabled and the others disabled.
func mlx5Status(enabled map[string]uint64) []byte {
	var entries [][]byte
	for _, c := range mlx5Base {
		entries = append(entries, statusEntry(c.name, c.index, nil))
	}
	for _, c := range mlx5Optional {
		d := &off
		if _, ok := enabled[c.name]; ok {
			d = &on
		}
		entries = append(entries, statusEntry(c.name, c.index, d))
	}
	return nlfixture.Cat(handle(3, "mlx5_0", 1), table(entries...))
}

// replyOneCounter is a STAT_GET reply for mlx5_0 (index 3) port 1 with one
// counter, np_cnp_sent = 5149, written out byte by byte.
var replyOneCounter = []byte{
	0x08, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, // DEV_INDEX 3
	0x0b, 0x00, 0x02, 0x00, 'm', 'l', 'x', '5', '_', '0', 0x00, 0x00, // DEV_NAME "mlx5_0\0", len 11, 1 byte padding
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, // PORT_INDEX 1
	0x24, 0x00, 0x50, 0x80, // HWCOUNTERS|NLA_F_NESTED, len 36
	0x20, 0x00, 0x51, 0x80, // HWCOUNTER_ENTRY|NLA_F_NESTED, len 32
	0x10, 0x00, 0x52, 0x00, 'n', 'p', '_', 'c', 'n', 'p', '_', 's', 'e', 'n', 't', 0x00, // ENTRY_NAME "np_cnp_sent\0", len 16
	0x0c, 0x00, 0x53, 0x00, 0x1d, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ENTRY_VALUE u64 5149
}

// TestNLA checks the attribute builder against the hand-written reply.
func TestNLA(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	got := nlfixture.Cat(handle(3, "mlx5_0", 1), table(valueEntry("np_cnp_sent", 5149)))
	if string(got) != string(replyOneCounter) {
		t.Errorf("built reply\n% x\nwant\n% x", got, replyOneCounter)
	}
}

// u64p returns a pointer to v.
func u64p(v uint64) *uint64 { return &v }
