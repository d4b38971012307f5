// SPDX-License-Identifier: Apache-2.0

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
// Two links: NewVethLink (root) creates an anonymous network namespace
// (gone with the process, however it ends) with a veth pair whose host end
// dcbtop captures on like on any interface;
// NewMemLink (no privilege) connects the switches to a MemHost, which
// dcbtop's live loop can read and write like a capture.Live.
//
// Progress follows a Run from its step events (which step, when the
// next, which pass), for the screen's caption. Run's clock may run faster
// than real time (capture.ScaledClock): `dcbtop demo --speed 8` plays the
// scenario in an eighth of its time with every timer in step.
//
// Typical use:
//
//	sc, err := demo.Load()
//	...
//	link, err := demo.NewVethLink(demo.VethConfig{HostMAC: sc.Host.MAC})
//	...
//	defer link.Cleanup()
//	go demo.Run(ctx, link, sc, true, demo.WithObserver(func(ev demo.Event) { ... }))
//	// capture on link.HostIf(), with sc.Host as the host agent's local state
//
// Size: about 1,800 lines, one job (a simulated DCBX switch and its
// scenario); the scenario parser, the switch and the two links share the
// scenario's types and would only export them to each other if split.
package demo
