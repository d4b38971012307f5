package check

import "testing"

// BenchmarkJudge is the one evaluation on a RoCE-ready port with its
// counters, as the engine runs it for each interface of each snapshot.
func BenchmarkJudge(b *testing.B) {
	in := healthy(b)
	b.ReportAllocs()
	for b.Loop() {
		Judge(&in, false)
	}
}
