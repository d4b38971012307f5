// SPDX-License-Identifier: Apache-2.0

// Package testbed is a test harness for running dcbtop against real network
// peers: network namespaces joined by veth pairs and bridges, Debian's lldpd
// as an independent LLDP/DCBX peer, tcpdump as recorder and tshark as an
// independent decoder (docs/architecture.md "Packages"; testbed/
// record-fixtures.sh records the lldpd fixtures the same way from the shell).
//
// It shells out to ip, lldpd, lldpcli, tcpdump and tshark (every short
// command bounded by CommandTimeout) and only ever touches namespaces it
// created itself: every function that takes an *NS refuses nil, so the
// host's own interfaces are never used.
//
// Typical use:
//
//	func TestAgainstLLDPD(t *testing.T) {
//		testbed.RequirePriv(t) // skip (or fail with DCBTOP_REQUIRE_PRIV=1) when not possible
//		peer, host := testbed.NewNS(t, "peer"), testbed.NewNS(t, "host")
//		peerMAC, hostMAC := testbed.Veth(t, peer, "p0", host, "h0")
//		pcap := filepath.Join(t.TempDir(), "x.pcap")
//		stop := testbed.Tcpdump(t, host, "h0", pcap)
//		sw := testbed.StartLLDPD(t, peer, "p0", testbed.LLDPDOpts{
//			Hostname: "sw1",
//			TLVs:     []testbed.UnknownTLV{{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}}}, // PFC prio 3
//		})
//		host.Go(t, func() { /* open dcbtop's AF_PACKET socket on h0 here */ })
//		testbed.WaitPcap(t, pcap, 5*time.Second, func(f []testbed.PcapFrame) bool {
//			return len(testbed.FramesFrom(f, peerMAC)) >= 2
//		})
//		_ = sw.ReplaceTLV(testbed.OUI8021, 11, []byte{0x08, 0x18}) // PFC prio 3+4, sent at once
//		...
//		stop()
//		for _, f := range testbed.TsharkLLDP(t, pcap) { // tshark's view of what was sent
//			if f.Src.String() == hostMAC.String() { pfc, err := f.PFC(); ... }
//		}
//	}
//
// Cleanup: everything is registered with t.Cleanup (which also runs when the
// test fails or panics): processes are stopped (lldpd with SIGTERM, tcpdump
// with SIGINT), whatever still runs in a namespace is killed by pid, and the
// namespaces are deleted, taking their interfaces with them. When the test
// binary dies without running its cleanups (SIGKILL, go test -timeout), a
// watchdog process (see watchdog.go) kills what runs in the namespaces that
// are left, deletes them and removes lldpd's directories. (Pdeathsig alone
// would not do: lldpd and tcpdump change their user id, which clears it.)
// Leaked reports namespaces of this process that still exist.
//
// Timing facts (lldpd 1.0.16): with tx-interval 1 lldpd sends an LLDPDU
// about every second with TTL LLDPDTTL = 4 s (tx-interval x tx-hold 4);
// a custom-TLV change is sent at once; SIGTERM (LLDPD.Stop) sends a shutdown
// LLDPDU (TTL 0), SIGKILL of the whole process group (LLDPD.Kill) and a link
// set down send nothing. (SIGKILL of the monitor process alone is not
// enough: lldpd's privilege-separated child notices and still sends a
// shutdown LLDPDU.)
//
// Tests using the harness may run in parallel (t.Parallel), and in several
// processes at once (`go test ./...`); namespace names are random, each
// lldpd has its own control socket, and NewNS creates namespaces under a
// lock shared by those processes after preparing /run/netns the way
// `ip netns` expects, so a new machine without /run/netns is fine (see
// netnslock.go).
//
// Size: about 2,100 lines of test infrastructure (namespaces, lldpd,
// tcpdump, tshark), never linked into dcbtop; the helpers share the
// namespace type and the command runner.
package testbed
