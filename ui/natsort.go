package ui

import "strings"

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
