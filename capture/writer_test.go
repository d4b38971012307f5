package capture_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"dcbtop/capture"
)

func TestWriterRoundTrip(t *testing.T) {
	jumbo := bytes.Repeat([]byte{0xab}, 9000)
	huge := bytes.Repeat([]byte{0xcd}, 70000)
	tests := []struct {
		name string
		in   []capture.Frame
		want []capture.Frame // what a replay returns
	}{
		{
			name: "no frames",
		},
		{
			name: "interface and direction are lost, the rest is kept",
			in: []capture.Frame{
				{Interface: "eth0", At: t0.Add(123456789), Dir: capture.DirectionIncoming, Data: lldpFrame(1)},
				{Interface: "eth1", At: t0.Add(30*time.Second + 1), Dir: capture.DirectionOutgoing, Data: lldpFrame(2)},
				{Interface: "eth0", At: time.Date(2025, 6, 1, 12, 0, 0, 999999999, time.FixedZone("CEST", 7200)), Data: jumbo},
				{Interface: "eth0", At: time.Unix(0, 0), Data: []byte{}},
			},
			want: []capture.Frame{
				{Interface: "pcap0", At: t0.Add(123456789), Data: lldpFrame(1)},
				{Interface: "pcap0", At: t0.Add(30*time.Second + 1), Data: lldpFrame(2)},
				{Interface: "pcap0", At: time.Date(2025, 6, 1, 10, 0, 0, 999999999, time.UTC), Data: jumbo},
				{Interface: "pcap0", At: time.Unix(0, 0).UTC(), Data: []byte{}},
			},
		},
		{
			name: "frames over 65535 bytes are cut",
			in:   []capture.Frame{{At: t0, Data: huge}},
			want: []capture.Frame{{Interface: "pcap0", At: t0, Data: huge[:65535]}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.pcap")
			w, err := capture.CreateWriter(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.in {
				if err := w.WriteFrame(f); err != nil {
					t.Fatalf("WriteFrame: %v", err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			r, err := capture.OpenReplay(path, capture.ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAll(t, r)
			if err != io.EOF {
				t.Errorf("replay ended with %v, want io.EOF", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
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

// TestNewWriterFormat pins the bytes: little-endian, nanosecond magic,
// version 2.4, snaplen 65535, Ethernet, one record per frame.
func TestNewWriterFormat(t *testing.T) {
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(1234567891)
	if err := w.WriteFrame(capture.Frame{At: at, Data: lldpFrame(7)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := pcapFile{order: binary.LittleEndian, nanos: true, snaplen: 65535, linkType: ltEthernet}.bytes(rec{at: at, data: lldpFrame(7)})
	if diff := cmp.Diff(want, buf.Bytes()); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

// writeRecorder records the size of each Write.
type writeRecorder struct {
	writes []int
	err    error // returned by every Write if set
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, len(p))
	return len(p), nil
}

// TestWriterOneWritePerFrame checks that each frame reaches the underlying
// writer at once, in a single Write, so that a recording in progress is
// readable and a crash cuts no record in two.
func TestWriterOneWritePerFrame(t *testing.T) {
	var rec writeRecorder
	w, err := capture.NewWriter(&rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{36, 9000, 65535, 100000} {
		if err := w.WriteFrame(capture.Frame{At: t0, Data: make([]byte, n)}); err != nil {
			t.Fatal(err)
		}
	}
	want := []int{24, 16 + 36, 16 + 9000, 16 + 65535, 16 + 65535}
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

func TestWriterErrors(t *testing.T) {
	t.Run("create in a missing directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "missing")
		_, err := capture.CreateWriter(filepath.Join(dir, "out.pcap"))
		if !errors.Is(err, fs.ErrNotExist) || err.Error() != "create: no such file or directory" {
			t.Errorf("CreateWriter = %v, want \"create: no such file or directory\" satisfying fs.ErrNotExist", err)
		}
	})

	t.Run("timestamps outside the pcap range", func(t *testing.T) {
		w, err := capture.NewWriter(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Time{{}, time.Unix(-1, 0), time.Unix(1<<32, 0)} {
			err := w.WriteFrame(capture.Frame{At: at, Data: lldpFrame(1)})
			if err == nil {
				t.Errorf("WriteFrame at %v succeeded", at)
			}
		}
		// Such a frame does not break the Writer.
		if err := w.WriteFrame(capture.Frame{At: t0, Data: lldpFrame(1)}); err != nil {
			t.Errorf("WriteFrame after a rejected frame: %v", err)
		}
	})

	t.Run("header write fails", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := capture.NewWriter(&writeRecorder{err: boom}); !errors.Is(err, boom) || err.Error() != "write: boom" {
			t.Errorf("NewWriter = %v, want \"write: boom\" wrapping the cause", err)
		}
	})

	t.Run("frame write fails", func(t *testing.T) {
		boom := errors.New("boom")
		rec := &writeRecorder{}
		w, err := capture.NewWriter(rec)
		if err != nil {
			t.Fatal(err)
		}
		rec.err = boom
		for range 2 { // the error is final
			if err := w.WriteFrame(capture.Frame{At: t0, Data: lldpFrame(1)}); !errors.Is(err, boom) || err.Error() != "write: boom" {
				t.Errorf("WriteFrame = %v, want \"write: boom\" wrapping the cause", err)
			}
		}
		if err := w.Close(); !errors.Is(err, boom) {
			t.Errorf("Close = %v, want the write error", err)
		}
	})

	t.Run("write after close", func(t *testing.T) {
		w, err := capture.CreateWriter(filepath.Join(t.TempDir(), "out.pcap"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := w.WriteFrame(capture.Frame{At: t0, Data: lldpFrame(1)}); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("WriteFrame after Close = %v, want fs.ErrClosed", err)
		}
	})
}
