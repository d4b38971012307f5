// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
)

// TestServiceFleet runs dcbtop as its service does (headless, --metrics
// and --events, no -i: every up Ethernet interface) against a real lldpd
// switch: the event lines name this host and carry their IDs; /metrics
// joins the port to the switch's (dcbtop_peer_info) and hashes its
// configuration (dcbtop_config_info); the service keeps running and
// serving while the interface disappears and comes back; a second one on
// the same metrics port exits 1 with one line on stderr (systemd then
// restarts it with back-off).
func TestServiceFleet(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "fsw"), testbed.NewNS(t, "fhost")
	testbed.Veth(t, sw, "swp7", host, "h0")
	opts := testbed.LLDPDOpts{Hostname: "leaf-7", TLVs: swTLVs(swPFC3)}
	const addr = "127.0.0.1:9433"
	svc := startDcbtop(t, host, "--metrics", addr, "--events")
	svc.waitSocket(t, host, "h0")
	l := testbed.StartLLDPD(t, sw, "swp7", opts)
	in, line := svc.nextIndication(t, 10*time.Second)
	for in.Status == engine.StatusNeighbor {
		in, line = svc.nextIndication(t, 10*time.Second)
	}
	if in.Reason != engine.ReasonFirstReceipt {
		t.Fatalf("first indication %s %s, want first-receipt: %s", in.Status, in.Reason, line)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		t.Fatal(err)
	}
	hostname, _ := os.Hostname()
	stamped := in
	stamped.Stamp(hostname)
	if raw["host"] != hostname || in.ID == 0 || in.ID != stamped.ID {
		t.Errorf("event line host %v, id %v; want %q and the event's id %v", raw["host"], raw["id"], hostname, stamped.ID)
	}

	peer := map[string]string{"interface": "h0", "system_name": "leaf-7", "port_description": "swp7"} // lldpd: port ID = the MAC
	fams := scrape(t, host, addr)
	if got := gauge(t, fams, "dcbtop_peer_info", peer); got != 1 {
		t.Errorf("dcbtop_peer_info%v = %v, want 1", peer, got)
	}
	if got := gauge(t, fams, "dcbtop_config_info", map[string]string{"interface": "h0", "side": "remote", "pfc": "3"}); got != 1 {
		t.Errorf("dcbtop_config_info{side=remote,pfc=3} = %v, want 1", got)
	}
	// The same configuration gives the same hash, in another process.
	var remoteHash string
	for _, m := range fams["dcbtop_config_info"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "config" {
				remoteHash = lp.GetValue()
			}
		}
	}
	if len(remoteHash) != 16 {
		t.Fatalf("config hash %q", remoteHash)
	}

	// The interface disappears: the service keeps serving.
	testbed.DelLink(t, host, "h0")
	l.Stop()
	svc.expect(t, 10*time.Second, engine.ReasonLinkDown, fInvalid)
	if svc.exited() {
		t.Fatalf("the service stopped when h0 disappeared: %s", svc.stderrText())
	}
	fams = scrape(t, host, addr)
	if got := gauge(t, fams, "dcbtop_interface_up", map[string]string{"interface": "h0"}); got != 0 {
		t.Errorf("dcbtop_interface_up{h0} = %v while it is gone, want 0", got)
	}
	if f := fams["dcbtop_peer_info"]; f != nil && len(f.GetMetric()) > 0 {
		t.Errorf("dcbtop_peer_info while h0 is gone: %v", f.GetMetric())
	}
	// ... and comes back: the service finds it and its peer again.
	testbed.Veth(t, sw, "swp7", host, "h0")
	testbed.StartLLDPD(t, sw, "swp7", opts)
	svc.expect(t, 15*time.Second, engine.ReasonFirstReceipt, fReceived)
	fams = scrape(t, host, addr)
	if got := gauge(t, fams, "dcbtop_peer_info", peer); got != 1 {
		t.Errorf("after h0 came back: dcbtop_peer_info = %v, want 1", got)
	}
	if got := gauge(t, fams, "dcbtop_config_info", map[string]string{"interface": "h0", "side": "remote", "config": remoteHash}); got != 1 {
		t.Errorf("after h0 came back: the remote configuration's hash changed (was %s)", remoteHash)
	}

	// A second service on the same port: exit 1, one line.
	second := startDcbtop(t, host, "--metrics", addr, "--events")
	if code := second.wait(10 * time.Second); code != 1 {
		t.Errorf("second service on %s: exit %d, want 1", addr, code)
	}
	if e := second.stderrText(); strings.Count(e, "\n") != 1 || !strings.Contains(e, addr) || !strings.Contains(e, "address already in use") {
		t.Errorf("second service's stderr %q: want one line naming %s", e, addr)
	}
	svc.stop(t)
}
