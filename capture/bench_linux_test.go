// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture_test

import (
	"context"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkLiveRead writes an LLDP frame on one end of a veth pair (a
// plain write(2) on a packet socket, which allocates nothing) and reads
// it with a Live on the other end: ns/op is the round trip through the
// kernel (the veth, the filter, recvmsg and its control messages),
// allocs/op the read's alone. Tagged, the frame carries an 802.1Q tag
// (VLAN 1, PCP 0), which the receiving kernel moves out of the frame
// into the packet's metadata. Root only, as the integration tests.
func BenchmarkLiveRead(b *testing.B) {
	n := newNS(b)
	n.veth("va", "vb")
	wr := n.rawSocket("va")
	rd := n.openLive("vb")
	untagged := lldpFrom(nearestBridge, n.mac("va"), 1)
	tagged := slices.Concat(untagged[:12], []byte{0x81, 0x00, 0x00, 0x01}, untagged[12:])
	for _, bc := range []struct {
		name  string
		frame []byte
	}{{"untagged", untagged}, {"tagged", tagged}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := unix.Write(wr, bc.frame); err != nil {
					b.Fatal(err)
				}
				if _, err := rd.ReadFrame(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
