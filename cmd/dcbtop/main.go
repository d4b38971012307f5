// SPDX-License-Identifier: Apache-2.0

// Command dcbtop is top for Data Center Bridging: it shows, per interface,
// the local, remote and operational DCBX parameters, who won and why, and
// every change as it happens. See README.md and dcbtop --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/sys/unix"
)

func main() {
	if bi, ok := debug.ReadBuildInfo(); ok {
		version, revision = versionInfo(version, revision, bi)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	_, err := unix.IoctlGetTermios(int(os.Stdout.Fd()), unix.TCGETS)
	_, errErr := unix.IoctlGetTermios(int(os.Stderr.Fd()), unix.TCGETS)
	code := Run(ctx, os.Args[1:], Env{Stdout: os.Stdout, Stderr: os.Stderr, StdoutTTY: err == nil, StderrTTY: errErr == nil})
	stop()
	os.Exit(code)
}
