// SPDX-License-Identifier: Apache-2.0

// Package operator carries out what the screen's operator asks of a run:
// the Backend the screen (ui.Backend) calls for previews, applies and
// undo, dcbtop's agent's start and stop, and snapshot exports.
//
// Live, writes go to dcbtop's own agent through the run's engine
// goroutine (Run, implemented by capture/session's Runtime: the path the
// agent's control socket takes) or to the kernel through DCB netlink
// (kernel.Apply, as dcbtop apply does); the host layer (engine/host)
// decides which, and what is allowed (engine.Capabilities). A replay has
// nothing to write to: its backend only previews and exports. Exports
// are capture/snapfile's: whole or not at all, never replacing a file.
//
// Every method of a Backend is safe for concurrent use and may block:
// the screen calls them inside tea.Cmds.
package operator
