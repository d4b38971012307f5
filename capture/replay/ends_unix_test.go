// SPDX-License-Identifier: Apache-2.0

//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestReplayEndsStream: a stream (a FIFO, standard input) is read once,
// so its ends are looked for in its first TTL window, the frames read
// for them replayed first; a speaker that starts later is not found
// there (a file is read whole: TestReplayEnds).
func TestReplayEndsStream(t *testing.T) {
	sw := speakerFrame(t, switchMAC, 120, false, nil)
	host := speakerFrame(t, hostMAC, 120, true, nil)
	early := sortRecords(every(sw, 0, 30*time.Second, 5*time.Minute), every(host, time.Second, 30*time.Second, 5*time.Minute))
	late := sortRecords(every(sw, 0, 30*time.Second, 15*time.Minute), every(host, 10*time.Minute, 30*time.Second, 15*time.Minute))
	for _, tt := range []struct {
		name  string
		recs  []record
		ends  int
		local lldp.MAC
	}{
		{"two ends within the first TTL", early, 1, hostMAC},
		{"an agent starting after the first TTL: not seen", late, 0, lldp.MAC{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file, err := os.ReadFile(writePcap(t, tt.recs...))
			if err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
			done := make(chan error, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err == nil {
					_, err = w.Write(file)
					w.Close()
				}
				done <- err
			}()
			s := open(t, fifo, 0, nil)
			ends, err := s.LocalEnds(engine.EndsEvidence{})
			if err != nil || len(ends) != tt.ends {
				t.Fatalf("ends %+v, %v: want %d", ends, err, tt.ends)
			}
			if diff := cmp.Diff(from(tt.recs, tt.local), replayed(t, s)); diff != "" {
				t.Errorf("outgoing, frame by frame, the frames read for the ends replayed too (-want +got):\n%s", diff)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
