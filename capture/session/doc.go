// Package session is dcbtop's live run: the one goroutine that owns the
// host layer (engine/host: the engine and dcbtop's agents) and everything
// that feeds it or carries out what it decides. Capture sockets, link
// events, the DCB netlink poller and the screen's and control socket's
// commands arrive as events and go to the host layer in order; its
// results are carried out as they come: indications out as NDJSON,
// metrics and snapshots for the screen (Feed), LLDPDUs written to the
// sockets, control sockets released, kernel writes done and reported.
// The package makes no protocol decision: it holds file descriptors,
// locks, goroutines and one timer, armed for the host's next wake.
//
// Start opens it all from a Config, Close releases it. Live captures, the
// demo's links and replays of capture files (Config.Replay) all run
// through the same loop: a replay is a source of frames and the run's
// clock. The screen's Backend lives here too. (Named session, not
// runtime, so as not to shadow the standard library's package in the
// files that use both.)
//
// The run's time comes from a capture.Clock (the demo's may run faster)
// or, in a replay, from the capture's timestamps; the engine and the host
// layer have none.
package session
