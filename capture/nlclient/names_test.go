// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidIfname checks which names a client refuses without asking the
// kernel.
func TestValidIfname(t *testing.T) {
	want := map[string]bool{
		"eth0":             true,
		"x":                true,
		"fifteen-chars-x":  true, // IFNAMSIZ-1 bytes
		"enp1s0f0np0.100":  true,
		"with space":       true, // not a name the kernel gives, but one it can be asked about
		"sixteen-chars-xx": false,
		"":                 false,
		"a\x00b":           false,
		"eth0\x00":         false,
	}
	got := map[string]bool{}
	for name := range want {
		got[name] = ValidIfname(name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ValidIfname (-want +got):\n%s", diff)
	}
}

// TestCString checks the strings read from attribute payloads.
func TestCString(t *testing.T) {
	payloads := [][]byte{
		[]byte("eth0\x00"),
		[]byte("eth0\x00\x00\x00\x00"), // padded
		[]byte("mlx5_0"),               // no NUL
		[]byte("ab\x00cd\x00"),
		{0},
		nil,
	}
	want := []string{"eth0", "eth0", "mlx5_0", "ab", "", ""}
	var got []string
	for _, b := range payloads {
		got = append(got, CString(b))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CString (-want +got):\n%s", diff)
	}
}
