// SPDX-License-Identifier: Apache-2.0

//go:build unix

package kernel

import (
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// ceeFake is a driver with the CEE ops besides the IEEE ones: SET_ALL
// commits the CEE PFC to the PFC the NIC runs (as mlx5e_dcbnl_setall
// does), unless noCEE (a driver without them: EOPNOTSUPP).
type ceeFake struct {
	*kerneltest.Fake
	noCEE bool
}

func (f *ceeFake) SetCEEPFC(ifname string, en uint8) (uint8, error) {
	f.Calls = append(f.Calls, "CEE_PFC")
	if f.noCEE {
		return 0, &dcbnl.Error{Op: "SSTATE", Ifname: ifname, Err: syscall.EOPNOTSUPP}
	}
	f.State.PFC.Enabled = en
	return 2, nil // DCB_HW_CHG: changed, no reset
}

// A CEE peer's PFC goes through the CEE ops where the NIC runs CEE DCBX,
// through IEEE_SET otherwise, and through IEEE_SET when the driver turns
// out to have no CEE ops; each is read back.
func TestApplyCEEPFC(t *testing.T) {
	ieeeCEE := dcbnl.ModeHost | dcbnl.ModeIEEE | dcbnl.ModeCEE
	ieeeOnly := dcbnl.ModeHost | dcbnl.ModeIEEE
	for _, tt := range []struct {
		name    string
		mode    dcbnl.Mode
		noCEE   bool
		fromCEE bool
		calls   []string
	}{
		{"a CEE peer's PFC, the NIC in CEE: the CEE ops", ieeeCEE, false, true, []string{"IEEE_GET", "CEE_PFC", "IEEE_GET"}},
		{"a CEE peer's PFC, the NIC in IEEE only: IEEE_SET", ieeeOnly, false, true, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{"an IEEE peer's PFC: IEEE_SET", ieeeCEE, false, false, []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{"no CEE ops in the driver: IEEE_SET after EOPNOTSUPP", ieeeCEE, true, true, []string{"IEEE_GET", "CEE_PFC", "IEEE_SET", "IEEE_GET"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &ceeFake{Fake: kerneltest.NewFake(), noCEE: tt.noCEE}
			m := tt.mode
			f.Mode = &m
			res := Apply(f, "eth0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3, FromCEE: tt.fromCEE}}, nil)
			if res.Err != nil {
				t.Fatalf("Apply: %v", res.Err)
			}
			calls := []string{}
			for _, c := range f.Calls {
				switch {
				case strings.HasPrefix(c, "SET "):
					calls = append(calls, "IEEE_SET")
				case c != "GDCBX":
					calls = append(calls, c)
				}
			}
			if diff := cmp.Diff(tt.calls, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if got := res.After.Params; got == nil || got.PFC == nil || got.PFC.Enabled != 1<<3 {
				t.Errorf("read back %+v, want PFC on 3", got)
			}
		})
	}
}
