// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"reflect"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestLookRendersAsLipGloss checks that every Look of every theme renders
// what its lip gloss Style renders, on the fast path (one line) and off
// it (several lines, tabs, several strings, styled text inside), and that
// the attribute-only styles do take the fast path.
func TestLookRendersAsLipGloss(t *testing.T) {
	inputs := [][]string{
		{""}, {"x"}, {"a b"}, {"  padded  "}, {"日本語 wide"}, {"e\u0301 combining"},
		{"two\nlines"}, {"tab\there"}, {"cr\r\nlf"}, {"a", "b", "c"}, {},
		{"inner " + lipgloss.NewStyle().Bold(true).Render("bold") + " text"},
	}
	themes := map[string]Styles{"dark": DefaultStyles(true), "light": DefaultStyles(false), "plain": NoColorStyles()}
	for name, st := range themes {
		v := reflect.ValueOf(st)
		for i := range v.NumField() {
			field := v.Type().Field(i).Name
			l, ok := v.Field(i).Interface().(Look)
			if !ok {
				continue // Sym
			}
			for _, in := range inputs {
				if got, want := l.Render(in...), l.Style.Render(in...); got != want {
					t.Errorf("%s %s: Render(%q) = %q, lip gloss renders %q", name, field, in, got, want)
				}
			}
			switch {
			case field == "Dialog", name != "plain" && (field == "Match" || field == "KeyDisabled"): // a border; styled spaces
				if l.fast {
					t.Errorf("%s %s takes the fast path", name, field)
				}
			default:
				if !l.fast {
					t.Errorf("%s %s does not take the fast path", name, field)
				}
			}
		}
	}
}

// BenchmarkLook compares a Look's Render with lip gloss's on a line.
func BenchmarkLook(b *testing.B) {
	st := DefaultStyles(true)
	line := "14:35:19.602 v0   REMOTE first-receipt ETS_CONFIGURED|ETS_CHANGED"
	b.Run("look", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = st.Warn.Render(line)
		}
	})
	b.Run("lipgloss", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = st.Warn.Style.Render(line)
		}
	})
}
