// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestNarrowRanges checks that every rune width counts as one cell is one
// cell to ansi.StringWidth, alone and between ASCII letters (so that it
// joins no neighbour).
func TestNarrowRanges(t *testing.T) {
	prev := rune(-1)
	for _, rg := range narrowRanges {
		if rg[0] <= prev || rg[1] < rg[0] {
			t.Fatalf("narrowRanges not sorted and disjoint at %U-%U", rg[0], rg[1])
		}
		prev = rg[1]
		for r := rg[0]; r <= rg[1]; r++ {
			if w := ansi.StringWidth(string(r)); w != 1 {
				t.Errorf("%U %q: ansi width %d", r, r, w)
			}
			if w := ansi.StringWidth("a" + string(r) + "b"); w != 3 {
				t.Errorf("a%qb: ansi width %d, want 3", r, w)
			}
		}
	}
}

// TestWidth checks width against ansi.StringWidth on what a frame measures
// and on strings that leave its fast path.
func TestWidth(t *testing.T) {
	bold := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	tests := []string{
		"", "plain ascii", bold.Render("styled"), "a · b — c … ─│▶◆●★⚠✓✗ℹ",
		bold.Render("→ 5s/5s") + " █▇▆ " + bold.Render("ok"),
		"日本語", "e\u0301", "a\u200db", "☀\ufe0f", "🇫🇷", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
		"tab\there", "nl\nx", "\x1b[", "\x1b[1", "\x1b[1;\x01m", "\x1bP", "\x7f", "\u00ad", "\u202e", "◽",
	}
	for _, s := range tests {
		if got, want := width(s), ansi.StringWidth(s); got != want {
			t.Errorf("width(%q) = %d, ansi says %d", s, got, want)
		}
	}
}

// FuzzWidth checks width against ansi.StringWidth on any string.
func FuzzWidth(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[1;31mred\x1b[m · —", "日本", "e\u0301", "\x1b[1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := width(s), ansi.StringWidth(s); got != want {
			t.Errorf("width(%q) = %d, ansi says %d", s, got, want)
		}
	})
}

// TestWidthRandom checks width against ansi.StringWidth on random mixes
// of ASCII, SGR sequences, narrow symbols and runes that leave the fast
// path.
func TestWidthRandom(t *testing.T) {
	parts := []string{"a", "Z", " ", "0", "\x1b[1m", "\x1b[38;5;14m", "\x1b[m", "·", "─", "▶", "★", "µ",
		"\u0301", "\ufe0f", "\u200d", "日", "🙂", "\t", "\x1b", "[", "m"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := width(s), ansi.StringWidth(s); got != want {
			t.Fatalf("width(%q) = %d, ansi says %d", s, got, want)
		}
	}
}
