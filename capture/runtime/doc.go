// Package runtime is dcbtop's live run: the one goroutine that owns the
// engine (Runtime.Loop) and everything that feeds it or acts on what it
// decides. Capture sockets, link events, the DCB netlink poller and the
// screen's and control socket's commands arrive as events; indications go
// out as NDJSON, metrics and snapshots for the screen (Feed); dcbtop's
// agents transmit what the engine resolves. Start opens it all from a
// Config, Close releases it. The screen's Backend, the headless Replay and
// the screen's Replayer live here too, so that live, replay and demo runs
// share one way of applying events and publishing snapshots.
//
// The run's time comes from a capture.Clock (the demo's may run faster);
// the engine itself has none.
//
// Size: about 2,100 lines because the loop, the agents' life cycle, the
// control socket's answers and the backend all work on the loop's state
// (liveRun) on its goroutine; splitting them would expose that state.
package runtime
