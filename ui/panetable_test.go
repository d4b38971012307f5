// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPaneTable: every pane has its entry (a title, its content), the
// slots name the panes they can hold, and Enter's hint names exactly the
// panes with details.
func TestPaneTable(t *testing.T) {
	for p, k := range paneTable {
		if k.name == "" || k.build == nil {
			t.Errorf("pane %d: no entry in paneTable (name %q)", p, k.name)
		}
	}
	if diff := cmp.Diff([]pane{paneLog, paneApp, paneDiag, panePeers, paneLossless}, slotPanes(true)); diff != "" {
		t.Errorf("the stacked slot's panes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pane{paneLog, paneLossless}, slotPanes(false)); diff != "" {
		t.Errorf("the log's place's panes (-want +got):\n%s", diff)
	}
	for _, k := range paneTable {
		if named := strings.Contains(detailHint, " "+k.name); named != (k.detail != nil) {
			t.Errorf("pane %s: detail %v, but Enter's hint %q names it: %v", k.name, k.detail != nil, detailHint, named)
		}
	}
	if got := tabName(paneDiag); got != "Diag" {
		t.Errorf("the Diagnostics pane's tab: %q", got)
	}
}
