// SPDX-License-Identifier: Apache-2.0

package ui

import "charm.land/bubbles/v2/key"

// A KeyMap binds the UI's actions to keys: DefaultKeyMap.
type KeyMap struct {
	// General.
	Quit      key.Binding // quit (not while typing in a field)
	Interrupt key.Binding // quit, always
	Help      key.Binding // toggle the full help overlay
	Pause     key.Binding // pause rendering; capture continues

	// Panes and interfaces.
	NextPane key.Binding
	PrevPane key.Binding
	Lossless key.Binding // the Lossless pane (counters), in the log's place
	Overview key.Binding // every interface at a glance, and back
	Sort     key.Binding // the overview's next sort order
	Messages key.Binding // the status message history
	Order    key.Binding // the log newest first, or last
	NextHit  key.Binding // with a filter: the next matching entry
	PrevHit  key.Binding // with a filter: the previous matching entry

	// Replay (with a player).
	PlayPause key.Binding // pause/resume the replay
	SeekBack  key.Binding // 10 s back in capture time
	SeekFwd   key.Binding // 10 s forward
	Faster    key.Binding // replay speed up
	Slower    key.Binding // replay speed down
	Restart   key.Binding // replay from the start
	NextIface key.Binding
	PrevIface key.Binding
	JumpIface key.Binding // 1-9: the n-th interface

	// Scrolling the focused pane (in the log: moving the cursor).
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding

	// Log.
	Select key.Binding // show the selected indication in full
	Filter key.Binding // filter the log
	Back   key.Binding // close an overlay, clear the filter
	Hex    key.Binding // the peers' drill-down: each LLDPDU as a hex dump, and back
	// Frames lists every LLDPDU of the run (the frames view), and closes
	// it; FramesChanged, in it, lists only those that changed, or all.
	Frames        key.Binding
	FramesChanged key.Binding

	// Actions.
	Willing key.Binding // toggle local Willing (preview, then confirm)
	Edit    key.Binding // edit local parameters
	Undo    key.Binding // undo the last apply
	Export  key.Binding // export the snapshot on screen
	Agent   key.Binding // start/stop dcbtop's host agent
	Fix     key.Binding // preview and write a host QoS fix of a diagnostic
	Tune    key.Binding // set the host knobs: rate limits, storm timeout, DCBX mode, rewrite
	Yes     key.Binding // confirm
	No      key.Binding // cancel

	// Edit form.
	FormNext   key.Binding // next field
	FormPrev   key.Binding // previous field
	FormLeft   key.Binding
	FormRight  key.Binding
	FormToggle key.Binding // toggle PFC, cycle TSA or selector
	FormInc    key.Binding
	FormDec    key.Binding
	FormAdd    key.Binding // add an APP entry
	FormDelete key.Binding // delete the focused APP entry
	FormApply  key.Binding // review and apply
}

// DefaultKeyMap returns the htop/btop/k9s-style bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Quit:      b("q/F10", "quit", "q", "f10"),
		Interrupt: b("ctrl+c", "quit, no y/n", "ctrl+c"),
		Help:      b("?/F1", "help", "?", "f1"),
		Pause:     b("p/space", "pause", "p", "space"),

		NextPane: b("tab", "pane", "tab"),
		PrevPane: b("shift+tab", "prev pane", "shift+tab"),
		Lossless: b("l", "lossless", "l"),
		Overview: b("o", "overview", "o"),
		Sort:     b(">", "sort", ">"),
		Messages: b("m", "messages", "m"),
		Order:    b("O", "newest first/last", "O"),
		NextHit:  b("n", "next match (filter)", "n"),
		PrevHit:  b("N", "prev match (filter)", "N"),

		PlayPause: b("space", "play/pause replay", "space"),
		SeekBack:  b("←", "10s back", "left"),
		SeekFwd:   b("→", "10s on", "right"),
		Faster:    b("+/=", "faster", "+", "="),
		Slower:    b("-", "slower", "-"),
		Restart:   b("r", "restart", "r"),
		NextIface: b("]", "next iface", "]"),
		PrevIface: b("[", "prev iface", "["),
		JumpIface: b("1-9", "iface n", "1", "2", "3", "4", "5", "6", "7", "8", "9"),

		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		PageUp:   b("pgup/^B", "page up", "pgup", "ctrl+b"),
		PageDown: b("pgdn/^F", "page down", "pgdown", "ctrl+f"),
		Home:     b("home/g", "top / oldest", "home", "g"),
		End:      b("end/G", "bottom / follow", "end", "G"),

		Select: b("enter", "details", "enter"),
		Filter: b("/", "filter", "/"),
		Back:   b("esc", "close / clear", "esc"),
		Hex:    b("x", "LLDPDU in hex", "x"),

		Frames:        b("F", "every LLDPDU", "F"),
		FramesChanged: b("c", "only changes (frames)", "c"),

		Willing: b("w", "willing", "w"),
		Edit:    b("e", "edit", "e"),
		Undo:    b("u", "undo", "u"),
		Export:  b("s", "export", "s"),
		Agent:   b("a", "agent", "a"),
		Fix:     b("f", "fix", "f"),
		Tune:    b("t", "tune host QoS", "t"),
		Yes:     b("y", "yes (y/n)", "y", "Y"),
		No:      b("n/esc", "no (y/n)", "n", "N", "esc"),

		FormNext:   b("tab", "next field", "tab"),
		FormPrev:   b("shift+tab", "prev field", "shift+tab"),
		FormLeft:   b("←", "left", "left"),
		FormRight:  b("→", "right", "right"),
		FormToggle: b("space", "toggle/cycle", "space"),
		FormInc:    b("+", "increase", "+", "="),
		FormDec:    b("-", "decrease", "-"),
		FormAdd:    b("ins", "add APP", "insert", "ctrl+n"),
		FormDelete: b("del", "delete APP", "delete", "ctrl+d"),
		FormApply:  b("enter", "review & apply", "enter"),
	}
}

// FullHelp returns the bindings of the help overlay, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Quit, k.Interrupt, k.Help, k.Pause, k.NextPane, k.PrevPane, k.Lossless, k.Overview, k.Sort, k.Messages, k.PrevIface, k.NextIface, k.JumpIface},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End, k.Select, k.Hex, k.Frames, k.Filter, k.NextHit, k.PrevHit, k.Order, k.Back},
		// Actions, then the replay's player.
		{k.Willing, k.Edit, k.Undo, k.Export, k.Agent, k.Fix, k.Tune, k.Yes, k.No, k.PlayPause, k.SeekBack, k.SeekFwd, k.Faster, k.Slower, k.Restart},
	}
}
