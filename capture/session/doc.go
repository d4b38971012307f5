// Package session is dcbtop's live run: the one goroutine that owns the
// engine (Runtime.Loop) and everything that feeds it or acts on what it
// decides. Capture sockets, link events, the DCB netlink poller and the
// screen's and control socket's commands arrive as events; indications go
// out as NDJSON, metrics and snapshots for the screen (Feed); dcbtop's
// agents transmit what the engine resolves. Start opens it all from a
// Config, Close releases it. Live captures, the demo's links and replays
// of capture files (Config.Replay) all run through the same loop: a
// replay is a source of frames and the run's clock. The screen's Backend
// lives here too. (Named session, not runtime, so as not to shadow the
// standard library's package in the files that use both.)
//
// The run's time comes from a capture.Clock (the demo's may run faster)
// or, in a replay, from the capture's timestamps; the engine itself has
// none.
//
// Size: about 2,100 lines because the loop, the agents' life cycle, the
// control socket's answers and the backend all work on the loop's state
// (liveRun) on its goroutine; splitting them would expose that state.
package session
