// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"time"
)

// An Option configures a Model built by NewModel.
type Option func(*Model)

// A ColorMode chooses between colour and plain text (--color).
type ColorMode uint8

// Colour modes.
const (
	// ColorAuto uses colour unless NO_COLOR is set (to anything non-empty)
	// or TERM is "dumb". Bubble Tea further reduces colours to what the
	// terminal supports.
	ColorAuto ColorMode = iota
	// ColorAlways uses colour.
	ColorAlways
	// ColorNever renders plain text: NoColorStyles.
	ColorNever
)

// ParseColorMode parses a --color value: "auto", "always" or "never".
func ParseColorMode(s string) (ColorMode, error) {
	switch s {
	case "auto", "":
		return ColorAuto, nil
	case "always":
		return ColorAlways, nil
	case "never":
		return ColorNever, nil
	}
	return ColorAuto, fmt.Errorf("--color %q: want auto, always or never", s)
}

// String returns "auto", "always" or "never".
func (c ColorMode) String() string {
	switch c {
	case ColorAlways:
		return "always"
	case ColorNever:
		return "never"
	}
	return "auto"
}

// WithBackend sets the Backend that carries out actions. Without one the
// UI is a read-only viewer and says so when an action key is pressed.
func WithBackend(b Backend) Option { return func(m *Model) { m.backend = b } }

// WithClock sets the clock the TTL countdowns and "ago" times are computed
// with (default time.Now). Tests inject a fixed clock.
func WithClock(now func() time.Time) Option { return func(m *Model) { m.clock = now } }

// WithColor sets the colour mode (default ColorAuto).
func WithColor(mode ColorMode) Option { return func(m *Model) { m.color = mode } }

// WithASCII draws the screen in ASCII (true): ASCIISymbols, an ASCII
// border, and every other character folded to ASCII, for a terminal whose
// locale is not UTF-8 (dcbtop decides with ASCIILocale, or --ascii).
// The default, false, draws UnicodeSymbols.
func WithASCII(on bool) Option { return func(m *Model) { m.ascii = on } }

// WithLocation sets the time zone times are shown in (default time.Local).
func WithLocation(loc *time.Location) Option { return func(m *Model) { m.vs.loc = loc } }

// WithCapture sets the initial capture status (live or replay, source,
// speed); later changes arrive as CaptureStatus messages.
func WithCapture(c CaptureStatus) Option { return func(m *Model) { m.vs.capture = c } }

// WithInterface selects the interface shown first (default: the first in
// the snapshot).
func WithInterface(name string) Option { return func(m *Model) { m.vs.iface = name } }

// WithOverview starts in the overview (on) or the port view (off),
// instead of choosing by the number of interfaces in the first snapshot.
func WithOverview(on bool) Option {
	return func(m *Model) { m.vs.overview, m.vs.ovDecided = on, true }
}

// WithMouse turns the mouse on (the default: click to focus and select,
// wheel to scroll, click the footer's keys) or off, leaving it to the
// terminal (dcbtop --no-mouse).
func WithMouse(on bool) Option { return func(m *Model) { m.mouseOn = on } }

// WithPlayer gives a replay's controls: space pauses and resumes, ←/→
// seek 10 s, +/- change the speed, r restarts.
func WithPlayer(p Player) Option { return func(m *Model) { m.player = p } }

// seekStep is how far ←/→ move a replay, in capture time.
const seekStep = 10 * time.Second
