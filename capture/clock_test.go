// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		origin := time.Now()
		real := ScaledClock(origin, 1)
		if real != (Clock{}) || real.Speed() != 1 {
			t.Fatalf("ScaledClock(1) = %+v, want the real clock", real)
		}
		fast := ScaledClock(origin, 8)
		if fast.Speed() != 8 {
			t.Errorf("Speed = %v", fast.Speed())
		}
		time.Sleep(2 * time.Second)
		if got, want := fast.Now().Sub(origin), 16*time.Second; got != want {
			t.Errorf("after 2 s, the x8 clock advanced %v, want %v", got, want)
		}
		if got := real.Now().Sub(origin); got != 2*time.Second {
			t.Errorf("after 2 s, the real clock advanced %v", got)
		}
		kernel := origin.Add(500 * time.Millisecond)
		if got, want := fast.Stamp(kernel), origin.Add(4*time.Second); !got.Equal(want) {
			t.Errorf("Stamp = %v, want %v", got, want)
		}
		if got := real.Stamp(kernel); !got.Equal(kernel) {
			t.Errorf("real Stamp = %v, want %v", got, kernel)
		}
		if got := fast.Real(5 * time.Second); got != 625*time.Millisecond {
			t.Errorf("Real(5s) = %v", got)
		}
		start := time.Now()
		<-fast.After(8 * time.Second)
		if got := time.Since(start); got != time.Second {
			t.Errorf("After(8s) at x8 waited %v, want 1s", got)
		}
		tk := fast.NewTicker(4 * time.Second)
		defer tk.Stop()
		start = time.Now()
		<-tk.C
		<-tk.C
		if got := time.Since(start); got != time.Second {
			t.Errorf("two ticks of 4 s at x8 took %v, want 1s", got)
		}
	})
}
