// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// The watchdog cleans up after a test binary that dies without running its
// t.Cleanup functions (SIGKILL, go test -timeout, a crash). lldpd and
// tcpdump change their user id, which clears Pdeathsig, so they would
// otherwise keep running in namespaces nobody deletes.
//
// It is one `sh` per test process, in its own session (so a terminal's
// SIGINT does not reach it), reading registrations from a pipe whose write
// end only the test process holds (close-on-exec):
//
//	+ns NAME    a namespace NewNS created      -ns NAME   deleted by its cleanup
//	+dir PATH   an lldpd directory             -dir PATH  removed by its cleanup
//
// When the pipe reaches EOF (the test process has exited, however), it
// SIGKILLs the processes in every namespace still registered, deletes the
// namespace and removes the directories. After a normal exit nothing is
// registered any more and it just exits.
const watchdogScript = `set -f
nl='
'
list=$nl
while IFS= read -r line; do
	case $line in
	+*) list="$list${line#+}$nl" ;;
	-*)
		item=${line#-} new=$nl
		IFS=$nl
		for x in $list; do [ "$x" = "$item" ] || new="$new$x$nl"; done
		unset IFS
		list=$new
		;;
	esac
done
IFS=$nl
for x in $list; do
	case $x in
	"ns "*)
		n=${x#ns }
		[ -e "/run/netns/$n" ] || continue
		for i in 1 2 3 4 5; do
			pids=$(ip netns pids "$n" 2>/dev/null)
			[ -n "$pids" ] || break
			kill -9 $pids 2>/dev/null
			sleep 0.1
		done
		ip netns del "$n" 2>/dev/null
		;;
	"dir "*) rm -rf -- "${x#dir }" ;;
	esac
done
`

var (
	wdOnce sync.Once
	wdMu   sync.Mutex
	wdIn   io.WriteCloser // nil when the watchdog could not be started
)

// watch sends a registration line ("+ns NAME", "-dir PATH", ...) to the
// watchdog, starting it first if needed. Failures are ignored: the watchdog
// is a safety net, t.Cleanup does the real work.
func watch(line string) {
	wdOnce.Do(startWatchdog)
	wdMu.Lock()
	defer wdMu.Unlock()
	if wdIn == nil {
		return
	}
	if _, err := fmt.Fprintln(wdIn, line); err != nil {
		wdIn.Close()
		wdIn = nil
	}
}

func startWatchdog() {
	sh, err := lookCmd("sh")
	if err != nil {
		return
	}
	cmd := exec.Command(sh, "-c", watchdogScript)
	cmd.Env = append(os.Environ(), "PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // and no Pdeathsig: it must outlive us
	in, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		return
	}
	go func() { _ = cmd.Wait() }() // reaps the watchdog if it exits early
	wdIn = in
}
