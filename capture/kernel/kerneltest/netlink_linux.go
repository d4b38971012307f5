// SPDX-License-Identifier: Apache-2.0

package kerneltest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// commandNames name the DCB_CMD_* a Fake answers over netlink.
var commandNames = map[uint8]string{
	dcbnl.DCB_CMD_IEEE_GET: "IEEE_GET",
	dcbnl.DCB_CMD_IEEE_SET: "IEEE_SET",
	dcbnl.DCB_CMD_IEEE_DEL: "IEEE_DEL",
	dcbnl.DCB_CMD_GDCBX:    "GDCBX",
	dcbnl.DCB_CMD_SDCBX:    "SDCBX",
}

// Netlink returns a real *dcbnl.Client whose kernel is f, over an
// nltest connection: every request is decoded from its bytes, carried
// out on f, and answered as net/dcb/dcbnl.c does (an IEEE_GET reply
// filled as dcbnl_ieee_fill fills it, with DCB_ATTR_DCBX when f has a
// Mode; a SET's status byte in DCB_ATTR_IEEE; an errno as a netlink
// error). The DCB_CMD_* of each request is appended to f.Requests.
func (f *Fake) Netlink(t testing.TB) *dcbnl.Client { return f.NetlinkLog(t, nil) }

// A Request is one netlink request a Fake answered: its DCB_CMD_* name
// and its payload as sent (struct dcbmsg and the attributes).
type Request struct {
	Cmd  string
	Data []byte
}

// NetlinkLog is Netlink, every request of this client also appended to
// *log when log is not nil. Several clients may share f: requests are
// carried out one at a time.
func (f *Fake) NetlinkLog(t testing.TB, log *[]Request) *dcbnl.Client {
	t.Helper()
	conn := nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(reqs) != 1 {
			return nil, fmt.Errorf("fake kernel: %d requests at once", len(reqs))
		}
		req := reqs[0]
		if len(req.Data) < dcbnl.SizeofDCBMsg {
			return nil, errors.New("fake kernel: request shorter than struct dcbmsg")
		}
		cmd := req.Data[1]
		name, ok := commandNames[cmd]
		if !ok {
			return nil, fmt.Errorf("fake kernel: unexpected DCB command %d", cmd)
		}
		f.Requests = append(f.Requests, name)
		if log != nil {
			*log = append(*log, Request{Cmd: name, Data: slices.Clone(req.Data)})
		}
		typ, data, err := f.answer(cmd, req.Data[dcbnl.SizeofDCBMsg:])
		if err != nil {
			if errno, ok := errors.AsType[syscall.Errno](err); ok {
				return nltest.Error(int(errno), reqs)
			}
			return nil, err
		}
		return []netlink.Message{{
			Header: netlink.Header{Type: typ, Flags: req.Header.Flags, Sequence: req.Header.Sequence, PID: nltest.PID},
			Data:   append([]byte{syscall.AF_UNSPEC, cmd, 0, 0}, data...),
		}}, nil
	})
	c := dcbnl.NewClient(conn)
	t.Cleanup(func() { c.Close() })
	return c
}

// Reply answers one request as the fake's netlink connection does: its
// payload after struct dcbmsg in, the reply's attributes out. The
// real-kernel tests (testbed/realkernel) hold it to the kernel's own
// reply for the same request and state.
func (f *Fake) Reply(cmd uint8, attrs []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, b, err := f.answer(cmd, attrs)
	return b, err
}

// answer carries out one request (its attributes after struct dcbmsg) on
// f and returns the reply's type and attributes, or the errno to answer
// with.
func (f *Fake) answer(cmd uint8, attrs []byte) (netlink.HeaderType, []byte, error) {
	ifname, ieee, mode, err := decodeRequest(attrs)
	if err != nil {
		return 0, nil, err
	}
	ae := netlink.NewAttributeEncoder()
	switch cmd {
	case dcbnl.DCB_CMD_IEEE_GET:
		s, err := f.IEEE(ifname)
		if err != nil {
			return 0, nil, errnoOf(err)
		}
		ae.String(dcbnl.DCB_ATTR_IFNAME, ifname)
		ae.Nested(dcbnl.DCB_ATTR_IEEE, func(nae *netlink.AttributeEncoder) error {
			if s.ETS != nil {
				b, _ := s.ETS.MarshalBinary()
				nae.Bytes(dcbnl.DCB_ATTR_IEEE_ETS, b)
			}
			if s.MaxRate != nil {
				var b []byte
				for _, v := range s.MaxRate {
					b = binary.NativeEndian.AppendUint64(b, v)
				}
				nae.Bytes(dcbnl.DCB_ATTR_IEEE_MAXRATE, b)
			}
			if s.PFC != nil {
				b, _ := s.PFC.MarshalBinary()
				nae.Bytes(dcbnl.DCB_ATTR_IEEE_PFC, b)
			}
			if s.Buffer != nil {
				b, _ := s.Buffer.MarshalBinary()
				nae.Bytes(dcbnl.DCB_ATTR_DCB_BUFFER, b)
			}
			if s.AppTrust != nil {
				nae.Nested(dcbnl.DCB_ATTR_DCB_APP_TRUST_TABLE, func(tae *netlink.AttributeEncoder) error {
					for _, sel := range s.AppTrust {
						typ := uint16(dcbnl.DCB_ATTR_IEEE_APP)
						if sel == dcbnl.DCB_APP_SEL_PCP {
							typ = dcbnl.DCB_ATTR_DCB_APP
						}
						tae.Uint8(typ, sel)
					}
					return nil
				})
			}
			nae.Nested(dcbnl.DCB_ATTR_IEEE_APP_TABLE, func(aae *netlink.AttributeEncoder) error {
				for _, a := range s.App {
					b, _ := a.MarshalBinary()
					typ := uint16(dcbnl.DCB_ATTR_IEEE_APP)
					if a.Selector == dcbnl.DCB_APP_SEL_PCP {
						typ = dcbnl.DCB_ATTR_DCB_APP
					}
					aae.Bytes(typ, b)
				}
				return nil
			})
			if s.Rewr != nil {
				// A Linux 6.3 kernel's table, after the APP table.
				nae.Nested(dcbnl.DCB_ATTR_DCB_REWR_TABLE, appEntries(s.Rewr))
			}
			return nil
		})
		if s.DCBX != nil {
			ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(*s.DCBX))
		}
		b, err := ae.Encode()
		return dcbnl.RTM_GETDCB, b, err
	case dcbnl.DCB_CMD_GDCBX:
		m, err := f.DCBX(ifname)
		if err != nil {
			return 0, nil, errnoOf(err)
		}
		ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(m))
		b, err := ae.Encode()
		return dcbnl.RTM_GETDCB, b, err
	case dcbnl.DCB_CMD_SDCBX:
		// dcbnl_setdcbx: EOPNOTSUPP without setdcbx, EINVAL without
		// DCB_ATTR_DCBX, else the driver's answer in DCB_ATTR_DCBX.
		if mode == nil {
			return 0, nil, syscall.EINVAL
		}
		status := uint8(0)
		if err := f.SetDCBX(ifname, dcbnl.Mode(*mode)); err != nil {
			e, ok := errors.AsType[*dcbnl.Error](err)
			if !ok || !e.Driver {
				return 0, nil, errnoOf(err)
			}
			status = e.Status
		}
		ae.Uint8(dcbnl.DCB_ATTR_DCBX, status)
		b, err := ae.Encode()
		return dcbnl.RTM_SETDCB, b, err
	case dcbnl.DCB_CMD_IEEE_SET, dcbnl.DCB_CMD_IEEE_DEL:
		// dcbnl_ieee_set and dcbnl_ieee_del set one feature after the
		// other and stop at the first failure; dcbtop sends one at a
		// time.
		var err error
		switch {
		case cmd == dcbnl.DCB_CMD_IEEE_DEL && ieee.Rewr != nil:
			err = f.DelRewr(ifname, ieee.Rewr)
		case cmd == dcbnl.DCB_CMD_IEEE_DEL:
			err = f.DelApps(ifname, ieee.Apps)
		case ieee.Rewr != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{Rewr: ieee.Rewr})
		case ieee.AppTrust != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{AppTrust: ieee.AppTrust})
		case ieee.Buffer != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{Buffer: ieee.Buffer})
		case ieee.MaxRate != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{MaxRate: ieee.MaxRate})
		case ieee.ETS != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{ETS: ieee.ETS})
		case ieee.PFC != nil:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{PFC: ieee.PFC})
		default:
			err = f.SetIEEE(ifname, &dcbnl.IEEESet{Apps: ieee.Apps})
		}
		status := uint8(0)
		if err != nil {
			e, ok := errors.AsType[*dcbnl.Error](err)
			if !ok || !e.Driver {
				return 0, nil, errnoOf(err)
			}
			status = e.Status
			if errno, ok := errors.AsType[syscall.Errno](e.Err); ok && status == 0 {
				status = uint8(256 - int(errno)) // (u8)-errno, as dcbnl_reply sends it
			}
		}
		ae.Uint8(dcbnl.DCB_ATTR_IEEE, status)
		b, err := ae.Encode()
		return dcbnl.RTM_SETDCB, b, err
	}
	return 0, nil, syscall.EINVAL
}

// errnoOf is the errno a Fake's error stands for (EINVAL when it names
// none).
func errnoOf(err error) error {
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return errno
	}
	return syscall.EINVAL
}

// decodeRequest decodes DCB_ATTR_IFNAME, the DCB_ATTR_IEEE nest and
// DCB_ATTR_DCBX (nil when absent) of a request.
func decodeRequest(b []byte) (string, *dcbnl.IEEESet, *uint8, error) {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return "", nil, nil, err
	}
	var (
		ifname string
		s      dcbnl.IEEESet
		mode   *uint8
	)
	for ad.Next() {
		switch ad.Type() {
		case dcbnl.DCB_ATTR_IFNAME:
			ifname = ad.String()
		case dcbnl.DCB_ATTR_DCBX:
			m := ad.Uint8()
			mode = &m
		case dcbnl.DCB_ATTR_IEEE:
			ad.Nested(func(nad *netlink.AttributeDecoder) error {
				for nad.Next() {
					switch nad.Type() {
					case dcbnl.DCB_ATTR_IEEE_ETS:
						s.ETS = &dcbnl.ETS{}
						nad.Do(s.ETS.UnmarshalBinary)
					case dcbnl.DCB_ATTR_IEEE_PFC:
						s.PFC = &dcbnl.PFC{}
						nad.Do(s.PFC.UnmarshalBinary)
					case dcbnl.DCB_ATTR_DCB_BUFFER:
						s.Buffer = &dcbnl.Buffer{}
						nad.Do(s.Buffer.UnmarshalBinary)
					case dcbnl.DCB_ATTR_IEEE_MAXRATE:
						nad.Do(func(b []byte) error {
							if len(b) < dcbnl.SizeofIEEEMaxrate {
								return fmt.Errorf("struct ieee_maxrate of %d bytes", len(b))
							}
							var m [8]uint64
							for i := range m {
								m[i] = binary.NativeEndian.Uint64(b[8*i:])
							}
							s.MaxRate = &m
							return nil
						})
					case dcbnl.DCB_ATTR_DCB_APP_TRUST_TABLE:
						s.AppTrust = []uint8{}
						nad.Nested(func(tad *netlink.AttributeDecoder) error {
							for tad.Next() {
								s.AppTrust = append(s.AppTrust, tad.Uint8())
							}
							return tad.Err()
						})
					case dcbnl.DCB_ATTR_DCB_REWR_TABLE:
						s.Rewr = []dcbnl.App{}
						nad.Nested(func(aad *netlink.AttributeDecoder) error {
							for aad.Next() {
								var a dcbnl.App
								aad.Do(a.UnmarshalBinary)
								s.Rewr = append(s.Rewr, a)
							}
							return aad.Err()
						})
					case dcbnl.DCB_ATTR_IEEE_APP_TABLE:
						s.Apps = []dcbnl.App{}
						nad.Nested(func(aad *netlink.AttributeDecoder) error {
							for aad.Next() {
								var a dcbnl.App
								aad.Do(a.UnmarshalBinary)
								s.Apps = append(s.Apps, a)
							}
							return aad.Err()
						})
					}
				}
				return nad.Err()
			})
		}
	}
	return ifname, &s, mode, ad.Err()
}

// AppendAttr appends a netlink attribute to b as the kernel lays it out
// (struct nlattr: u16 length with the header, u16 type, the value,
// padded to 4 bytes), in host byte order: for tests that build the
// requests they expect by hand, not with the encoder under test.
func AppendAttr(b []byte, typ uint16, v []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(4+len(v)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// appEntries encodes APP entries (or rewrite entries) as the kernel
// does: struct dcb_app typed DCB_ATTR_IEEE_APP, or DCB_ATTR_DCB_APP for
// DCB_APP_SEL_PCP (dcbnl_app_attr_type_get).
func appEntries(apps []dcbnl.App) func(*netlink.AttributeEncoder) error {
	return func(aae *netlink.AttributeEncoder) error {
		for _, a := range apps {
			b, _ := a.MarshalBinary()
			typ := uint16(dcbnl.DCB_ATTR_IEEE_APP)
			if a.Selector == dcbnl.DCB_APP_SEL_PCP {
				typ = dcbnl.DCB_ATTR_DCB_APP
			}
			aae.Bytes(typ, b)
		}
		return nil
	}
}
