// SPDX-License-Identifier: Apache-2.0

package statedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

var key = lldp.MAC{0x02, 0xdc, 0xb0, 0, 0, 1}

func params(t *testing.T) *dcb.Params {
	t.Helper()
	p, err := dcb.ParseParams(strings.NewReader(`{"ets": {"willing": true, "cbs": false, "max_tcs": 8, "prio_tc": [0,0,0,1,0,0,0,0],
		"tc_bandwidth": [50,50,0,0,0,0,0,0], "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
		"pfc": {"willing": true, "mbc": false, "cap": 8, "enabled": [3]},
		"app": [{"selector": "dscp", "protocol": 26, "priority": 3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSaveLoadForget: what Save keeps, Load returns, in a 0600 file;
// Forget drops it, and a second Forget finds nothing.
func TestSaveLoadForget(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "state")}
	if s, err := d.Load(key); s != nil || err != nil {
		t.Fatalf("Load before any Save: %+v, %v", s, err)
	}
	at := time.Date(2026, 12, 3, 6, 30, 0, 0, time.UTC)
	saved, err := d.Save(Saved{Key: key, Interface: "eth0", At: at, Willing: true, Params: params(t)})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(saved.File)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file %s: %v, mode %v, want 0600", saved.File, err, fi.Mode())
	}
	got, err := d.Load(key)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(saved, got); d != "" {
		t.Errorf("Load after Save (-saved +loaded):\n%s", d)
	}
	if ch := params(t).Changes(got.Params); len(ch) != 0 || !got.Willing || got.Interface != "eth0" || !got.At.Equal(at) {
		t.Errorf("loaded %+v: changes %v", got, ch)
	}
	if !strings.Contains(got.Describe(), "eth0 (02:dc:b0:00:00:01)") || !strings.Contains(got.Describe(), "dcbtop apply --forget -i eth0") {
		t.Errorf("Describe: %q", got.Describe())
	}
	// A second save replaces the first, leaving no temporary file.
	p := params(t)
	p.PFC.Enabled = 1 << 4
	if _, err := d.Save(Saved{Key: key, Interface: "eth1", At: at.Add(time.Hour), Willing: false, Params: p}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(saved.File))
	if len(entries) != 1 {
		t.Errorf("state directory holds %v, want the one file", entries)
	}
	if got, _ := d.Load(key); got == nil || got.Params.PFC.Enabled != 1<<4 || got.Willing || got.Interface != "eth1" {
		t.Errorf("after the second save: %+v", got)
	}
	if path, removed, err := d.Forget(key); err != nil || !removed || path != saved.File {
		t.Errorf("Forget: %s %v %v", path, removed, err)
	}
	if _, removed, err := d.Forget(key); err != nil || removed {
		t.Errorf("second Forget: %v %v, want nothing removed", removed, err)
	}
	if s, err := d.Load(key); s != nil || err != nil {
		t.Errorf("Load after Forget: %+v, %v", s, err)
	}
}

// TestLoadBad: a file that is not a saved state of this port is a
// one-line error naming it, never parameters.
func TestLoadBad(t *testing.T) {
	good := func(t *testing.T, d Dir) []byte {
		if _, err := d.Save(Saved{Key: key, Interface: "eth0", At: time.Unix(0, 0), Params: params(t)}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(d.path(key))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tt := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"not JSON", func([]byte) []byte { return []byte("pfc=3\n") }, "invalid character"},
		{"another port's", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), key.String(), "02:dc:b0:00:00:09", 1))
		}, `kept for "02:dc:b0:00:00:09"`},
		{"another version", func(b []byte) []byte { return []byte(strings.Replace(string(b), `"version": 1`, `"version": 2`, 1)) }, "version 2, want 1"},
		{"unknown field", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"version": 1`, `"version": 1, "extra": 0`, 1))
		}, `unknown field "extra"`},
		{"invalid parameters", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"max_tcs": 8`, `"max_tcs": 99`, 1))
		}, "max_tcs 99 is not 1-8"},
		{"too large", func(b []byte) []byte { return append(b, make([]byte, maxFile)...) }, "not a saved state"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Dir{Path: t.TempDir()}
			b := tt.edit(good(t, d))
			if err := os.WriteFile(d.path(key), b, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := d.Load(key)
			if s != nil || err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), d.path(key)) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Load: %+v, %v; want a one-line error naming the file with %q", s, err, tt.want)
			}
		})
	}
}

// TestKeyOf: the permanent MAC when there is one, else the current one.
func TestKeyOf(t *testing.T) {
	perm, mac := [6]byte{0x0c, 0x42, 0xa1, 1, 2, 3}, [6]byte{0x02, 0, 0, 0, 0, 7}
	if k, p := KeyOf(perm, mac); k != lldp.MAC(perm) || !p {
		t.Errorf("KeyOf(perm, mac) = %v %v", k, p)
	}
	if k, p := KeyOf([6]byte{}, mac); k != lldp.MAC(mac) || p {
		t.Errorf("KeyOf(zero, mac) = %v %v", k, p)
	}
}

// TestDefault: DCBTOP_STATE_DIR relocates the directory.
func TestDefault(t *testing.T) {
	t.Setenv(EnvDir, "")
	if Default().Path != DefaultPath {
		t.Errorf("Default() = %v", Default())
	}
	t.Setenv(EnvDir, "/tmp/x")
	if Default().Path != "/tmp/x" {
		t.Errorf("Default() with %s = %v", EnvDir, Default())
	}
}
