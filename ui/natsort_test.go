// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Names sort as ls -v sorts them: digit runs as numbers.
func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"numbers", []string{"h10", "h2", "h1", "h19", "h0", "h100"}, []string{"h0", "h1", "h2", "h10", "h19", "h100"}},
		{"several runs", []string{"enp129s0f10np0", "enp129s0f2np0", "enp129s0f1np1", "enp13s0f0np0"},
			[]string{"enp13s0f0np0", "enp129s0f1np1", "enp129s0f2np0", "enp129s0f10np0"}},
		{"leading zeros", []string{"h010", "h01", "h1", "h001", "h9", "h02"}, []string{"h1", "h01", "h001", "h02", "h9", "h010"}},
		{"equal numbers, then the rest", []string{"eth1b", "eth01a", "eth1a"}, []string{"eth1a", "eth01a", "eth1b"}},
		{"no digits", []string{"lo", "bond", "eth", "br-lan", "bondb"}, []string{"bond", "bondb", "br-lan", "eth", "lo"}},
		{"mixed", []string{"eth10", "eth", "10", "eth2.100", "eth2.20", "vlan", "2"},
			[]string{"2", "10", "eth", "eth2.20", "eth2.100", "eth10", "vlan"}},
		{"prefix first", []string{"h1x", "h1", "h"}, []string{"h", "h1", "h1x"}},
		{"huge numbers", []string{"p99999999999999999999", "p100000000000000000000", "p3"}, []string{"p3", "p99999999999999999999", "p100000000000000000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.in)
			slices.SortFunc(got, naturalCompare)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("sorted (-want +got):\n%s", d)
			}
			for _, a := range tt.in { // antisymmetric, and 0 only for equal strings
				for _, b := range tt.in {
					if c, r := naturalCompare(a, b), naturalCompare(b, a); c != -r || (c == 0) != (a == b) {
						t.Errorf("naturalCompare(%q, %q) = %d, reversed %d", a, b, c, r)
					}
				}
			}
		})
	}
}
