// SPDX-License-Identifier: Apache-2.0

// Package session is dcbtop's live run: the one goroutine that owns the
// host layer (engine/host: the engine and dcbtop's agents) and everything
// that feeds it or carries out what it decides. Capture sockets, link
// events, the DCB netlink poller, the counter samples and the screen's
// and control socket's requests arrive as events and go to the host
// layer in order; its results are carried out as they come: indications
// printed (capture/output), metrics and snapshots for the screen (Feed),
// LLDPDUs written to the sockets, control sockets released, kernel
// writes done and reported. The package makes no protocol decision: it
// holds file descriptors, locks, goroutines and one timer, armed for the
// host's next wake.
//
// Start opens it all from a Config (run.go), Loop runs the engine
// goroutine (loop.go), Close releases it. Its files, by concern: the
// captured interfaces (iface.go), the kernel's link changes (links.go),
// the requests of the screen and of dcbtop's agent's control socket
// (agentctl.go, control.go), the effects carried out (effects.go), the
// readers polled beside the capture, which capture/poll holds (pollers.go,
// what -w records of them: tape.go, otheragent.go); capture/feed publishes
// the snapshots to the screen.
//
// What a run uses but does not hold lives elsewhere: the readers of the
// host (capture/poll), the kernel writer (capture/kernel.Writer), the
// counter sources and their composer (capture/counters), a capture file as a source of
// frames and clock (capture/replay), the --metrics endpoint
// (capture/metricserver), the screen's Backend (capture/operator, over
// the Runtime's request calls), snapshot files (capture/snapfile) and the
// --events and --json printers (capture/output). Live captures, the
// demo's links and replays of capture files (Config.Replay) all run
// through the same loop: a replay is a source of frames and the run's
// clock. (Named session, not runtime, so as not to shadow the standard
// library's package in the files that use both.)
//
// The run's time comes from a capture.Clock (the demo's may run faster)
// or, in a replay, from the capture's timestamps; the engine and the host
// layer have none.
package session
