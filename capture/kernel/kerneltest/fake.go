// SPDX-License-Identifier: Apache-2.0

// Package kerneltest holds a fake DCB driver for tests of capture/kernel
// and of what writes through it.
package kerneltest

import (
	"fmt"
	"slices"
	"sync"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// A Fake is a driver behind dcbnl, for tests of the kernel path: it
// stores what is set, can fail or ignore each feature, and records calls.
type Fake struct {
	State   dcbnl.IEEE
	Mode    *dcbnl.Mode
	ReadErr error // IEEE fails with it
	// ReadBackErr: IEEE fails with it once something was set or deleted.
	ReadBackErr error
	SetErr      map[string]error // SetIEEE of "ETS", "PFC", "APP", "TRUST", "BUFFER" or "MAXRATE" fails with it
	DelErr      error
	Ignore      map[string]bool // accepted but not stored
	MangleBW    *[8]uint8       // ETS stored with these bandwidths instead
	// ModeNotInReply leaves DCB_ATTR_DCBX out of the IEEE_GET reply even
	// with a Mode, as the first kernels with DCB_CMD_IEEE_GET did (their
	// dcbnl_ieee_get filled ETS, PFC and APP only): the mode then takes a
	// DCB_CMD_GDCBX.
	ModeNotInReply bool
	// DCBXStatus is the driver's setdcbx: its answer to mode m, 0 to
	// take it (stored in Mode), non-zero to refuse. Nil answers as
	// testbed/kmod's dcbtest and ixgbe do: 1 for a mode with both
	// DCB_CAP_DCBX_HOST and LLD_MANAGED or neither, or with both versions.
	DCBXStatus func(m dcbnl.Mode) uint8
	Calls      []string
	// Requests are the DCB_CMD_* of the netlink requests (Netlink):
	// "IEEE_GET", "IEEE_SET", "IEEE_DEL", "GDCBX", "SDCBX".
	Requests []string

	written bool // a SetIEEE or DelApps was called
	// mu serialises the requests of the netlink clients sharing the
	// Fake (NetlinkLog).
	mu sync.Mutex
}

// NewFake returns a driver with 8 TCs all on TC0 at 100% ETS, PFC off and
// an empty APP table.
func NewFake() *Fake {
	ets := dcbnl.ETS{ETSCap: 8, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}}
	return &Fake{State: dcbnl.IEEE{ETS: &ets, PFC: &dcbnl.PFC{Cap: 8, Delay: 1234}, App: []dcbnl.App{}},
		SetErr: map[string]error{}, Ignore: map[string]bool{}}
}

// IEEE returns a copy of the stored state.
func (f *Fake) IEEE(ifname string) (*dcbnl.IEEE, error) {
	f.Calls = append(f.Calls, "IEEE_GET")
	if f.ReadErr != nil {
		return nil, f.ReadErr
	}
	if f.written && f.ReadBackErr != nil {
		return nil, f.ReadBackErr
	}
	s := f.State
	if s.ETS != nil {
		e := *s.ETS
		s.ETS = &e
	}
	if s.PFC != nil {
		p := *s.PFC
		s.PFC = &p
	}
	s.App = slices.Clone(s.App)
	s.AppTrust = slices.Clone(s.AppTrust)
	s.Rewr = slices.Clone(s.Rewr)
	if s.Buffer != nil {
		b := *s.Buffer
		s.Buffer = &b
	}
	if s.MaxRate != nil {
		m := *s.MaxRate
		s.MaxRate = &m
	}
	if !f.ModeNotInReply {
		s.DCBX = f.Mode
	}
	return &s, nil
}

// SetIEEE stores one feature (ETS, PFC, APP entries, the trust table,
// the buffer split or the rate limits). A driver that reports no trust
// table (State's AppTrust nil) has no dcbnl_setapptrust: dcbnl_ieee_set
// answers EOPNOTSUPP in the reply's status. A buffer is stored unless
// ignored ("BUFFER"), as a driver without dcbnl_setbuffer does silently;
// so are rate limits ("MAXRATE"; not stored where State has none: no
// ieee_setmaxrate). Rewrite entries are added to State's Rewr as a
// Linux 6.3 kernel's dcb_setrewr adds them (EEXIST for one there already)
// and ignored, successfully, where State has no Rewr: a kernel before
// 6.3, whose DCB_ATTR_IEEE parsing skips the attribute.
func (f *Fake) SetIEEE(ifname string, s *dcbnl.IEEESet) error {
	f.written = true
	switch {
	case s.AppTrust != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET TRUST %v", s.AppTrust))
		if f.State.AppTrust == nil {
			return &dcbnl.Error{Op: "IEEE_SET", Ifname: ifname, Err: syscall.EOPNOTSUPP, Driver: true, Status: uint8(256 - int(syscall.EOPNOTSUPP))}
		}
		if err := f.SetErr["TRUST"]; err != nil {
			return err
		}
		if !f.Ignore["TRUST"] {
			f.State.AppTrust = slices.Clone(s.AppTrust)
		}
	case s.Buffer != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET BUFFER %+v", *s.Buffer))
		if err := f.SetErr["BUFFER"]; err != nil {
			return err
		}
		if !f.Ignore["BUFFER"] && f.State.Buffer != nil {
			b := *s.Buffer
			f.State.Buffer = &b
		}
	case s.Rewr != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET REWR %+v", s.Rewr))
		if err := f.SetErr["REWR"]; err != nil {
			return err
		}
		if f.State.Rewr == nil {
			return nil
		}
		for _, a := range s.Rewr {
			if slices.Contains(f.State.Rewr, a) {
				return &dcbnl.Error{Op: "IEEE_SET", Ifname: ifname, Err: syscall.EEXIST, Driver: true, Status: uint8(256 - int(syscall.EEXIST))}
			}
			f.State.Rewr = append(f.State.Rewr, a)
		}
	case s.MaxRate != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET MAXRATE %v", *s.MaxRate))
		if err := f.SetErr["MAXRATE"]; err != nil {
			return err
		}
		if !f.Ignore["MAXRATE"] && f.State.MaxRate != nil {
			m := *s.MaxRate
			f.State.MaxRate = &m
		}
	case s.ETS != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET ETS %+v", *s.ETS))
		if err := f.SetErr["ETS"]; err != nil {
			return err
		}
		if !f.Ignore["ETS"] {
			e := *s.ETS
			if f.MangleBW != nil {
				e.TCTxBW = *f.MangleBW
			}
			f.State.ETS = &e
		}
	case s.PFC != nil:
		f.Calls = append(f.Calls, fmt.Sprintf("SET PFC %+v", *s.PFC))
		if err := f.SetErr["PFC"]; err != nil {
			return err
		}
		if !f.Ignore["PFC"] {
			p := *s.PFC
			f.State.PFC = &p
		}
	default:
		f.Calls = append(f.Calls, fmt.Sprintf("SET APP %+v", s.Apps))
		if err := f.SetErr["APP"]; err != nil {
			return err
		}
		if !f.Ignore["APP"] {
			f.State.App = append(f.State.App, s.Apps...)
		}
	}
	return nil
}

// DelApps removes APP entries.
func (f *Fake) DelApps(ifname string, apps []dcbnl.App) error {
	f.Calls = append(f.Calls, fmt.Sprintf("DEL APP %+v", apps))
	f.written = true
	if f.DelErr != nil {
		return f.DelErr
	}
	f.State.App = slices.DeleteFunc(f.State.App, func(a dcbnl.App) bool { return slices.Contains(apps, a) })
	return nil
}

// DCBX returns Mode, or EOPNOTSUPP when it is nil.
func (f *Fake) DCBX(ifname string) (dcbnl.Mode, error) {
	f.Calls = append(f.Calls, "GDCBX")
	if f.Mode == nil {
		return 0, &dcbnl.Error{Op: "GDCBX", Ifname: ifname, Err: syscall.EOPNOTSUPP}
	}
	return *f.Mode, nil
}

// SetDCBX is the driver's setdcbx (DCBXStatus): a mode it takes becomes
// Mode; a refusal is a driver *dcbnl.Error with its status, as
// dcbnl_setdcbx answers it; without a Mode the driver has no setdcbx
// (EOPNOTSUPP).
func (f *Fake) SetDCBX(ifname string, m dcbnl.Mode) error {
	f.Calls = append(f.Calls, fmt.Sprintf("SDCBX %#02x", uint8(m)))
	if f.Mode == nil {
		return &dcbnl.Error{Op: "SDCBX", Ifname: ifname, Err: syscall.EOPNOTSUPP}
	}
	status := f.dcbxStatus(m)
	if status != 0 {
		return &dcbnl.Error{Op: "SDCBX", Ifname: ifname, Err: dcbnl.ErrRefused, Driver: true, Status: status}
	}
	f.written = true
	f.Mode = &m
	return nil
}

func (f *Fake) dcbxStatus(m dcbnl.Mode) uint8 {
	if f.DCBXStatus != nil {
		return f.DCBXStatus(m)
	}
	if m.Host() == m.LLDManaged() || m.IEEE() && m.CEE() {
		return 1
	}
	return 0
}

// DelRewr removes APP rewrite entries as a Linux 6.3 kernel's dcb_delrewr
// does (ENOENT for one that is not there); where State has no Rewr (a
// kernel before 6.3) it does nothing and succeeds.
func (f *Fake) DelRewr(ifname string, apps []dcbnl.App) error {
	f.Calls = append(f.Calls, fmt.Sprintf("DEL REWR %+v", apps))
	f.written = true
	if f.State.Rewr == nil {
		return nil
	}
	for _, a := range apps {
		i := slices.Index(f.State.Rewr, a)
		if i < 0 {
			return &dcbnl.Error{Op: "IEEE_DEL", Ifname: ifname, Err: syscall.ENOENT, Driver: true, Status: uint8(256 - int(syscall.ENOENT))}
		}
		f.State.Rewr = slices.Delete(f.State.Rewr, i, i+1)
	}
	return nil
}
