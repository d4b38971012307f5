// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/ui"
)

// The man page has KEYS and ENVIRONMENT sections; every key of the screen
// is in KEYS, every variable dcbtop reads in ENVIRONMENT.
func TestManPageSections(t *testing.T) {
	b, err := os.ReadFile("../../assets/dcbtop.8")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	keysAt, envAt := strings.Index(page, ".SH KEYS"), strings.Index(page, ".SH ENVIRONMENT")
	if keysAt < 0 || envAt < keysAt {
		t.Fatal("the man page lacks KEYS followed by ENVIRONMENT")
	}
	keys := strings.ToLower(strings.ReplaceAll(page[keysAt:envAt], `\-`, "-"))
	k := ui.DefaultKeyMap()
	for _, col := range k.FullHelp() {
		for _, b := range col {
			for _, name := range b.Keys() {
				if len(name) == 1 && name >= "1" && name <= "9" {
					name = "1-9"
				}
				if !strings.Contains(keys, strings.ToLower(name)) {
					t.Errorf("KEYS lacks %q (%s)", name, b.Help().Desc)
				}
			}
		}
	}
	env := page[envAt:]
	for _, v := range []string{"NO_COLOR", "TERM", "DCBTOP_RUN_DIR", "DCBTOP_SYSFS_ROOT", "DCBTOP_ETHTOOL_ROOT"} {
		if !strings.Contains(env, v) {
			t.Errorf("ENVIRONMENT lacks %s", v)
		}
	}
	// TERM=dumb means no screen, but indications as plain lines
	// (dumbNotice), not merely no colours.
	if _, term, ok := strings.Cut(env, ".B TERM\n"); !ok {
		t.Error("ENVIRONMENT has no entry .B TERM")
	} else if term, _, _ = strings.Cut(term, ".TP"); !strings.Contains(manText(term), "no screen") || !strings.Contains(dumbNotice, "no screen") {
		t.Errorf("ENVIRONMENT TERM does not say that TERM=dumb means no screen: %q", term)
	}
	if !strings.Contains(page, `\-\-no\-mouse`) {
		t.Error("OPTIONS lacks --no-mouse")
	}
}
