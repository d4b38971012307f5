// SPDX-License-Identifier: Apache-2.0

// Package replay plays a capture file (pcap or pcapng, pcap.Reader)
// as a run's source of frames and as its clock: dcbtop -r FILE, on the
// screen or headless, and dcbtop check -r. The run (capture/session)
// drives it and owns the engine; a replay decides nothing about DCBX.
//
// A Source sends the file's frames as the engine's events, each due its
// recorded gap to the latest timestamp so far divided by the speed (1
// recorded speed, 0 as fast as possible: Run), or hands them straight to
// the caller with no pacing at all (Direct, a headless replay as fast as
// possible). Its clock (Now) is the capture time reached: it advances at
// the speed between frames but never reaches the next frame's time, so
// that the run's ticks expire information when it would have expired
// live, and never before a frame that refreshes it. At the end of the
// file it stands at the last frame.
//
// Frames of a capture that records no direction (classic pcap) are told
// apart by the ends of their link (LocalEnds): this host's end sent them,
// the peer's were received.
//
// On the screen the Source is also a player (SetPlayer, Player): pause
// and resume (the clock stands still), step the speed (×0.25 … ×64, then
// as fast as possible) and seek. A seek has the run start its engine
// afresh and re-runs the file from its start up to the target capture
// time, unpaced, then plays on paced: what the screen shows after a seek
// is exactly what a straight replay shows at that capture time. The
// progress (Progress: position, duration, frames, speed, paused, done)
// goes to a Poster as it changes.
package replay
