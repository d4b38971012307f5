// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// FuzzDecodeStatReply feeds arbitrary reply attributes to the decoders, as
// a STAT_GET reply, as a STAT_GET_STATUS reply, and as a GET dump message.
// Nothing may panic, and what comes out must keep the package's promises:
// acceptable names only, sorted and unique counters, no value without a
// u64 behind it, one-line notes, and an EnableCommand that enables every
// disabled counter without disabling an enabled one. A decoded STAT_GET
// reply, written out again the kernel's way, must decode to the same
// entries. Seeds: the fixtures below and testdata/fuzz/FuzzDecodeStatReply.
func FuzzDecodeStatReply(f *testing.F) {
	f.Add(replyOneCounter)
	f.Add(mlx5StatGet(map[string]uint64{"cc_rx_ce_pkts": 77}))
	f.Add(mlx5Status(map[string]uint64{"cc_rx_ce_pkts": 0}))
	f.Add(nlfixture.Cat(handle(3, "mlx5_0", 1), table(
		rawEntry(nameAttr(cstr("np_cnp_sent")), valueAttr(le32(7))),
		rawEntry(valueAttr(le64(5))),
		rawEntry(nameAttr(cstr("cc_rx_ce_pkts")), nla(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, le32(1))),
	)))
	f.Fuzz(func(t *testing.T, b []byte) {
		stat, err := decodeStatReply(b, true)
		if err != nil {
			if stat.entries != nil || stat.skipped != nil || stat.devIndex != nil {
				t.Fatalf("decodeStatReply returned data with error %v", err)
			}
		}
		status, serr := decodeStatReply(b, false)
		if (err == nil) != (serr == nil) {
			t.Fatalf("framing verdict depends on the command: %v / %v", err, serr)
		}
		if d, why := decodeDevice(b); why == "" && !validDeviceName(d.Name) {
			t.Fatalf("decodeDevice accepted name %q", d.Name)
		}
		if err != nil {
			return
		}
		for _, e := range append(slices.Clone(stat.entries), status.entries...) {
			if _, why := counterName([]byte(e.name)); why != "" {
				t.Fatalf("entry with name %q: %s", e.name, why)
			}
		}
		for _, p := range []Port{
			merge("mlx5_0", 1, stat, nil, "no status"),
			merge("mlx5_0", 1, stat, &status, ""),
		} {
			checkPort(t, p)
		}

		// Write the STAT_GET entries out again; they must come back.
		var entries [][]byte
		for _, e := range stat.entries {
			if e.value != nil {
				entries = append(entries, valueEntry(e.name, *e.value))
			}
		}
		again, err := decodeStatReply(nlfixture.Cat(handle(3, "mlx5_0", 1), table(entries...)), true)
		if err != nil {
			t.Fatalf("re-encoded reply: %v", err)
		}
		var want, got []counterEntry
		for _, e := range stat.entries {
			if e.value != nil {
				want = append(want, counterEntry{name: e.name, value: e.value})
			}
		}
		for _, e := range again.entries {
			got = append(got, counterEntry{name: e.name, value: e.value})
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(counterEntry{})); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// checkPort checks the invariants of a merged Port.
func checkPort(t *testing.T, p Port) {
	t.Helper()
	for i, c := range p.Counters {
		if i > 0 && p.Counters[i-1].Name >= c.Name {
			t.Fatalf("counters not sorted and unique: %q then %q", p.Counters[i-1].Name, c.Name)
		}
		if c.Enabled && !c.Optional {
			t.Fatalf("counter %s enabled but not optional", c.Name)
		}
		if !p.StatusKnown && c.Optional {
			t.Fatalf("counter %s optional without a status", c.Name)
		}
	}
	for _, s := range append([]string{p.StatusWhy}, p.Skipped...) {
		if strings.ContainsAny(s, "\n\r") {
			t.Fatalf("note spans lines: %q", s)
		}
	}
	disabled := p.Disabled()
	cmd := p.EnableCommand()
	if (len(disabled) == 0) != (cmd == "") {
		t.Fatalf("Disabled %q but EnableCommand %q", disabled, cmd)
	}
	if cmd == "" {
		return
	}
	prefix := "rdma statistic set link " + shellQuote(p.Device+"/"+strconv.Itoa(p.Port)) + " optional-counters "
	list, ok := strings.CutPrefix(cmd, prefix)
	if !ok {
		t.Fatalf("EnableCommand %q does not start with %q", cmd, prefix)
	}
	if q, ok := strings.CutPrefix(list, "'"); ok { // shellQuote
		list = strings.ReplaceAll(strings.TrimSuffix(q, "'"), `'\''`, "'")
	}
	listed := strings.Split(list, ",")
	for _, c := range p.Counters {
		if c.Optional != slices.Contains(listed, c.Name) {
			t.Fatalf("EnableCommand %q: optional %v for %s", cmd, c.Optional, c.Name)
		}
	}
}
