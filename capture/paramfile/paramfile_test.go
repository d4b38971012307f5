// SPDX-License-Identifier: Apache-2.0

package paramfile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/testbed"
)

func appEntries(n int) string {
	var e []string
	for i := range n {
		e = append(e, fmt.Sprintf(`{"selector":"udp-port","protocol":%d,"priority":3}`, 1000+i))
	}
	return strings.Join(e, ",")
}

// --local with more APP entries than one TLV carries is refused at start,
// in one line naming the limit.
func TestLoadAppLimit(t *testing.T) {
	path := testbed.WriteFile(t, "a169.json", `{"app":[`+appEntries(169)+`]}`)
	_, err := Load(path)
	want := path + ": invalid parameters: app: 169 APP entries do not fit in one APP TLV (at most 168: its value is limited to 511 bytes)"
	if err == nil || err.Error() != want {
		t.Errorf("Load: %v, want %q", err, want)
	}
	if _, err := Load(testbed.WriteFile(t, "a168.json", `{"app":[`+appEntries(168)+`]}`)); err != nil {
		t.Errorf("168 entries: %v", err)
	}
}

// A file that is missing, or does not decode, is named in one line.
func TestLoadErrors(t *testing.T) {
	missing := t.TempDir() + "/nope.json"
	if _, err := Load(missing); err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	bad := testbed.WriteFile(t, "bad.json", `{"pfc":{"cap":8,"enabled":[9]}}`)
	_, err := Load(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+": ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad: %v", err)
	}
}
