package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// panicReader panics on Read, as gopacket/pcapgo may on hostile input.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

// TestReplayRecoversPanics checks that a panic while reading the file
// becomes an ErrCorrupt error. pcapgo's known panic only happens on 32-bit
// platforms (see TestReplayInterfaceIDOverflow), so a panicking reader
// stands in for it.
func TestReplayRecoversPanics(t *testing.T) {
	// A pcapng section header and nothing else: the first ReadFrame reads.
	shb := []byte{
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a,
		1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
	}
	path := filepath.Join(t.TempDir(), "x.pcapng")
	if err := os.WriteFile(path, shb, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("open", func(t *testing.T) {
		r := &Replay{cr: &countingReader{r: panicReader{}}}
		r.br = newReplayReader(r.cr)
		err := r.open()
		if !errors.Is(err, ErrCorrupt) || err.Error() != "corrupt capture: gopacket/pcapgo failed: boom" {
			t.Errorf("open = %v, want ErrCorrupt", err)
		}
	})

	t.Run("read", func(t *testing.T) {
		r, err := OpenReplay(path, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		r.cr.r = panicReader{}
		_, err = r.ReadFrame(context.Background())
		if !errors.Is(err, ErrCorrupt) || err.Error() != "corrupt capture: record 1 at offset 28: gopacket/pcapgo failed: boom" {
			t.Errorf("ReadFrame = %v, want ErrCorrupt", err)
		}
	})
}
