// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// A change made by another program through DCB netlink (iproute2's dcb)
// reaches dcbtop through the kernel's RTNLGRP_DCB notification
// (net/dcb/dcbnl.c dcbnl_notify after each set), not its 10 s poll: the
// local-change indication follows within well under a second (under 4 s on a loaded machine). The delay is
// measured and logged.
func TestDCBNotificationDelay(t *testing.T) {
	freshDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, dcbtopBin, "--events", "-i", "dcbt0", "--duration", "20s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan engine.Indication, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var in engine.Indication
			if json.Unmarshal(sc.Bytes(), &in) == nil {
				lines <- in
			}
		}
	}()
	// The first reading: the local parameters as the driver has them.
	first := time.After(15 * time.Second)
	for started := false; !started; {
		select {
		case in, ok := <-lines:
			if !ok {
				t.Fatal("dcbtop --events ended before its first local reading")
			}
			started = in.Reason == engine.ReasonLocalChange
		case <-first:
			t.Fatal("no local-change indication of the first reading within 15 s")
		}
	}
	for i, prio := range []string{"5", "6"} {
		at := time.Now()
		dcbSet(t, "pfc", "set", "dev", "dcbt0", "prio-pfc", prio+":on")
		timeout := time.After(8 * time.Second) // the poll would come within 10 s
		for got := false; !got; {
			select {
			case in, ok := <-lines:
				if !ok {
					t.Fatal("dcbtop --events ended")
				}
				if in.Reason == engine.ReasonLocalChange && in.Params != nil && in.Params.PFC != nil && in.Params.PFC.Enabled&(1<<(5+i)) != 0 {
					delay := time.Since(at)
					t.Logf("dcb pfc set prio-pfc %s:on -> dcbtop's local-change after %v", prio, delay.Round(time.Millisecond))
					if delay > 4*time.Second {
						t.Errorf("the change reached dcbtop after %v: a notification takes well under 4 s even under load (the poll, ticking 10 s after the start, would take over 6 s here)", delay)
					}
					got = true
				}
			case <-timeout:
				t.Fatalf("no local-change with PFC on priority %s within 8 s of dcb's change", prio)
			}
		}
	}
}
