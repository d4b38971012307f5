// SPDX-License-Identifier: Apache-2.0

// Package control is the transport of dcbtop's agent control socket:
// while dcbtop runs with --agent it listens on a unix socket per agent
// interface, through which `dcbtop apply` (or any root process) reads and
// changes the agent's local parameters and Willing state. One JSON
// request, one JSON response per connection:
//
//	{"op":"get"}
//	  -> {"ok":true,"interface":"h0","pid":N,"willing":..,"local":PARAMS,"operational":PARAMS}
//	{"op":"show"}
//	  -> like get, with "snapshot": the interface's object of a snapshot as
//	     the agent sees it now (dcbtop show), and "at": when
//	     (read-only: whoever the socket lets in may ask)
//	{"op":"apply","params":PARTIAL_PARAMS or null,"willing":true|false|null}
//	  -> {"ok":true,"interface":"h0","pid":N,"previous":{"willing":..,"local":..},
//	      "willing":..,"local":..,"operational":..,"changed":["pfc","willing"],
//	      "kept":FILE or "kept_error":"one line"}
//	{"op":"undo"}
//	  -> like apply: the local parameters and Willing state before the last
//	     apply are restored (one level)
//	errors -> {"ok":false,"error":"one line"}
//
// A request may carry "deadline_ns", its deadline on CLOCK_MONOTONIC (the
// clock every process of the host shares, which a stopped process does
// not stop). The agent then takes it only before that instant, and says
// so first: it writes {"taken":true} before it carries the request out,
// and checks the deadline only after that line was written. A client
// that waits a second past its deadline and has read no such line knows
// the request was not applied and never will be: a line written after
// the client gave up fails (the connection is closed), and one written
// before the client gave up but after the deadline is followed by the
// refusal. Do sends a deadline Timeout ahead; a request without one (a
// script's) has the agent's own, Timeout after it accepted the
// connection, and gets one response line only.
//
// Only root, or a process with CAP_NET_ADMIN in the agent's user
// namespace, is served (SO_PEERCRED); the socket file is 0600 from its
// first instant, in a directory of the agent's user that no one else may
// write to.
//
// A Server decodes requests and hands them, as Calls, to the goroutine
// that owns the engine (the runtime), never answering on its own; Do is
// the client.
package control

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// DefaultRunDir holds the control sockets; EnvRunDir overrides it.
	DefaultRunDir = "/run/dcbtop"
	// EnvRunDir names the environment variable that overrides the
	// directory of the control sockets (for tests, or for an unprivileged
	// user running dcbtop with file capabilities).
	EnvRunDir = "DCBTOP_RUN_DIR"

	// MaxRequest bounds a request; a PARAMS object is far smaller (the
	// largest valid one is under 16 KiB).
	MaxRequest = 64 << 10
	// Timeout bounds a connection: reading the request, waiting for
	// the engine goroutine and writing the response; Do's requests carry
	// a deadline Timeout after they were sent.
	Timeout = 5 * time.Second
	// answerGrace is how long past its deadline Do waits for the agent's
	// first line: longer than the agent takes from its deadline check to
	// its answer, so a refusal written at the deadline still arrives.
	answerGrace = time.Second

	// maxAhead bounds a request's deadline: a client in another time
	// namespace (another CLOCK_MONOTONIC) is refused, not served late.
	maxAhead = time.Minute
	// maxConns bounds the connections served at once.
	maxConns = 8
)

// runDir returns the directory of the control sockets.
func RunDir() string {
	if d := os.Getenv(EnvRunDir); d != "" {
		return d
	}
	return DefaultRunDir
}

// netnsID returns the inode number of the calling process's network
// namespace ("4026531840"), or "" where there is no /proc/self/ns/net.
// (The link reads "net:[4026531840]"; its target's inode is that number.)
func netnsID() string {
	l, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return ""
	}
	id, ok := strings.CutPrefix(l, "net:[")
	id, ok2 := strings.CutSuffix(id, "]")
	if !ok || !ok2 || id == "" || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return id
}

// Path returns the control socket of ifname's agent in dir:
// DIR/<netns inode>-IFNAME.sock, so that agents in different network
// namespaces with the same interface name do not collide, and a client
// finds the agent of its own namespace.
func Path(dir, ifname string) string { return PathFunc(dir)(ifname) }

// viewDir is the subdirectory of the view sockets, apart from the
// control sockets so that no interface name can make one look like the
// other.
const viewDir = "view"

// ViewPath returns the view socket of ifname in dir: DIR/view/<netns
// inode>-IFNAME.sock, served by a live dcbtop without an agent there
// (ListenView).
func ViewPath(dir, ifname string) string { return Path(filepath.Join(dir, viewDir), ifname) }

// PathFunc returns Path for dir with the namespace read once: for
// naming the sockets of many interfaces together.
func PathFunc(dir string) func(ifname string) string {
	prefix := ""
	if id := netnsID(); id != "" {
		prefix = id + "-"
	}
	return func(ifname string) string { return filepath.Join(dir, prefix+ifname+".sock") }
}
