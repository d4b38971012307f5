// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

// startAgentIn starts dcbtop's agent on h0 of a new namespace pair, its
// control socket in a run directory of the test's, and waits until the
// socket answers.
func startAgentIn(t *testing.T, prefix string) (host *testbed.NS, run string, agent *proc) {
	t.Helper()
	host, sw := testbed.NewNS(t, prefix+"h"), testbed.NewNS(t, prefix+"s")
	testbed.Veth(t, sw, "p0", host, "h0")
	run = testbed.ShortTempDir(t)
	agent = startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := nsControlErr(run, host, "h0", `{"op":"get"}`); err == nil && resp.OK {
			return host, run, agent
		}
		if agent.exited() || time.Now().After(deadline) {
			t.Fatalf("the agent's control socket did not answer (exit %v); stderr:\n%s", agent.exited(), agent.stderrText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestApplyStoppedAgent: an apply sent to an agent stopped before it
// accepts (SIGSTOP) and resumed (SIGCONT) some seconds later lands if and
// only if dcbtop apply said it did. The request carries its deadline on
// CLOCK_MONOTONIC, 5 s after it was sent: resumed before it, the agent
// applies and answers (exit 0); after it, the agent refuses the request
// it finds in its socket, whether the client still waits (5.5 s: it waits
// a second past the deadline and hears the refusal) or has gone (later).
// 7737732 counted its deadline from the accept, so an apply reported
// failed landed on SIGCONT (3 of 3).
func TestApplyStoppedAgent(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	for _, tc := range []struct {
		resume  time.Duration
		applied bool
	}{
		{2 * time.Second, true},
		{5500 * time.Millisecond, false},
		{6500 * time.Millisecond, false},
		{8 * time.Second, false},
		{12 * time.Second, false},
	} {
		t.Run(fmt.Sprint(tc.resume), func(t *testing.T) {
			t.Parallel()
			host, run, agent := startAgentIn(t, "stop")
			agent.signal(syscall.SIGSTOP)
			stopped := true
			defer func() {
				if stopped {
					agent.signal(syscall.SIGCONT)
				}
			}()
			start := time.Now()
			apply := startProc(t, "dcbtop apply", dcbtopIn(t, host, run, "apply", "-i", "h0", "--willing", "off"))
			exited := make(chan time.Time, 1)
			go func() { <-apply.done; exited <- time.Now() }()
			time.Sleep(time.Until(start.Add(tc.resume)))
			agent.signal(syscall.SIGCONT)
			stopped = false
			code := apply.wait(30 * time.Second)
			took := (<-exited).Sub(start)
			// What the agent holds once it has had the time to get to the
			// request in its socket.
			time.Sleep(2 * time.Second)
			resp, err := nsControlErr(run, host, "h0", `{"op":"get"}`)
			if err != nil || !resp.OK || resp.Willing == nil {
				t.Fatalf("get after the resume: %+v, %v", resp, err)
			}
			applied := !*resp.Willing
			msg := apply.stdout() + apply.stderrText()
			t.Logf("resumed at %v: apply exit %d after %v: %s", tc.resume, code, took.Round(time.Millisecond), msg)
			if (code == 0) != applied || applied != tc.applied {
				t.Errorf("resumed at %v: apply exit %d after %v (%q); the agent's Willing is %v (applied %v); want applied %v, and exit 0 exactly when applied",
					tc.resume, code, took.Round(time.Millisecond), msg, *resp.Willing, applied, tc.applied)
			}
			if !tc.applied && (!strings.Contains(msg, "not applied") || strings.Contains(msg, "may be applied")) {
				t.Errorf("resumed at %v: apply says %q, want a plain not applied", tc.resume, msg)
			}
			if took > 7*time.Second {
				t.Errorf("apply took %v: want its answer within a second past its 5 s deadline", took.Round(time.Millisecond))
			}
		})
	}
}
