// Package demo is dcbtop's built-in simulated switch: it plays a scripted,
// looping scenario of real DCBX LLDPDUs (assets/demo/scenario.json) on one
// link, so that `dcbtop demo` shows every feature on a machine without DCB
// hardware.
//
// Each simulated switch is a real DCBX peer (Switch): it builds its LLDPDUs
// with dcbtop's agent code (engine/agent) and runs a dcbtop engine on the
// host's LLDPDUs, so a willing switch adopts what the host advertises, as
// IEEE 802.1Qaz says. Run drives every switch of a Scenario over a Link,
// with time from a Clock (the real one, or testing/synctest's).
//
// Two links: NewVethLink (root) creates a network namespace with a veth
// pair whose host end dcbtop captures on like on any interface;
// NewMemLink (no privilege) connects the switches to a MemHost, which
// dcbtop's live loop can read and write like a capture.Live.
//
// Typical use:
//
//	sc, err := demo.Load()
//	...
//	demo.CleanStale()
//	link, err := demo.NewVethLink(demo.VethConfig{HostMAC: sc.Host.MAC})
//	...
//	defer link.Cleanup()
//	go demo.Run(ctx, link, sc, true, demo.WithObserver(func(ev demo.Event) { ... }))
//	// capture on link.HostIf(), with sc.Host as the host agent's local state
package demo
