// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/qos"
)

func msDur(ms int64) time.Duration  { return time.Duration(ms) * time.Millisecond }
func secDur(s uint16) time.Duration { return time.Duration(s) * time.Second }

// ttlLeft is how long until the peer's information expires, at the
// screen's clock.
func (r *renderer) ttlLeft(p *engine.Peer) time.Duration {
	return ceilSeconds(msDur(p.ExpiresInMs) - r.vs.age)
}

// peerLevel grades a peer at the screen's clock by the engine's rule
// (engine.Peer.FreshnessAt: late after two missed LLDPDUs, stale after
// three, counted by the peer's own transmit interval): 0 fresh, 1 late, 2
// stale or expiring.
func (r *renderer) peerLevel(p *engine.Peer) int {
	if r.ttlLeft(p) <= 0 {
		return 2
	}
	return int(p.FreshnessAt(r.now))
}

// peerStyle colours a peer's countdown by peerLevel.
func (r *renderer) peerStyle(p *engine.Peer) Look {
	switch r.peerLevel(p) {
	case 2:
		return r.st.Crit
	case 1:
		return r.st.Warn
	}
	return r.st.OK
}

// remotePeer returns the peer the header shows (engine.Interface.ShownPeer).
func (r *renderer) remotePeer() *engine.Peer { return r.in.ShownPeer() }

func dialectWords(d lldp.Dialect) string {
	switch d {
	case lldp.DialectIEEE:
		return "IEEE 802.1Qaz"
	case lldp.DialectCEE:
		return "CEE"
	case lldp.DialectCIN:
		return "CIN (pre-CEE, not decoded)"
	}
	return "none"
}

// header is the status lines at the top: two, and the demo's step line
// (headerHeight). On a narrow screen the least useful parts give way
// whole (fitParts) before anything is cut.
func (r *renderer) header() string {
	st := r.st
	seg := func(label, value string) string { return st.Label.Render(label) + " " + value }
	brand := part{text: st.Brand.Render(" dcbtop "), drop: 3}
	if r.in == nil {
		right := r.captureState()
		l1 := r.fitParts([]part{brand, {text: st.Dim.Render(r.noInterface())}}, "  ", r.w-width(right)-1)
		return lr(l1, right, r.w) + "\n" + strings.Repeat(" ", r.w) + r.demoLine()
	}
	in := r.in
	l1 := []part{brand}
	ifs := st.Value.Render(clean(in.Name, ifNameMax))
	var others string
	if n := len(r.snap.Interfaces); n > 1 {
		// Positions in natural order, as the overview lists the ports
		// and [ ] and 1-9 step through them.
		ifs += fmt.Sprintf(" (%d/%d)", portPosition(r.snap, r.idx)+1, n)
		if r.mode != modeCompact {
			var names []string
			for pos, i := range firstPorts(r.snap, 9) {
				if i != r.idx {
					names = append(names, fmt.Sprintf("%d:%s", pos+1, clean(r.snap.Interfaces[i].Name, ifNameMax)))
				}
			}
			others = st.Dim.Render(strings.Join(names, " "))
		}
	}
	l1 = append(l1, part{text: ifs})
	if others != "" {
		l1 = append(l1, part{text: others, drop: 5, sep: " "})
	}
	switch in.OperState {
	case "up":
		l1 = append(l1, part{text: seg("link", st.OK.Render("up"))})
	case "down":
		l1 = append(l1, part{text: seg("link", st.Crit.Render("DOWN"))})
	case "removed":
		l1 = append(l1, part{text: seg("link", st.Crit.Render("GONE (interface deleted)"))})
	default:
		l1 = append(l1, part{text: seg("link", st.Dim.Render(clean(in.OperState, 10)))})
	}
	will := st.Dim.Render(r.sym.Absent)
	if in.Willing != nil {
		will = st.Value.Render(map[bool]string{true: "ON", false: "OFF"}[*in.Willing])
	}
	l1 = append(l1, part{text: seg("willing", will), drop: 2})
	local := localSourceWords(in.LocalSource)
	if in.LocalKept != "" {
		// The agent started from the parameters kept for the port
		// (dcbtop apply --forget drops them; the JSON says where).
		local += " " + r.sym.Sep + " kept from an earlier apply"
	}
	if a := in.AgentDCBX; a != nil && a.Control != nil {
		// dcbtop's agent fell back to CEE (a CEE-only peer): its
		// handshake, and whether a feature waits for the peer's
		// acknowledgement (the resolution says which).
		local += " " + r.sym.Sep + " " + agentCEEWords(a.Control)
	}
	if in.DCBXMode != nil {
		local += " " + r.sym.Sep + " " + clean(*in.DCBXMode, 30)
	}
	l1 = append(l1, part{text: seg("local", st.Value.Render(local)), drop: 4})
	right := r.captureState()
	if n := in.NIC; n != nil && n.Brief != "" {
		// Why dcbtop's agent programs nothing here, once for the panes'
		// "not in NIC": whole, or not at all.
		nic := part{text: st.Dim.Render(r.sym.Sep + " " + clean(n.Brief, 60)), drop: 6, sep: " "}
		if width(r.fitParts(append(slices.Clone(l1), nic), "  ", r.w)) <= r.w-width(right)-1 {
			l1 = append(l1, nic) // whole, or not at all
		}
	}
	line1 := lr(r.fitParts(l1, "  ", r.w-width(right)-1), right, r.w)
	ttl := r.ttlState()
	return line1 + "\n" + lr(r.fitPartsIf(true, r.peerSummary(), st.Dim.Render(" "+r.sym.Sep+" "), r.w-width(ttl)-1), ttl, r.w) + r.demoLine()
}

// agentCEEWords says where the CEE handshake of dcbtop's agent stands:
// "CEE seq 2 ack 5", and " (peer acked 1: waiting)" while a feature's
// sequence number is unacknowledged.
func agentCEEWords(c *engine.AgentCEEControl) string {
	w := fmt.Sprintf("CEE seq %d ack %d", c.Seq, c.Ack)
	if c.PGWait != "" || c.PFCWait != "" || c.AppWait != "" {
		w += fmt.Sprintf(" (peer acked %d: waiting)", c.PeerAck)
	}
	return w
}

// A part is a piece of a header line. On a narrow screen, the parts with
// the highest drop give way first, whole (drop 0: never); sep, when set,
// joins the part to the one before instead of the line's separator.
type part struct {
	text string
	drop int
	sep  string
}

// fitParts joins parts with sep. On a narrow screen (under narrowWidth
// columns) it first leaves out, highest drop first (the last of equals),
// the parts that keep the line from fitting in w cells; what still does
// not fit is cut by the caller, as on a wide screen.
func (r *renderer) fitParts(parts []part, sep string, w int) string {
	return r.fitPartsIf(r.narrow(), parts, sep, w)
}

// fitPartsIf is fitParts, parts left out whole when drop (at every width:
// the peer line's IDs, which a cut would leave as "chassis …").
func (r *renderer) fitPartsIf(drop bool, parts []part, sep string, w int) string {
	join := func(ps []part) string {
		var b strings.Builder
		for i, p := range ps {
			if i > 0 {
				b.WriteString(cmp.Or(p.sep, sep))
			}
			b.WriteString(p.text)
		}
		return b.String()
	}
	ps := slices.Clone(parts)
	for drop {
		if width(join(ps)) <= w {
			break
		}
		worst := -1
		for i, p := range ps {
			if p.drop > 0 && (worst < 0 || p.drop >= ps[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		ps = slices.Delete(ps, worst, worst+1)
	}
	return join(ps)
}

// headerHeight is the header's number of lines: two, and the demo's step
// line.
func (r *renderer) headerHeight() int {
	if r.vs.capture.Demo != nil {
		return 3
	}
	return 2
}

// demoLine is the demo's step line ("\n" first), "" when not a demo:
// "step 4/12 · caption · next in 7s", then the capture's Source when it
// says how the demo runs ("in-memory link (not root)"); the caption is
// what gets cut when the line is too long.
func (r *renderer) demoLine() string {
	d := r.vs.capture.Demo
	if d == nil {
		return ""
	}
	st := r.st
	var parts []string
	if d.Step <= 0 {
		parts = append(parts, st.Label.Render("starting"))
	} else {
		parts = append(parts, st.Label.Render(fmt.Sprintf("step %d/%d", d.Step, d.Steps)))
	}
	if c := Sanitize(d.Caption); c != "" {
		parts = append(parts, st.Value.Render(c))
	}
	next := ""
	if !d.NextAt.IsZero() && d.NextAt.After(r.now) && !r.vs.capture.Done && !r.vs.closed {
		// Rounded up: "next in 1s" until the step plays, never "0s".
		left := d.NextAt.Sub(r.now) + time.Second - 1
		next = st.Dim.Render(" · next in " + fmtSeconds(left))
	}
	if src := r.vs.capture.Source; src != "" {
		next += st.Dim.Render(" · " + clean(src, 28))
	}
	line := strings.Join(parts, st.Dim.Render(" · "))
	return "\n" + pad(trunc(line, r.w-width(next))+next, r.w)
}

// peerSummary identifies the peer on the second header line: its parts,
// for fitParts.
func (r *renderer) peerSummary() []part {
	st, in := r.st, r.in
	p := r.remotePeer()
	if p == nil {
		return r.lostPeerSummary()
	}
	name := deref(p.SystemName)
	if name == "" {
		name = "(no name)"
	}
	d := p.DCBX
	if in.RemoteValid {
		d = in.Dialect
	}
	dw := dialectWords(d)
	if r.stacked() && d == lldp.DialectIEEE {
		dw = "IEEE"
	}
	parts := []part{
		{text: st.Label.Render("peer") + " " + st.Value.Render(clean(name, 24))},
		{text: st.Label.Render("port") + " " + clean(p.PortID, 24), drop: 3},
		{text: st.Label.Render("DCBX") + " " + st.Value.Render(dw), drop: 2},
	}
	if n := len(in.Peers); n > 1 {
		parts = append(parts, part{text: st.Warn.Render("+" + plural(n-1, "more peer")), drop: 1})
	}
	if e := in.CaptureEnds; e != nil {
		// A capture without direction read as both ends of one link:
		// say which end was taken as this host, and by which rule, or
		// that nothing says (ambiguous).
		switch {
		case e.Ambiguous:
			parts = append(parts, part{text: st.Warn.Render("ends ambiguous: --local-mac to choose"), drop: 2})
		case e.LocalMAC != nil:
			parts = append(parts, part{text: st.Dim.Render("this host " + e.LocalMAC.String() + ": " + clean(endRuleWords(e.Rule), 40)), drop: 2})
		}
	}
	if p.ChassisID == p.PortID {
		// A peer whose port ID is its chassis ID (both its MAC): once.
		parts[1].text = st.Label.Render("chassis = port") + " " + clean(p.PortID, 24)
		return parts
	}
	return append(parts, part{text: st.Label.Render("chassis") + " " + clean(p.ChassisID, 28), drop: 4})
}

// endRuleWords is the short form of an EndsAssumed rule for the header.
func endRuleWords(rule string) string {
	switch rule {
	case engine.EndRuleGiven:
		return "--local-mac"
	case engine.EndRuleCapabilities:
		return "System Capabilities"
	case engine.EndRuleHostMAC:
		return "its own MAC"
	case engine.EndRuleWilling:
		return "the willing end"
	}
	return rule
}

// lostPeerSummary is the second header line without a live peer: the last
// peer the interface lost, when and why it went, or that none was seen
// ("waiting" only while frames may still come, not at the end of a
// capture).
func (r *renderer) lostPeerSummary() []part {
	st := r.st
	ended := r.vs.capture.Done || r.vs.closed
	lp := r.in.LastPeer
	if lp == nil {
		if ended {
			return []part{{text: st.Label.Render("peer") + " " + st.Dim.Render("none seen")}}
		}
		return []part{{text: st.Label.Render("peer") + " " + st.Dim.Render("none live (waiting for an LLDPDU)")}}
	}
	name := deref(lp.SystemName)
	if name == "" {
		name = "(no name)"
	}
	why := map[engine.Reason]string{engine.ReasonTTLExpired: "expired", engine.ReasonShutdown: "shut down", engine.ReasonLinkDown: "link down"}[lp.Reason]
	if why == "" {
		why = clean(string(lp.Reason), 16)
	}
	gone := st.Warn.Render(why + " " + fmtSeconds(r.now.Sub(lp.GoneAt).Truncate(time.Second)) + " ago")
	return []part{
		{text: st.Label.Render("last peer") + " " + st.Value.Render(clean(name, 24))},
		{text: clean(lp.PortID, 24), drop: 2},
		{text: gone, drop: 1},
	}
}

// holdDown says how long the multi-peer hold-down lasts, in words that
// stay true: while two or more DCBX peers still speak, each of their
// LLDPDUs pushes its end out (NDIS: until every DCBX LLDPDU received
// while two spoke has expired), so the time left is a lower bound ("at
// least 18s, 2 peers speaking"), which a second later is still true
// even when it grew; once one or none speaks, it counts down to the
// expiry it waits for ("18s").
func (r *renderer) holdDown(mp *engine.MultiPeer) string {
	left := fmtSeconds(ceilSeconds(msDur(mp.HoldDownMs) - r.vs.age))
	speaking := 0
	for i := range r.in.Peers {
		if r.in.Peers[i].DCBX != lldp.DialectNone {
			speaking++
		}
	}
	if speaking >= 2 {
		return fmt.Sprintf("at least %s (%d DCBX peers speaking)", left, speaking)
	}
	return left
}

// ttlState is the TTL countdown, or the reason the remote parameters are
// invalid, in words.
func (r *renderer) ttlState() string {
	st, in := r.st, r.in
	if mp := in.MultiPeer; mp != nil {
		return st.Crit.Render(fmt.Sprintf("%s MULTI-PEER · hold-down %s", r.sym.Multi, r.holdDown(mp)))
	}
	if !in.RemoteValid && in.RemoteInvalidReason != nil {
		switch *in.RemoteInvalidReason {
		case engine.ReasonTTLExpired:
			return st.Crit.Render(r.sym.Error + " EXPIRED · remote parameters withdrawn")
		case engine.ReasonShutdown:
			return st.Crit.Render(r.sym.Error + " SHUTDOWN · peer sent TTL 0")
		case engine.ReasonLinkDown:
			return st.Crit.Render(r.sym.Error + " LINK DOWN · remote parameters discarded")
		}
		return st.Crit.Render(r.sym.Error + " INVALID · " + clean(string(*in.RemoteInvalidReason), 20))
	}
	p := r.remotePeer()
	if p == nil {
		return st.Label.Render("TTL") + " " + st.Dim.Render(r.sym.Absent)
	}
	ttl := secDur(p.TTL)
	left := r.ttlLeft(p)
	gw := 10
	if r.narrow() {
		gw = 5
	}
	fill := 0
	if ttl > 0 {
		fill = int((left*time.Duration(gw) + ttl - 1) / ttl)
	}
	fill = clamp(fill, 0, gw)
	bar := st.GaugeFull.Render(strings.Repeat(r.sym.GaugeFull, fill)) + st.GaugeEmpty.Render(strings.Repeat(r.sym.GaugeEmpty, gw-fill))
	text := fmtSeconds(left) + "/" + fmtSeconds(ttl) + [...]string{"", " LATE", " STALE"}[r.peerLevel(p)]
	if left <= 0 {
		text = "0s EXPIRING"
	}
	text = r.peerStyle(p).Render(text)
	note := ""
	if !in.RemoteValid {
		note = st.Dim.Render(" (no DCBX)")
	}
	return st.Label.Render("TTL") + " [" + bar + "] " + text + note
}

// captureState says where snapshots come from and whether the screen is
// paused.
func (r *renderer) captureState() string {
	st, c := r.st, r.vs.capture
	var s string
	switch {
	case c.Mode == CaptureReplay:
		s = "REPLAY"
		if c.Source != "" {
			s += " " + clean(c.Source, 16)
		}
		if c.Duration > 0 {
			s += fmt.Sprintf(" %s/%s", clock(c.Position), clock(c.Duration))
		} else if c.Frames > 0 {
			s += fmt.Sprintf(" %d/%d frames", c.Frame, c.Frames)
		}
		switch {
		case c.Speed <= 0:
			s += " max speed"
		case c.Speed != 1:
			s += fmt.Sprintf(" %s%g", r.sym.Times, c.Speed)
		}
		switch {
		case c.Done || r.vs.closed:
			s = st.Dim.Render(r.sym.Stop + " " + s + " END · as at the last frame")
		case c.Paused:
			s = st.Warn.Render("|| " + s + " PAUSED")
		default:
			s = st.OK.Render(r.sym.Play + " " + s)
		}
	case c.Demo != nil && (c.Done || r.vs.closed):
		s = st.Dim.Render(r.sym.Stop + " DEMO ENDED")
	case c.Demo != nil:
		s = r.sym.Demo + " DEMO"
		if sp := c.Demo.Speed; sp != 0 && sp != 1 {
			s += fmt.Sprintf(" %s%g", r.sym.Times, sp)
		}
		// Never the source: the switches on screen are simulated, not
		// this host's.
		s = st.OK.Render(s)
	case c.Done || r.vs.closed:
		s = st.Dim.Render(r.sym.Stop + " CAPTURE ENDED")
	default:
		s = st.OK.Render(r.sym.Live + " LIVE")
		if c.Source != "" {
			s += " " + st.Dim.Render(clean(c.Source, 20))
		}
	}
	return s
}

// clock renders a replay position as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// statusText is the line above the footer: the filter being typed, an
// action in flight, or the last message; "" when there is none.
func (r *renderer) statusText() string {
	st := r.st
	switch {
	case r.vs.filtering:
		return st.Key.Render("/") + Sanitize(r.vs.filter) + r.sym.GaugeFull + st.Dim.Render("   filter the log: text, flag:X, reason:X, status:X, if:X · enter keep · esc clear")
	case r.vs.ovFiltering:
		return st.Key.Render("/") + Sanitize(r.vs.ovFilter) + r.sym.GaugeFull + st.Dim.Render("   filter the ports: interface or peer name · enter keep · esc clear")
	}
	var parts []string
	if r.vs.paused {
		parts = append(parts, st.Warn.Render(fmt.Sprintf("|| PAUSED: screen frozen, capture continues · %s since · %s resumes",
			plural(r.vs.newCount, "new indication"), shortKey(r.keys.Pause))))
	}
	switch {
	case r.vs.busy != "":
		// The busy text is the model's own, ending with "…".
		busy := strings.ReplaceAll(Sanitize(r.vs.busy), "…", r.sym.Ellipsis)
		parts = append(parts, st.Dim.Render(r.sym.Ellipsis+" "+busy))
	case r.vs.status.text != "":
		t := Sanitize(r.vs.status.text)
		if hint := " (" + r.keys.Messages.Help().Key + ": in full)"; width(t)+4 > r.w {
			t = trunc(t, r.w-4-width(hint)) + hint
		}
		switch r.vs.status.level {
		case levelOK:
			parts = append(parts, st.OK.Render(r.sym.OK)+" "+t)
		case levelErr:
			parts = append(parts, st.Crit.Render(r.sym.Error+" "+t))
		default:
			parts = append(parts, st.Info.Render(r.sym.Info)+" "+t)
		}
	}
	return strings.Join(parts, "  ")
}

// allows reports whether c allows act, and the backend's reason when not.
func allows(c Caps, act actionKind) (ok bool, why string) {
	switch {
	case act == actAgent:
		return c.CanAgent, c.AgentWhy()
	case act == actFix || act == actTune:
		// A host QoS fix goes to the kernel whoever owns DCBX: only a
		// replay refuses it here (the backend says the rest).
		return c.WriteNo.Code != engine.RefuseReplay, c.WriteWhy()
	case act == actUndo && c.CanWrite && c.UndoNo.Code != engine.RefuseNothing:
		return false, c.UndoWhy() // undo asks nothing when there is nothing to undo
	}
	return c.CanWrite, c.WriteWhy()
}

// blocked says why act is unavailable on the selected interface, from what
// the backend last said; "" when it is allowed (or the backend has not said
// yet).
func (vs *viewState) blocked(act actionKind) string {
	if !vs.hasBackend {
		return "viewer only (no backend)"
	}
	if !vs.capsKnown {
		return ""
	}
	if ok, why := allows(vs.caps, act); !ok {
		return cmp.Or(why, noReason)
	}
	return ""
}

// noReason stands for the reason a backend refusing an action did not give.
const noReason = "not allowed here"

// A footerItem is one key hint of the footer: the binding a click on it
// presses, its key and what it does.
type footerItem struct {
	b         key.Binding
	key, desc string
}

// shortKey is a binding's key as the footer shows it: its help key's first
// spelling ("q" of "q/F10", "+" of "+/="); the help overlay lists them all.
func shortKey(b key.Binding) string {
	k := b.Help().Key
	if i := strings.Index(k, "/"); i > 0 {
		return k[:i]
	}
	return k
}

// footerItems are the key hints the footer shows, in order: only what works
// in the current mode. In a replay, the player's keys (when the replay has
// a player) instead of the actions, which cannot write to a recording;
// live, each action only while the backend allows it (the reason on the
// right says why the others are not there).
func (r *renderer) footerItems() []footerItem {
	k := r.keys
	item := func(b key.Binding) footerItem { return footerItem{b: b, key: shortKey(b), desc: b.Help().Desc} }
	pair := func(a, b key.Binding, desc string) footerItem {
		return footerItem{b: key.NewBinding(key.WithKeys(append(a.Keys(), b.Keys()...)...)), key: shortKey(a) + "/" + shortKey(b), desc: desc}
	}
	out := []footerItem{item(k.Quit), item(k.Help)}
	switch {
	case r.vs.capture.Mode == CaptureReplay:
		if r.vs.hasPlayer {
			out = append(out, item(k.PlayPause), pair(k.SeekBack, k.SeekFwd, "seek"), pair(k.Faster, k.Slower, "speed"), item(k.Restart))
		}
	default:
		if r.vs.blocked(actApply) == "" {
			out = append(out, item(k.Willing), item(k.Edit))
		}
		if r.vs.undoable && r.vs.blocked(actUndo) == "" {
			out = append(out, item(k.Undo))
		}
		if r.in != nil && r.vs.blocked(actFix) == "" && qos.HasFix(r.in) {
			out = append(out, item(k.Fix)) // a diagnostic here has a fix dcbtop can write
		}
	}
	if r.vs.hasBackend {
		out = append(out, item(k.Export))
	}
	if r.vs.capture.Mode != CaptureReplay && r.vs.blocked(actAgent) == "" {
		out = append(out, item(k.Agent))
	}
	pause := item(k.Pause)
	if r.vs.capture.Mode == CaptureReplay {
		pause.desc = "freeze" // space pauses the replay, p the screen
	}
	return append(out, item(k.Filter), pause, item(k.NextPane), item(k.Lossless), item(k.Overview))
}

// footerRight is the footer's right-hand part: why the screen is
// read-only, if it is live and read-only (a replay says REPLAY in the
// header and its footer has the player's keys). On a narrow screen it gives
// way to the first two hints (quit, help).
func (r *renderer) footerRight() string {
	why := r.vs.blocked(actApply)
	if why == "" || r.vs.capture.Mode == CaptureReplay {
		return ""
	}
	right := r.st.Dim.Render("read-only: " + clean(why, 40))
	if r.narrow() {
		first := 0
		for _, it := range r.footerItems()[:2] {
			first += width(it.key+" "+it.desc) + 2
		}
		if first+width(right)+1 > r.w {
			return ""
		}
	}
	return right
}

// footer is the key hints line, with the read-only reason on the right.
func (r *renderer) footer() string {
	k, st := r.keys, r.st
	var hints []string
	for _, it := range r.footerItems() {
		hints = append(hints, st.Key.Render(it.key)+" "+st.KeyDesc.Render(it.desc))
	}
	hints = append(hints, st.Key.Render(shortKey(k.PrevIface)+" "+shortKey(k.NextIface))+" iface")
	right := r.footerRight()
	left := ""
	for _, h := range hints {
		next := left
		if next != "" {
			next += "  "
		}
		next += h
		if width(next)+width(right)+1 > r.w {
			break
		}
		left = next
	}
	return lr(left, right, r.w)
}
