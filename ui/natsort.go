// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
)

// naturalCompare orders strings as `ls -v` does: runs of digits compare
// as numbers (h2 before h10, enp129s0f2np0 before enp129s0f10np0), the
// rest byte by byte. Leading zeros only break ties: of two strings that
// are otherwise equal, the first with fewer leading zeros in a number
// comes first (h1 before h01, but eth01a before eth1b); strings equal
// even that way compare byte by byte, so the order is total.
func naturalCompare(a, b string) int {
	i, j, zeros := 0, 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if len(na) != len(nb) {
				return cmpInt(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			if zeros == 0 {
				zeros = cmpInt(ei-i, ej-j) // fewer leading zeros first
			}
			i, j = ei, ej
			continue
		}
		if ca != cb {
			return cmpInt(int(ca), int(cb))
		}
		i, j = i+1, j+1
	}
	if c := cmpInt(len(a)-i, len(b)-j); c != 0 {
		return c // a prefix first
	}
	if zeros != 0 {
		return zeros
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsEnd is the end of the run of digits starting at s[i].
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// portOrder returns the indices of s's interfaces in natural order of
// their names: the order the port view's [ ] and 1-9 keys follow, as the
// overview's rows do.
func portOrder(s engine.Snapshot) []int {
	order := make([]int, len(s.Interfaces))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return naturalCompare(s.Interfaces[a].Name, s.Interfaces[b].Name)
	})
	return order
}

// portPosition returns where interface i of s is in portOrder (0-based),
// without sorting: the interfaces whose names come before it.
func portPosition(s engine.Snapshot, i int) int {
	pos := 0
	for j := range s.Interfaces {
		if c := naturalCompare(s.Interfaces[j].Name, s.Interfaces[i].Name); c < 0 || (c == 0 && j < i) {
			pos++
		}
	}
	return pos
}

// firstPorts returns the indices of the first n interfaces of s in
// portOrder, without sorting them all (the port view's title lists the
// first nine).
func firstPorts(s engine.Snapshot, n int) []int {
	first := make([]int, 0, n+1)
	less := func(a, b int) bool {
		c := naturalCompare(s.Interfaces[a].Name, s.Interfaces[b].Name)
		return c < 0 || (c == 0 && a < b)
	}
	for i := range s.Interfaces {
		if len(first) == n && !less(i, first[n-1]) {
			continue
		}
		at := len(first)
		for at > 0 && less(i, first[at-1]) {
			at--
		}
		first = slices.Insert(first, at, i)
		if len(first) > n {
			first = first[:n]
		}
	}
	return first
}
