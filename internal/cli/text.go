package cli

import (
	"fmt"
	"strings"

	"dcbtop/engine"
)

// SummarizeParams renders a parameter set compactly, for example
// "ETS bw 40/50/10/0/0/0/0/0 prio→tc 00012000 | PFC 3,4 | APP 3": the
// read-back the screen shows after an apply.
func SummarizeParams(p *engine.Params) string {
	var parts []string
	if p.ETS != nil {
		parts = append(parts, "ETS bw "+joinU8(p.ETS.TCBandwidth[:], "/")+" prio→tc "+joinU8(p.ETS.PrioTC[:], ""))
	}
	if p.ETSReco != nil {
		parts = append(parts, "RECO bw "+joinU8(p.ETSReco.TCBandwidth[:], "/"))
	}
	if p.PFC != nil {
		en := joinU8(p.PFC.Enabled.List(), ",")
		if en == "" {
			en = "none"
		}
		w := ""
		if p.PFC.Willing {
			w = " (willing)"
		}
		parts = append(parts, "PFC "+en+w)
	}
	if p.App != nil {
		parts = append(parts, fmt.Sprintf("APP %d", len(p.App)))
	}
	return strings.Join(parts, " | ")
}

func joinU8(v []uint8, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// Sanitize replaces control characters (C0, DEL, C1) and invalid UTF-8 in
// an untrusted string with U+FFFD so it cannot drive the terminal.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffd {
			return '\ufffd'
		}
		return r
	}, strings.ToValidUTF8(s, "\ufffd"))
}
