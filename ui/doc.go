// SPDX-License-Identifier: Apache-2.0

// Package ui is dcbtop's interactive screen, `top` for DCBX: a Bubble Tea
// v2 program that shows, per interface, the local, remote and operational
// DCB parameters side by side, who won and why, the NDIS-style change log,
// TTL countdowns, peers, diagnostics and the lossless-Ethernet counters
// (per-priority PFC pauses with their last minute, the NDK and RoCE
// congestion counters of each RDMA port), and lets the operator toggle
// Willing, edit and apply local parameters, undo (one level, previewed
// like the others), export a snapshot and start or stop dcbtop's host
// agent. Every state change asks first, quitting too while dcbtop's
// agent runs (its shutdown LLDPDU withdraws the host's parameters;
// ctrl+c does not ask). The footer shows only the keys that work in the
// current mode: a replay's player keys, live the actions the snapshot
// allows (engine.Interface.Caps).
//
// # Data flow
//
// NewModel takes the channel the engine's runner publishes Snapshots on. A
// tea.Cmd waits on it; Update swaps the snapshot on screen and waits
// again. View calls render, a pure function of the snapshot, the view
// state (selection, scroll, filter, overlays, the clock's reading), the
// Styles and the KeyMap, so every screen is a golden test away.
//
// Actions go through a Backend (implemented by capture/operator), one call
// an operator's action: what may be done and what a change would put in
// force come from the snapshot (engine.Interface.Caps,
// engine.PreviewOperational), so w and e open their confirmation and form
// at once. Each call runs inside a tea.Cmd and its result comes back to
// Update as a message.
// Update never performs I/O. The wiring may also send CaptureStatus
// (replay position, speed, end; the demo's step) and ErrorMsg to the
// program. The lossless counters come in the snapshot
// (engine.Interface.Counters, nil in replays): the PFC pane's pause column
// and the Lossless pane, which takes the log's place while focused (l or
// Tab), read them there, and show "—" or "n/a" for what was not sampled.
//
// # Time
//
// TTL countdowns are the peers' expires_in_ms less the time elapsed since
// the snapshot was taken: live, the clock minus Snapshot.TakenAt; in a
// replay, the wall time since the snapshot arrived times the replay speed.
// The clock is an Option (WithClock), so tests are deterministic. Live,
// each snapshot redraws the countdowns (the runtime publishes one a
// second while the clock alone changes what it shows); the screen's own
// 1 Hz tick runs only for what the snapshots do not bring (a status
// message, the demo, a playing replay, a lost peer's "ago"). Otherwise the
// screen changes only with a snapshot or a key.
//
// # Colour and untrusted text
//
// Styles and KeyMap are values (DefaultStyles, NoColorStyles,
// DefaultKeyMap), never package variables. Colour never carries meaning
// alone: mismatches are marked "≠" ("!=" in ASCII), severities carry a
// word and a symbol, states such as EXPIRED or MULTI-PEER are spelled
// out, so the NO_COLOR screen (WithColor(ColorNever)) says everything the
// coloured one does.
//
// Strings from the wire (system names and descriptions, chassis and port
// IDs), from capture files (interface names), from the kernel (RDMA device
// names, counter sources and errors) and from the backend have
// C0, DEL and C1 controls, ESC included, and bidirectional-override
// characters replaced with U+FFFD before they are rendered, and are cut
// to fit by display width.
//
// # Screen sizes
//
// From 80x24 the panes are laid out compact, medium (110x34) or wide
// (150x40). Below that the screen degrades as htop's does instead of
// refusing: under 24 lines the body is one slot showing the focused pane,
// with the compact PFC table (and ETS, side by side from 138 columns)
// above it while they leave the slot six lines; under 80 columns ETS
// shows fewer sides, PFC narrower cells, and the header's and footer's
// least useful parts give way whole. The header, the footer and the log
// stay as long as anything does; only under 40x8 does the screen say it
// is too small, in as many words as fit, wrapped at spaces. The mouse's
// regions follow the same plan.
//
// # Character set
//
// Under a locale whose character set is not UTF-8 (LANG=C; ASCIILocale
// decides from LC_ALL, LC_CTYPE and LANG, as the C library does) the
// screen is ASCII (WithASCII): the Symbols the screen draws marks, rules,
// gauges and sparklines with are ASCIISymbols ("*" for ●, "!=" for ≠,
// "_.:-=+*#" for ▁…█), the overlay boxes have an ASCII border, and the
// rest (text from the wire included) is folded to ASCII column for
// column. The symbol set is part of the Styles value (Styles.Sym), chosen
// once.
//
// One Bubble Tea model whose panes, overlays, form and keys all render
// from the same view state; render stays a pure function of it. Every
// file is one part of the screen (docs/architecture.md, "Packages").
package ui
