// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/frames"
	"github.com/dcbtop/dcbtop/testbed"
)

const (
	fixtureGrow    = "../../engine/testdata/scenario-grow.pcap"
	fixtureHostile = "../../engine/lldp/testdata/lldpd-hostile.pcap"
	fixtureDemo    = "../../assets/demo.pcap"
	fixtureMulti   = "../../engine/testdata/scenario-multipeer.pcap"
)

// TestFramesGolden: dcbtop -r FILE --frames in text and NDJSON, and
// --frame N, against golden files (go test -update rewrites them): a
// capture whose switch adds PFC, APP, changes ETS and shuts down, one of
// three identical LLDPDUs, and one of a switch sending escape sequences
// in its names.
func TestFramesGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"frames-grow.txt", []string{"-r", fixtureGrow, "--frames"}},
		{"frames-ieee.ndjson", []string{"-r", fixtureIEEE, "--frames", "--json"}},
		{"frames-multipeer-from.txt", []string{"-r", fixtureMulti, "--frames", "--from", "02:dc:b0:00:00:02"}},
		{"frame-ieee-2.txt", []string{"-r", fixtureIEEE, "--frame", "2"}},
		{"frame-hostile-1.txt", []string{"-r", fixtureHostile, "--frame", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && engine.UnsafeRune(r) }) {
				t.Errorf("output has a character a terminal would act on:\n%q", out)
			}
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), out)
		})
	}
}

// TestFramesMatchTshark runs the built binary: dcbtop -r FILE --frames
// --json lists the LLDPDUs tshark -Y lldp lists, in order, with the same
// times, addresses and bytes; --from keeps those tshark's eth.src filter
// keeps.
func TestFramesMatchTshark(t *testing.T) {
	t.Parallel()
	bin := tuiBinary(t)
	for _, f := range []string{fixtureIEEE, fixtureCEE, fixtureHostile, fixtureGrow, fixtureMulti, fixtureDemo} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := testbed.TsharkLLDP(t, f)
			got := framesJSON(t, bin, "-r", f, "--frames", "--json")
			if len(got) != len(want) {
				t.Fatalf("%d LLDPDUs; tshark -Y lldp has %d", len(got), len(want))
			}
			senders := map[string]int{}
			for i, d := range got {
				sameFrame(t, i, d, want[i], time.Microsecond)
				senders[d.Src]++
			}
			for src, n := range senders {
				from := framesJSON(t, bin, "-r", f, "--frames", "--json", "--from", src)
				if len(from) != n {
					t.Errorf("--from %s: %d LLDPDUs, want %d", src, len(from), n)
				}
				for _, d := range from {
					if d.Src != src {
						t.Errorf("--from %s: LLDPDU %d from %s", src, d.Number, d.Src)
					}
				}
			}
		})
	}
}

// sameFrame checks that the i-th LLDPDU dcbtop printed, d, is tshark's
// frame w: numbered i+1, the same addresses, bytes and time (within tol).
func sameFrame(t *testing.T, i int, d frames.Doc, w testbed.TsharkFrame, tol time.Duration) {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, d.Time)
	if err != nil {
		t.Fatal(err)
	}
	if d.Number != uint64(i+1) || d.Src != w.Src.String() || d.Dst != w.Dst.String() ||
		d.Hex != hex.EncodeToString(w.Raw[14:]) || d.Length != len(w.Raw)-14 || at.Sub(w.Time).Abs() > tol {
		t.Errorf("LLDPDU %d: %s %s → %s %d bytes; tshark's frame %d: %s %s → %s %d bytes",
			i+1, d.Time, d.Src, d.Dst, d.Length, w.Number, w.Time.UTC().Format(frames.TimeJSON), w.Src, w.Dst, len(w.Raw)-14)
	}
}

// framesJSON runs bin with args and reads its NDJSON frames.
func framesJSON(t *testing.T, bin string, args ...string) []frames.Doc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dcbtop %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var docs []frames.Doc
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d frames.Doc
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		docs = append(docs, d)
	}
	return docs
}

// TestFramesUsage: the frames' flags' errors, each one line.
func TestFramesUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"bad MAC", []string{"-r", fixtureIEEE, "--frames", "--from", "02:dc:zz"}, 2,
			"dcbtop: invalid value \"02:dc:zz\" for flag --from: want a MAC address like 02:00:00:00:00:01 (see dcbtop --help)\n"},
		{"--from alone", []string{"-r", fixtureIEEE, "--from", "02:dc:b0:00:00:01"}, 2, "dcbtop: --from needs --frames or --frame (see dcbtop --help)\n"},
		{"live --frame", []string{"-i", "h0", "--frame", "2"}, 2, "dcbtop: --frame applies to replay (-r) only: live, --frames prints each LLDPDU as it comes (see dcbtop --help)\n"},
		{"with --events", []string{"-r", fixtureIEEE, "--frames", "--events"}, 2,
			"dcbtop: --frames prints the LLDPDUs: --events and --text print indications instead (see dcbtop --help)\n"},
		{"--frame 0", []string{"-r", fixtureIEEE, "--frame", "0"}, 2,
			"dcbtop: invalid value \"0\" for flag --frame: want an LLDPDU's number, 1 or more (as --frames numbers them) (see dcbtop --help)\n"},
		{"no such frame", []string{"-r", fixtureIEEE, "--frame", "4"}, 1, "dcbtop: " + fixtureIEEE + ": no LLDPDU 4: the capture has 3\n"},
		{"not from MAC", []string{"-r", fixtureIEEE, "--frame", "2", "--from", "02:dc:b0:00:00:09"}, 1,
			"dcbtop: " + fixtureIEEE + ": LLDPDU 2 is not from 02:dc:b0:00:00:09\n"},
		{"no such file", []string{"-r", "testdata/no-such.pcap", "--frames"}, 1, "dcbtop: testdata/no-such.pcap: open: no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || errOut != tt.stderr || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q", code, out, errOut, tt.code, tt.stderr)
			}
		})
	}
	// One sender's, numbered as in the whole capture; --frame N and
	// --json give that LLDPDU's object.
	_, out, _ := runCLI(t, "-r", fixtureIEEE, "--frame", "3", "--json")
	var d frames.Doc
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Number != 3 || !cmp.Equal(d.Changes, []string{"identical"}) || len(d.TLVs) == 0 {
		t.Errorf("--frame 3 --json: %v, %s", err, out)
	}
}
