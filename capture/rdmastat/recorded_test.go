// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// recordedEntry is one counter of a recorded reply, read with
// mdlayher/netlink's decoder (not this package's).
type recordedEntry struct {
	name  string
	value uint64
	index uint32
}

// readRecordedReply reads testdata/kernel/file (the real kernel's reply,
// recorded by testbed/realkernel TestRecordedReplies) and the handle and
// counters it holds.
func readRecordedReply(t *testing.T, file string) (b []byte, dev uint32, name string, port uint32, entries []recordedEntry) {
	t.Helper()
	b, err := nlfixture.ReadRecorded(filepath.Join("testdata", "kernel", file))
	if err != nil {
		t.Fatal(err)
	}
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		t.Fatal(err)
	}
	for ad.Next() {
		switch ad.Type() {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			dev = ad.Uint32()
		case RDMA_NLDEV_ATTR_DEV_NAME:
			name = ad.String()
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			port = ad.Uint32()
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
			ad.Nested(func(nad *netlink.AttributeDecoder) error {
				for nad.Next() {
					var e recordedEntry
					nad.Nested(func(ead *netlink.AttributeDecoder) error {
						for ead.Next() {
							switch ead.Type() {
							case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
								e.name = ead.String()
							case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE:
								e.value = ead.Uint64()
							case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX:
								e.index = ead.Uint32()
							}
						}
						return nil
					})
					entries = append(entries, e)
				}
				return nil
			})
		}
	}
	if err := ad.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s holds no counter", file)
	}
	return b, dev, name, port, entries
}

// TestFixturesAgainstKernel holds the fixture builders (handle, table,
// valueEntry, statusEntry), from which every reply of this package's
// tests is made, to the real kernel's replies: built from the names,
// values and indices the kernel sent, they must give its bytes exactly
// (attribute order, NLA_F_NESTED, nla_put_u64_64bit without a pad
// attribute on x86-64, string NULs and padding). And this package's
// decoder reads the recordings to every counter they hold.
func TestFixturesAgainstKernel(t *testing.T) {
	nlfixture.RequireLittleEndian(t) // the recordings are of an x86-64 guest
	stat, dev, name, port, values := readRecordedReply(t, "stat-get-rxe.hex")
	var entries [][]byte
	for _, e := range values {
		entries = append(entries, valueEntry(e.name, e.value))
	}
	if d := cmp.Diff(stat, nlfixture.Cat(handle(dev, name, port), table(entries...))); d != "" {
		t.Errorf("STAT_GET: the fixture builders' bytes differ from the kernel's (-kernel +fixture):\n%s", d)
	}

	status, sdev, sname, sport, indices := readRecordedReply(t, "stat-get-status-rxe.hex")
	entries = nil
	for _, e := range indices {
		entries = append(entries, statusEntry(e.name, e.index, nil)) // rxe has no optional counter
	}
	if d := cmp.Diff(status, nlfixture.Cat(handle(sdev, sname, sport), table(entries...))); d != "" {
		t.Errorf("STAT_GET_STATUS: the fixture builders' bytes differ from the kernel's (-kernel +fixture):\n%s", d)
	}

	s, err := decodeStatReply(stat, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := decodeStatReply(status, false)
	if err != nil {
		t.Fatal(err)
	}
	p := merge(name, int(port), s, &st, "")
	var want []Counter
	for _, e := range values {
		want = append(want, Counter{Name: e.name, Value: u64p(e.value)})
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	if d := cmp.Diff(Port{Device: name, Port: int(port), Counters: want, StatusKnown: true}, p); d != "" {
		t.Errorf("the recorded replies decoded (-want +got):\n%s", d)
	}
}
