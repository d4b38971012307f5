// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// writerMaxTime is the last timestamp a Writer can record.
var writerMaxTime = time.Unix(0, math.MaxInt64)

// writeRecording writes frames with Create to a new file and returns
// its path.
func writeRecording(tb testing.TB, frames []capture.Frame) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "out.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	for i, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			tb.Fatalf("WriteFrame %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("Close: %v", err)
	}
	return path
}

// replayRecording replays the file at path to its end, which must be a
// clean io.EOF.
func replayRecording(tb testing.TB, path string) []capture.Frame {
	tb.Helper()
	r, err := pcap.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	got, err := readAll(tb, r)
	if err != io.EOF {
		tb.Errorf("replay ended with %v, want io.EOF", err)
	}
	return got
}

func TestWriterRoundTrip(t *testing.T) {
	jumbo := bytes.Repeat([]byte{0xab}, 9000)
	huge := bytes.Repeat([]byte{0xcd}, 70000)
	cest := time.FixedZone("CEST", 7200)
	tests := []struct {
		name string
		in   []capture.Frame
		want []capture.Frame // what a replay returns, if not in
	}{
		{
			name: "no frames",
		},
		{
			name: "two interfaces interleaved, every direction",
			in: []capture.Frame{
				{Interface: "eth0", At: t0.Add(123456789), Dir: capture.DirectionIncoming, Data: lldpFrame(1)},
				{Interface: "eth1", At: t0.Add(123456790), Dir: capture.DirectionOutgoing, Data: lldpFrame(2)},
				{Interface: "eth0", At: t0.Add(30*time.Second + 1), Dir: capture.DirectionOutgoing, Data: lldpFrame(3)},
				{Interface: "eth1", At: t0.Add(30*time.Second + 2), Dir: capture.DirectionUnknown, Data: lldpFrame(4)},
				{Interface: "eth0", At: t0.Add(30*time.Second + 3), Dir: capture.DirectionUnknown, Data: lldpFrame(5)},
				{Interface: "eth1", At: t0.Add(31 * time.Second), Dir: capture.DirectionIncoming, Data: lldpFrame(6)},
				{Interface: "enp1s0f0np0", At: t0.Add(32 * time.Second), Dir: capture.DirectionIncoming, Data: lldpFrame(7)},
			},
		},
		{
			name: "timestamps to the nanosecond, in UTC",
			in: []capture.Frame{
				{Interface: "eth0", At: time.Date(2025, 6, 1, 12, 0, 0, 999999999, cest), Dir: capture.DirectionIncoming, Data: jumbo},
				{Interface: "eth0", At: time.Unix(0, 0), Dir: capture.DirectionOutgoing, Data: []byte{}},
				{Interface: "eth0", At: time.Unix(1<<32, 1), Data: lldpFrame(1)}, // past classic pcap's 2106
				{Interface: "eth0", At: writerMaxTime, Data: lldpFrame(2)},
			},
			want: []capture.Frame{
				{Interface: "eth0", At: time.Date(2025, 6, 1, 10, 0, 0, 999999999, time.UTC), Dir: capture.DirectionIncoming, Data: jumbo},
				{Interface: "eth0", At: time.Unix(0, 0).UTC(), Dir: capture.DirectionOutgoing, Data: []byte{}},
				{Interface: "eth0", At: time.Unix(1<<32, 1).UTC(), Data: lldpFrame(1)},
				{Interface: "eth0", At: writerMaxTime.UTC(), Data: lldpFrame(2)},
			},
		},
		{
			name: "an unnamed interface replays as pcapN",
			in: []capture.Frame{
				{Interface: "eth0", At: t0, Data: lldpFrame(1)},
				{At: t0.Add(1), Dir: capture.DirectionIncoming, Data: lldpFrame(2)},
			},
			want: []capture.Frame{
				{Interface: "eth0", At: t0, Data: lldpFrame(1)},
				{Interface: "pcap1", At: t0.Add(1), Dir: capture.DirectionIncoming, Data: lldpFrame(2)},
			},
		},
		{
			name: "frames over 65535 bytes are cut",
			in:   []capture.Frame{{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: huge}},
			want: []capture.Frame{{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: huge[:65535]}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == nil {
				want = tt.in
			}
			got := replayRecording(t, writeRecording(t, tt.in))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replayed frames (-want +got):\n%s", diff)
			}
			for i, f := range got {
				if f.At.Location() != time.UTC {
					t.Errorf("frame %d: At in %v, want UTC", i, f.At.Location())
				}
			}
		})
	}
}

// writerSHB returns a little-endian file holding the section header block
// a Writer writes.
func writerSHB() *ng {
	return (&ng{order: binary.LittleEndian}).shb(ngOpt{code: 4, value: []byte("dcbtop")}) // shb_userappl
}

// writerIDB appends the interface description block a Writer writes for
// name: Ethernet, snaplen 65535, if_name and if_tsresol 9, in pcapgo's
// order.
func writerIDB(n *ng, name string) *ng {
	b := n.order.AppendUint16(nil, ltEthernet)
	b = n.order.AppendUint16(b, 0)
	b = n.order.AppendUint32(b, 65535)
	var opts []ngOpt
	if name != "" {
		opts = append(opts, ngOpt{code: 2, value: []byte(name)})
	}
	opts = append(opts, ngOpt{code: 9, value: []byte{9}})
	return n.block(1, append(b, n.options(opts)...))
}

// TestNewWriterFormat pins the bytes: a little-endian pcapng section
// written by "dcbtop", interfaces described on first use, one Enhanced
// Packet Block per frame with its direction in epb_flags (bits 0-1: 01
// inbound, 10 outbound), and no epb_flags for an unknown direction.
func TestNewWriterFormat(t *testing.T) {
	var buf bytes.Buffer
	w, err := pcap.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(writerSHB().b, buf.Bytes()); diff != "" {
		t.Errorf("file before any frame (-want +got):\n%s", diff)
	}
	at := t0.Add(1234567891)
	frames := []capture.Frame{
		{Interface: "eth0", At: at, Dir: capture.DirectionIncoming, Data: lldpFrame(1)},
		{Interface: "swp12", At: at.Add(1), Dir: capture.DirectionOutgoing, Data: lldpFrame(2)},
		{Interface: "eth0", At: at.Add(2), Dir: capture.DirectionUnknown, Data: lldpFrame(3)[:35]}, // padded
		{Interface: "eth0", At: at.Add(3), Dir: capture.DirectionOutgoing, Data: lldpFrame(4)},
	}
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := writerSHB()
	writerIDB(n, "eth0")
	n.epb(0, rec{at: at, data: lldpFrame(1)}, ptr[uint32](1))
	writerIDB(n, "swp12")
	n.epb(1, rec{at: at.Add(1), data: lldpFrame(2)}, ptr[uint32](2))
	n.epb(0, rec{at: at.Add(2), data: lldpFrame(3)[:35]}, nil)
	n.epb(0, rec{at: at.Add(3), data: lldpFrame(4)}, ptr[uint32](2))
	if diff := cmp.Diff(n.b, buf.Bytes()); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	// And the Reader maps those flags back (pcapgo decodes epb_flags as
	// little-endian, which is right for this writer's files).
	got := replayRecording(t, writeTemp(t, buf.Bytes()))
	if len(got) != len(frames) {
		t.Fatalf("replayed %d frames, want %d", len(got), len(frames))
	}
	for i, f := range got {
		if f.Dir != frames[i].Dir {
			t.Errorf("frame %d replayed with Dir %v, want %v", i, f.Dir, frames[i].Dir)
		}
	}
}

// writeRecorder records the size of each Write.
type writeRecorder struct {
	writes []int
	err    error // returned by every Write if set
	short  bool  // Write reports one byte less than it was given, and no error
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, len(p))
	if w.short && len(p) > 0 {
		return len(p) - 1, nil
	}
	return len(p), nil
}

// TestWriterOneWritePerFrame checks that each frame, and the description of
// its interface if it is new, reach the underlying writer at once, in a
// single Write, so that a recording in progress is readable and a crash
// cuts no block in two.
func TestWriterOneWritePerFrame(t *testing.T) {
	var rec writeRecorder
	w, err := pcap.NewWriter(&rec)
	if err != nil {
		t.Fatal(err)
	}
	frames := []capture.Frame{
		{Interface: "eth0", Dir: capture.DirectionIncoming, Data: make([]byte, 36)},
		{Interface: "eth0", Data: make([]byte, 9000)},
		{Interface: "eth1", Dir: capture.DirectionOutgoing, Data: make([]byte, 65535)},
		{Interface: "eth0", Dir: capture.DirectionIncoming, Data: make([]byte, 100000)},
	}
	for _, f := range frames {
		f.At = t0
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	const (
		shb   = 24 + 16 + 4 // header, shb_userappl "dcbtop" and end of options, trailer
		idb   = 16 + 20 + 4 // header, if_name "ethN", if_tsresol and end of options, trailer
		epb   = 28 + 4      // header and trailer, without the data
		flags = 12          // epb_flags and end of options
	)
	want := []int{
		shb,
		idb + epb + 36 + flags,
		epb + 9000,
		idb + epb + 65535 + 1 + flags, // padded to 4 bytes
		epb + 65535 + 1 + flags,       // cut to the snapshot length
	}
	if diff := cmp.Diff(want, rec.writes); diff != "" {
		t.Errorf("Write sizes (-want +got):\n%s", diff)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, rec.writes); diff != "" {
		t.Errorf("Write sizes after Close (-want +got):\n%s", diff)
	}
}

// TestWriterRecordingInProgress reads a recording while it is being written:
// the frames written so far replay, and the replay ends cleanly after them.
func TestWriterRecordingInProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := replayRecording(t, path); len(got) != 0 {
		t.Errorf("replay before any frame = %v, want no frame", got)
	}
	frames := []capture.Frame{
		{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: lldpFrame(1)},
		{Interface: "eth1", At: t0.Add(1), Dir: capture.DirectionOutgoing, Data: lldpFrame(2)},
		{Interface: "eth0", At: t0.Add(2), Data: lldpFrame(3)},
		{Interface: "eth2", At: t0.Add(3), Dir: capture.DirectionIncoming, Data: lldpFrame(4)},
	}
	for i, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		got := replayRecording(t, path)
		if diff := cmp.Diff(frames[:i+1], got); diff != "" {
			t.Errorf("replay after %d frames (-want +got):\n%s", i+1, diff)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(frames, replayRecording(t, path)); diff != "" {
		t.Errorf("replay after Close (-want +got):\n%s", diff)
	}
}

// TestWriterTshark checks with tshark (Wireshark 4.0), while the recording
// is still open, that every frame is on its interface, named, with its
// direction and its timestamp to the nanosecond. For pcapng, tshark shows
// epb_flags as frame.packet_flags_direction and derives frame.p2p_dir from
// it: 1 (received) for inbound, 0 (sent) for outbound, nothing when the
// direction is unknown.
func TestWriterTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
			t.Fatalf("tshark not installed and DCBTOP_REQUIRE_PRIV=1: %v", err)
		}
		t.Skipf("skipping: tshark not installed (apt-get install tshark; DCBTOP_REQUIRE_PRIV=1 would make this a failure): %v", err)
	}
	path := filepath.Join(t.TempDir(), "out.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	frames := []capture.Frame{
		{Interface: "eth0", At: t0.Add(123456789), Dir: capture.DirectionIncoming, Data: lldpFrame(1)},
		{Interface: "enp1s0f1", At: t0.Add(123456790), Dir: capture.DirectionOutgoing, Data: lldpFrame(2)},
		{Interface: "eth0", At: t0.Add(time.Second), Dir: capture.DirectionUnknown, Data: lldpFrame(3)},
		{Interface: "enp1s0f1", At: t0.Add(2*time.Second + 1), Dir: capture.DirectionIncoming, Data: lldpFrame(4)},
		{Interface: "eth0", At: t0.Add(3 * time.Second), Dir: capture.DirectionOutgoing, Data: lldpFrame(5)},
	}
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), tshark, "-r", path, "-T", "fields", "-E", "separator=|",
		"-e", "frame.interface_id", "-e", "frame.interface_name",
		"-e", "frame.packet_flags_direction", "-e", "frame.p2p_dir",
		"-e", "frame.time_epoch", "-e", "frame.len", "-e", "eth.src")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, stderr.Bytes())
	}
	want := []string{
		"0|eth0|0x00000001|1|1735689600.123456789|36|02:00:00:00:00:01",
		"1|enp1s0f1|0x00000002|0|1735689600.123456790|36|02:00:00:00:00:02",
		"0|eth0|||1735689601.000000000|36|02:00:00:00:00:03",
		"1|enp1s0f1|0x00000001|1|1735689602.000000001|36|02:00:00:00:00:04",
		"0|eth0|0x00000002|0|1735689603.000000000|36|02:00:00:00:00:05",
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tshark fields (-want +got):\n%s\nstderr:\n%s", diff, stderr.Bytes())
	}
}

func TestWriterErrors(t *testing.T) {
	t.Run("create in a missing directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "missing")
		_, err := pcap.Create(filepath.Join(dir, "out.pcapng"))
		if !errors.Is(err, fs.ErrNotExist) || err.Error() != "create: no such file or directory" {
			t.Errorf("Create = %v, want \"create: no such file or directory\" satisfying fs.ErrNotExist", err)
		}
	})

	t.Run("create over a directory", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("error text differs on Windows")
		}
		_, err := pcap.Create(t.TempDir())
		if err == nil || err.Error() != "create: is a directory" {
			t.Errorf("Create = %v, want \"create: is a directory\"", err)
		}
	})

	t.Run("timestamps outside the pcapng range", func(t *testing.T) {
		var buf bytes.Buffer
		w, err := pcap.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		header := buf.Len()
		for _, tt := range []struct {
			at   time.Time
			want string
		}{
			{time.Time{}, "frame timestamp 0001-01-01T00:00:00Z outside the pcapng range (1970 to 2262)"},
			{time.Unix(-1, 999999999), "frame timestamp 1969-12-31T23:59:59.999999999Z outside the pcapng range (1970 to 2262)"},
			{writerMaxTime.Add(1), "frame timestamp 2262-04-11T23:47:16.854775808Z outside the pcapng range (1970 to 2262)"},
		} {
			err := w.WriteFrame(capture.Frame{Interface: "eth0", At: tt.at, Data: lldpFrame(1)})
			if err == nil || err.Error() != tt.want {
				t.Errorf("WriteFrame at %v = %v, want %q", tt.at, err, tt.want)
			}
		}
		if buf.Len() != header {
			t.Errorf("rejected frames wrote %d bytes", buf.Len()-header)
		}
		// Such a frame does not break the Writer, nor leave an interface
		// half described.
		f := capture.Frame{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: lldpFrame(1)}
		if err := w.WriteFrame(f); err != nil {
			t.Errorf("WriteFrame after a rejected frame: %v", err)
		}
		got := replayRecording(t, writeTemp(t, buf.Bytes()))
		if diff := cmp.Diff([]capture.Frame{f}, got); diff != "" {
			t.Errorf("replay (-want +got):\n%s", diff)
		}
	})

	t.Run("interface name too long", func(t *testing.T) {
		w, err := pcap.NewWriter(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		err = w.WriteFrame(capture.Frame{Interface: strings.Repeat("x", 1<<16), At: t0, Data: lldpFrame(1)})
		if err == nil || err.Error() != "interface name of 65536 bytes too long for pcapng" {
			t.Errorf("WriteFrame = %v, want \"interface name of 65536 bytes too long for pcapng\"", err)
		}
		if err := w.WriteFrame(capture.Frame{Interface: strings.Repeat("x", 1<<16-1), At: t0, Data: lldpFrame(1)}); err != nil {
			t.Errorf("WriteFrame with a 65535-byte name: %v", err)
		}
	})

	t.Run("header write fails", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := pcap.NewWriter(&writeRecorder{err: boom}); !errors.Is(err, boom) || err.Error() != "write: boom" {
			t.Errorf("NewWriter = %v, want \"write: boom\" wrapping the cause", err)
		}
	})

	t.Run("frame write fails", func(t *testing.T) {
		boom := errors.New("boom")
		rec := &writeRecorder{}
		w, err := pcap.NewWriter(rec)
		if err != nil {
			t.Fatal(err)
		}
		rec.err = boom
		for _, iface := range []string{"eth0", "eth0", "eth1"} { // the error is final
			if err := w.WriteFrame(capture.Frame{Interface: iface, At: t0, Data: lldpFrame(1)}); !errors.Is(err, boom) || err.Error() != "write: boom" {
				t.Errorf("WriteFrame = %v, want \"write: boom\" wrapping the cause", err)
			}
		}
		rec.err = nil
		if err := w.WriteFrame(capture.Frame{Interface: "eth0", At: t0, Data: lldpFrame(1)}); !errors.Is(err, boom) {
			t.Errorf("WriteFrame once the writer works again = %v, want the first error", err)
		}
		if len(rec.writes) != 1 {
			t.Errorf("%d writes after the failure, want none", len(rec.writes)-1)
		}
		if err := w.Close(); !errors.Is(err, boom) {
			t.Errorf("Close = %v, want the write error", err)
		}
	})

	t.Run("short write", func(t *testing.T) {
		rec := &writeRecorder{}
		w, err := pcap.NewWriter(rec)
		if err != nil {
			t.Fatal(err)
		}
		rec.short = true
		if err := w.WriteFrame(capture.Frame{Interface: "eth0", At: t0, Data: lldpFrame(1)}); !errors.Is(err, io.ErrShortWrite) || err.Error() != "write: short write" {
			t.Errorf("WriteFrame = %v, want \"write: short write\" satisfying io.ErrShortWrite", err)
		}
	})

	t.Run("write after close", func(t *testing.T) {
		w, err := pcap.Create(filepath.Join(t.TempDir(), "out.pcapng"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := w.WriteFrame(capture.Frame{At: t0, Data: lldpFrame(1)}); !errors.Is(err, fs.ErrClosed) || err.Error() != "write: file already closed" {
			t.Errorf("WriteFrame after Close = %v, want \"write: file already closed\" satisfying fs.ErrClosed", err)
		}
	})
}

// TestCreateWriterFile checks the file Create makes: mode 0644 (less
// the umask), and an existing file overwritten, as tcpdump -w does.
func TestCreateWriterFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions on Windows")
	}
	t.Run("mode", func(t *testing.T) {
		path := writeRecording(t, nil)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&^0o644 != 0 || perm&0o600 != 0o600 {
			t.Errorf("mode %v, want -rw-r--r-- less the umask", fi.Mode())
		}
	})
	t.Run("overwrite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out.pcapng")
		if err := os.WriteFile(path, bytes.Repeat([]byte{0xff}, 100000), 0o600); err != nil {
			t.Fatal(err)
		}
		w, err := pcap.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f := capture.Frame{Interface: "eth0", At: t0, Dir: capture.DirectionOutgoing, Data: lldpFrame(1)}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]capture.Frame{f}, replayRecording(t, path)); diff != "" {
			t.Errorf("replay (-want +got):\n%s", diff)
		}
	})
}

// A recording is mode 0600 from its creation, whatever the umask; an
// existing file it truncates becomes 0600 before anything is written
// (7737732 wrote 0644: all a 0600 bundle holds, readable by every user).
func TestCreateWriterMode(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	fresh, existing := filepath.Join(dir, "new.pcapng"), filepath.Join(dir, "old.pcapng")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fresh, existing} {
		w, err := pcap.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", filepath.Base(p), fi.Mode().Perm(), err)
		}
		w.Close()
	}
}
