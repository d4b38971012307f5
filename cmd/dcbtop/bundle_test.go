// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseBundle(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    *bundleOptions
		wantErr string
	}{
		{nil, &bundleOptions{duration: 30 * time.Second}, ""},
		{[]string{"-i", "eth0", "-i", "eth1", "--duration", "5s", "--redact", "-o", "x.pcapng"},
			&bundleOptions{ifaces: []string{"eth0", "eth1"}, duration: 5 * time.Second, redact: true, out: "x.pcapng"}, ""},
		{[]string{"-i", "any"}, &bundleOptions{duration: 30 * time.Second}, ""},
		{[]string{"--duration", "500ms"}, nil, "--duration must be at least 1s"},
		{[]string{"extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--redcat"}, nil, "--redcat"},
	} {
		got, err := parseBundle(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one saying %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(bundleOptions{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.args, diff)
		}
	}
}
