// SPDX-License-Identifier: Apache-2.0

package session

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkReplayEvents replays the capture named by DCBTOP_BENCH_PCAP
// (bench/gen pcap makes one) headless with --events to io.Discard: the
// path `make bench` measures against the previous release and cat.
func BenchmarkReplayEvents(b *testing.B) {
	file := os.Getenv("DCBTOP_BENCH_PCAP")
	if file == "" {
		b.Skip("DCBTOP_BENCH_PCAP names no capture")
	}
	for b.Loop() {
		rt, err := Start(Config{Replay: file, Events: true, Out: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if err := rt.Loop(context.Background()); err != nil {
			b.Fatal(err)
		}
		rt.Close()
	}
}
