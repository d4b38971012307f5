// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// portFrom decodes a STAT_GET reply and, unless status is nil, a
// STAT_GET_STATUS reply, and merges them as Client.Port does.
func portFrom(stat, status []byte) (Port, error) {
	s, err := decodeStatReply(stat, true)
	if err != nil {
		return Port{}, err
	}
	if status == nil {
		return merge("mlx5_0", 1, s, nil, "no status"), nil
	}
	st, err := decodeStatReply(status, false)
	if err != nil {
		return Port{}, err
	}
	return merge("mlx5_0", 1, s, &st, ""), nil
}

// plainEntry is valueEntry without NLA_F_NESTED, as kernels before 5.2
// sent nests (nla_nest_start without the flag).
func plainEntry(name string, v uint64) []byte {
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, cstr(name)),
		nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, le64(v)))
}

// rawEntry is an entry nest holding attrs as given.
func rawEntry(attrs ...[]byte) []byte {
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY|nlaNested, attrs...)
}

func nameAttr(b []byte) []byte { return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, b) }
func valueAttr(b []byte) []byte {
	return nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, b)
}

// TestDecodeReplies runs hand-built replies, well-formed and not, through
// the decoder and merge.
func TestDecodeReplies(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	long64 := strings.Repeat("a", 64)
	long65 := strings.Repeat("b", 65)
	tests := []struct {
		name         string
		stat, status []byte
		want         Port
	}{
		{
			name: "one counter, spelt out",
			stat: replyOneCounter,
			want: Port{Device: "mlx5_0", Port: 1, StatusWhy: "no status",
				Counters: []Counter{{Name: "np_cnp_sent", Value: u64p(5149)}}},
		},
		{
			name: "unknown attributes and padding are ignored",
			stat: nlfixture.Cat(
				nla(200, []byte("future")), // an attribute from a later kernel
				handle(3, "mlx5_0", 1),
				nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS|nlaNested,
					nla(99, le32(7)), // not an entry
					rawEntry(
						nameAttr(cstr("rp_cnp_handled")),
						nla(RDMA_NLDEV_ATTR_PAD), // nla_put_u64_64bit padding
						valueAttr(le64(4242)),
						nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, le32(12)),
					),
				),
			),
			want: Port{Device: "mlx5_0", Port: 1, StatusWhy: "no status",
				Counters: []Counter{{Name: "rp_cnp_handled", Value: u64p(4242)}}},
		},
		{
			name: "nests without NLA_F_NESTED (before Linux 5.2)",
			stat: nlfixture.Cat(handle(3, "mlx5_0", 1), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS,
				plainEntry("out_of_buffer", 12), plainEntry("np_cnp_sent", 5149))),
			want: Port{Device: "mlx5_0", Port: 1, StatusWhy: "no status",
				Counters: []Counter{{Name: "np_cnp_sent", Value: u64p(5149)}, {Name: "out_of_buffer", Value: u64p(12)}}},
		},
		{
			name: "an empty table (every optional counter disabled, no others)",
			stat: nlfixture.Cat(handle(3, "mlx5_0", 1), table()),
			want: Port{Device: "mlx5_0", Port: 1, StatusWhy: "no status"},
		},
		{
			name: "bad entries are skipped, bad values left unknown",
			stat: nlfixture.Cat(handle(3, "mlx5_0", 1), table(
				valueEntry("out_of_buffer", 12),
				rawEntry(valueAttr(le64(99))),                                                           // 2: no name
				rawEntry(nameAttr(cstr("rp_cnp_handled")), valueAttr(le32(7))),                          // 3: a u32 value
				rawEntry(nameAttr(cstr("np_cnp_sent"))),                                                 // 4: no value
				rawEntry(nameAttr(cstr(long65)), valueAttr(le64(1))),                                    // 5: name too long
				rawEntry(nameAttr(cstr(long64)), valueAttr(le64(64))),                                   // 6: 64 bytes is fine
				rawEntry(nameAttr(cstr("np_cnp\x01sent")), valueAttr(le64(1))),                          // 7: control byte
				rawEntry(nameAttr(cstr("rx bytes")), valueAttr(le64(1))),                                // 8: space
				rawEntry(nameAttr(cstr("a,b")), valueAttr(le64(1))),                                     // 9: comma
				rawEntry(nameAttr([]byte("ab\x00cd\x00")), valueAttr(le64(1))),                          // 10: NUL inside
				rawEntry(nameAttr(cstr("\xc3\xa9t\xc3\xa9")), valueAttr(le64(1))),                       // 11: not ASCII
				rawEntry(nameAttr([]byte{0}), valueAttr(le64(1))),                                       // 12: empty
				rawEntry(nameAttr([]byte("rx_icrc_encapsulated")), valueAttr(le64(5))),                  // 13: no NUL: accepted
				nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, []byte{1, 2, 3, 4, 5, 6}),                     // 14: not attributes
				valueEntry("out_of_buffer", 13),                                                         // 15: a duplicate
				rawEntry(nameAttr(cstr("out_of_sequence")), valueAttr(nlfixture.Cat(le64(3), le32(0)))), // 16: 12-byte value
			)),
			want: Port{Device: "mlx5_0", Port: 1, StatusWhy: "no status",
				Counters: []Counter{
					{Name: long64, Value: u64p(64)},
					{Name: "np_cnp_sent"},
					{Name: "out_of_buffer", Value: u64p(12)},
					{Name: "out_of_sequence"},
					{Name: "rp_cnp_handled"},
					{Name: "rx_icrc_encapsulated", Value: u64p(5)},
				},
				Skipped: []string{
					"STAT_GET entry 2: no name",
					"STAT_GET entry 3 (rp_cnp_handled): value of 4 bytes, not a u64: left unknown",
					"STAT_GET entry 4 (np_cnp_sent): no value: left unknown",
					"STAT_GET entry 5: name of 65 bytes, more than 64",
					`STAT_GET entry 7: name "np_cnp\x01sent" has byte 0x01 (not printable ASCII, or a space or comma)`,
					`STAT_GET entry 8: name "rx bytes" has byte 0x20 (not printable ASCII, or a space or comma)`,
					`STAT_GET entry 9: name "a,b" has byte 0x2c (not printable ASCII, or a space or comma)`,
					`STAT_GET entry 10: name "ab\x00cd" has byte 0x00 (not printable ASCII, or a space or comma)`,
					`STAT_GET entry 11: name "\u00e9t\u00e9" has byte 0xc3 (not printable ASCII, or a space or comma)`,
					"STAT_GET entry 12: empty name",
					"STAT_GET entry 14: not a nest of attributes (invalid attribute; length too short or too large)",
					"STAT_GET entry 16 (out_of_sequence): value of 12 bytes, not a u64: left unknown",
					"STAT_GET: duplicate counter out_of_buffer: the first one is kept",
				},
			},
		},
		{
			name:   "status: optional counters, one enabled, two disabled",
			stat:   mlx5StatGet(map[string]uint64{"cc_rx_ce_pkts": 77}),
			status: mlx5Status(map[string]uint64{"cc_rx_ce_pkts": 0}),
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true,
				Counters: []Counter{
					{Name: "cc_rx_ce_pkts", Value: u64p(77), Optional: true, Enabled: true},
					{Name: "cc_rx_cnp_pkts", Optional: true},
					{Name: "cc_tx_cnp_pkts", Optional: true},
					{Name: "np_cnp_sent", Value: u64p(5149)},
					{Name: "np_ecn_marked_roce_packets", Value: u64p(5150)},
					{Name: "out_of_buffer", Value: u64p(12)},
					{Name: "out_of_sequence", Value: u64p(3)},
					{Name: "rp_cnp_handled", Value: u64p(4242)},
					{Name: "rp_cnp_ignored", Value: u64p(0)},
					{Name: "rx_icrc_encapsulated", Value: u64p(0)},
				}},
		},
		{
			name: "status: a DYNAMIC that is not a u8 is inferred from STAT_GET",
			stat: nlfixture.Cat(handle(3, "mlx5_0", 1), table(valueEntry("cc_rx_ce_pkts", 5))),
			status: nlfixture.Cat(handle(3, "mlx5_0", 1), table(
				rawEntry(nameAttr(cstr("cc_rx_ce_pkts")), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, le32(0))),
				rawEntry(nameAttr(cstr("cc_tx_cnp_pkts")), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC)),
				rawEntry(nameAttr(cstr("cc_rx_cnp_pkts")), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, []byte{7})),
			)),
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true,
				Counters: []Counter{
					{Name: "cc_rx_ce_pkts", Value: u64p(5), Optional: true, Enabled: true},
					{Name: "cc_rx_cnp_pkts", Optional: true, Enabled: true}, // any non-zero u8 is enabled
					{Name: "cc_tx_cnp_pkts", Optional: true},
				},
				Skipped: []string{
					"STAT_GET_STATUS entry 1 (cc_rx_ce_pkts): optional-counter state of 4 bytes, not a u8",
					"STAT_GET_STATUS entry 2 (cc_tx_cnp_pkts): optional-counter state of 0 bytes, not a u8",
				}},
		},
		{
			name:   "status names a counter STAT_GET lacked, not optional",
			stat:   nlfixture.Cat(handle(3, "mlx5_0", 1), table()),
			status: nlfixture.Cat(handle(3, "mlx5_0", 1), table(statusEntry("out_of_buffer", 4, nil))),
			want: Port{Device: "mlx5_0", Port: 1, StatusKnown: true,
				Counters: []Counter{{Name: "out_of_buffer"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := portFrom(tt.stat, tt.status)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Port (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeMalformed checks the replies that cannot be decoded at all:
// each fails with ErrMalformed, and none yields a Port.
func TestDecodeMalformed(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	tests := []struct {
		name, want string
		b          []byte
	}{
		{"truncated attribute", "attributes: invalid attribute; length too short or too large",
			nlfixture.Cat(handle(3, "mlx5_0", 1), []byte{0x20, 0x00, 0x50, 0x80, 0, 0, 0, 0})},
		{"trailing bytes", "attributes: invalid attribute; length too short or too large",
			nlfixture.Cat(handle(3, "mlx5_0", 1), []byte{0x01, 0x00})},
		{"device index of 2 bytes", "RDMA_NLDEV_ATTR_DEV_INDEX of 2 bytes, not a u32",
			nla(RDMA_NLDEV_ATTR_DEV_INDEX, []byte{3, 0})},
		{"port index of 8 bytes", "RDMA_NLDEV_ATTR_PORT_INDEX of 8 bytes, not a u32",
			nla(RDMA_NLDEV_ATTR_PORT_INDEX, le64(1))},
		{"table with a broken entry header", "RDMA_NLDEV_ATTR_STAT_HWCOUNTERS: invalid attribute; length too short or too large",
			nlfixture.Cat(handle(3, "mlx5_0", 1), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS|nlaNested, []byte{0x40, 0x00, 0x51, 0x80, 1, 2, 3, 4}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodeStatReply(tt.b, true)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			if got, want := err.Error(), "malformed RDMA netlink reply: "+tt.want; got != want {
				t.Errorf("err = %q, want %q", got, want)
			}
			if r.entries != nil || r.devIndex != nil {
				t.Errorf("a failed decode returned data: %+v", r)
			}
		})
	}
}

// TestDisabledAndEnableCommand checks the two views of the optional
// counters, including the rule that the command lists the enabled ones
// too (`rdma statistic set ... optional-counters` replaces the set).
func TestDisabledAndEnableCommand(t *testing.T) {
	counters := func(cs ...Counter) []Counter { return cs }
	ce := Counter{Name: "cc_rx_ce_pkts", Value: u64p(77), Optional: true, Enabled: true}
	cnpRx := Counter{Name: "cc_rx_cnp_pkts", Optional: true}
	cnpTx := Counter{Name: "cc_tx_cnp_pkts", Optional: true}
	oob := Counter{Name: "out_of_buffer", Value: u64p(12)}
	tests := []struct {
		name         string
		p            Port
		wantDisabled []string
		wantCommand  string
	}{
		{"one enabled, two disabled",
			Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: counters(ce, cnpRx, cnpTx, oob)},
			[]string{"cc_rx_cnp_pkts", "cc_tx_cnp_pkts"},
			"rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts"},
		{"all disabled, port 2",
			Port{Device: "mlx5_1", Port: 2, StatusKnown: true, Counters: counters(cnpRx, oob)},
			[]string{"cc_rx_cnp_pkts"},
			"rdma statistic set link mlx5_1/2 optional-counters cc_rx_cnp_pkts"},
		{"all enabled",
			Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: counters(ce, oob)},
			nil, ""},
		{"no optional counters",
			Port{Device: "rxe0", Port: 1, StatusKnown: true, Counters: counters(oob)},
			nil, ""},
		{"status unknown: nothing is claimed disabled",
			Port{Device: "mlx5_0", Port: 1, StatusWhy: "old kernel", Counters: counters(cnpRx, oob)},
			nil, ""},
		{"a device name the shell would expand is quoted",
			Port{Device: "dev$x'y", Port: 1, StatusKnown: true, Counters: counters(cnpRx)},
			[]string{"cc_rx_cnp_pkts"},
			`rdma statistic set link 'dev$x'\''y/1' optional-counters cc_rx_cnp_pkts`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantDisabled, tt.p.Disabled()); diff != "" {
				t.Errorf("Disabled (-want +got):\n%s", diff)
			}
			if got := tt.p.EnableCommand(); got != tt.wantCommand {
				t.Errorf("EnableCommand = %q, want %q", got, tt.wantCommand)
			}
		})
	}
}

// TestPortCounter checks the lookup by name.
func TestPortCounter(t *testing.T) {
	p := Port{Counters: []Counter{{Name: "np_cnp_sent", Value: u64p(1)}, {Name: "out_of_buffer"}}}
	if c, ok := p.Counter("np_cnp_sent"); !ok || c.Value == nil || *c.Value != 1 {
		t.Errorf("Counter(np_cnp_sent) = %+v, %v", c, ok)
	}
	if c, ok := p.Counter("out_of_buffer"); !ok || c.Value != nil {
		t.Errorf("Counter(out_of_buffer) = %+v, %v; want a nil Value", c, ok)
	}
	if c, ok := p.Counter("cc_rx_ce_pkts"); ok {
		t.Errorf("Counter(cc_rx_ce_pkts) = %+v, want none", c)
	}
}

// TestDecodeDevice checks the GET dump messages, good and bad.
func TestDecodeDevice(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	tests := []struct {
		name    string
		b       []byte
		want    Device
		wantWhy string
	}{
		{"mlx5 as fill_dev_info sends it", nlfixture.Cat(
			nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(3)),
			nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr("mlx5_0")),
			nla(RDMA_NLDEV_ATTR_PORT_INDEX, le32(1)),
			nla(4, le64(0x1234)), // RDMA_NLDEV_ATTR_CAP_FLAGS, not used
			nla(5, cstr("28.39.1002")),
		), Device{Name: "mlx5_0", Index: 3, Ports: 1}, ""},
		{"no index", nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr("mlx5_0")), Device{}, "no RDMA_NLDEV_ATTR_DEV_INDEX"},
		{"no name", nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(3)), Device{}, "no RDMA_NLDEV_ATTR_DEV_NAME"},
		{"index of 1 byte", nla(RDMA_NLDEV_ATTR_DEV_INDEX, []byte{3}), Device{}, "RDMA_NLDEV_ATTR_DEV_INDEX is not a u32"},
		{"name with a slash", nlfixture.Cat(nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(3)), nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr("a/b"))),
			Device{}, `device name "a/b" is not acceptable`},
		{"absurd port count", nlfixture.Cat(nla(RDMA_NLDEV_ATTR_DEV_INDEX, le32(3)), nla(RDMA_NLDEV_ATTR_DEV_NAME, cstr("x")),
			nla(RDMA_NLDEV_ATTR_PORT_INDEX, le32(1<<31))), Device{}, "RDMA_NLDEV_ATTR_PORT_INDEX is not a port count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := decodeDevice(tt.b)
			if why != tt.wantWhy {
				t.Errorf("why = %q, want %q", why, tt.wantWhy)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Device (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShellQuote checks the quoting of EnableCommand's arguments.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"mlx5_0/1":                     "mlx5_0/1",
		"cc_rx_ce_pkts,cc_rx_cnp_pkts": "cc_rx_ce_pkts,cc_rx_cnp_pkts",
		"a b":                          "'a b'",
		"it's":                         `'it'\''s'`,
		"$(reboot)":                    "'$(reboot)'",
		"":                             "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
