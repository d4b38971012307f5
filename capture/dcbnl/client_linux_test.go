// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// newFake returns a Client whose kernel is answer, which returns the reply
// type and data for a request, or an errno to send back as a netlink
// error; the fake kernel records the requests.
func newFake(t *testing.T, answer func(req netlink.Message) (netlink.HeaderType, []byte, syscall.Errno)) (*Client, *nlfixture.Kernel) {
	t.Helper()
	nlfixture.RequireLittleEndian(t)
	fk := &nlfixture.Kernel{Answer: func(req netlink.Message) ([]netlink.Message, syscall.Errno) {
		typ, data, errno := answer(req)
		if errno != 0 {
			return nil, errno
		}
		// dcbnl_newmsg copies the request's flags.
		return []netlink.Message{{Header: netlink.Header{Type: typ, Flags: req.Header.Flags}, Data: data}}, 0
	}}
	c := NewClient(fk.Dial())
	t.Cleanup(func() { c.Close() })
	return c, fk
}

// reply returns an answer function that always sends data as typ.
func reply(typ netlink.HeaderType, data []byte) func(netlink.Message) (netlink.HeaderType, []byte, syscall.Errno) {
	return func(netlink.Message) (netlink.HeaderType, []byte, syscall.Errno) { return typ, data, 0 }
}

// fail returns an answer function that always sends errno.
func fail(errno syscall.Errno) func(netlink.Message) (netlink.HeaderType, []byte, syscall.Errno) {
	return func(netlink.Message) (netlink.HeaderType, []byte, syscall.Errno) { return 0, nil, errno }
}

// TestRequests checks the exact bytes of each request: netlink header (type
// and NLM_F_REQUEST, without NLM_F_ACK), struct dcbmsg, DCB_ATTR_IFNAME and
// the command's attributes.
func TestRequests(t *testing.T) {
	tests := []struct {
		name  string
		reply []byte
		typ   netlink.HeaderType
		call  func(c *Client) error
		want  []byte
	}{
		{
			name:  "IEEE_GET",
			reply: replyIEEEMinimal, typ: RTM_GETDCB,
			call: func(c *Client) error { _, err := c.IEEE("eth0"); return err },
			want: nlfixture.Cat(
				[]byte{0x20, 0x00, 0x00, 0x00}, // nlmsg_len 32
				[]byte{0x4e, 0x00},             // RTM_GETDCB
				[]byte{0x01, 0x00},             // NLM_F_REQUEST
				make([]byte, 8),                // seq, pid (zeroed by wire)
				[]byte{0x00, 0x15, 0x00, 0x00}, // dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET, pad
				ifnameEth0,                     // IFNAME
			),
		},
		{
			name:  "IEEE_SET",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{ETS: &etsWant, PFC: &pfcWant, Apps: []App{appFCoEWant, appRoCEWant}})
			},
			want: nlfixture.Cat(
				[]byte{0x04, 0x01, 0x00, 0x00}, // nlmsg_len 260
				[]byte{0x4f, 0x00},             // RTM_SETDCB
				[]byte{0x01, 0x00},             // NLM_F_REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00}, // dcbmsg: DCB_CMD_IEEE_SET
				ifnameEth0,
				[]byte{0xe4, 0x00, 0x0d, 0x80}, // DCB_ATTR_IEEE|NLA_F_NESTED, len 228
				[]byte{0x3f, 0x00, 0x01, 0x00}, // DCB_ATTR_IEEE_ETS, len 63
				etsBytes, []byte{0x00},         // 59 bytes + 1 padding
				[]byte{0x8c, 0x00, 0x02, 0x00}, // DCB_ATTR_IEEE_PFC, len 140
				pfcBytes,                       // 136 bytes, padding included
				[]byte{0x14, 0x00, 0x03, 0x80}, // DCB_ATTR_IEEE_APP_TABLE|NLA_F_NESTED, len 20
				[]byte{0x08, 0x00, 0x01, 0x00, 0x01, 0x03, 0x06, 0x89}, // IEEE_APP: ethertype 0x8906 prio 3
				[]byte{0x08, 0x00, 0x01, 0x00, 0x03, 0x03, 0xb7, 0x12}, // IEEE_APP: UDP 4791 prio 3
			),
		},
		{
			name:  "IEEE_SET PCP app",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{Apps: []App{{Selector: DCB_APP_SEL_PCP, Priority: 5, Protocol: 3}}})
			},
			want: nlfixture.Cat(
				[]byte{0x30, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 48, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00},
				ifnameEth0,
				[]byte{0x10, 0x00, 0x0d, 0x80}, // DCB_ATTR_IEEE, len 16
				[]byte{0x0c, 0x00, 0x03, 0x80}, // APP_TABLE, len 12
				[]byte{0x08, 0x00, 0x02, 0x00, 0xff, 0x05, 0x03, 0x00}, // DCB_ATTR_DCB_APP: PCP 3 → prio 5
			),
		},
		{
			// dcbnl_ieee_set reads DCB_ATTR_DCB_APP_TRUST_TABLE's entries
			// as u8 selectors, each typed as dcbnl_app_attr_type_get types
			// it: DCB_ATTR_IEEE_APP for an IEEE selector, DCB_ATTR_DCB_APP
			// for PCP.
			name:  "IEEE_SET trust dscp, pcp",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{AppTrust: []uint8{IEEE_8021QAZ_APP_SEL_DSCP, DCB_APP_SEL_PCP}})
			},
			want: nlfixture.Cat(
				[]byte{0x38, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 56, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00},
				ifnameEth0,
				[]byte{0x18, 0x00, 0x0d, 0x80}, // DCB_ATTR_IEEE, len 24
				[]byte{0x14, 0x00, 0x0b, 0x80}, // DCB_ATTR_DCB_APP_TRUST_TABLE|NLA_F_NESTED, len 20
				[]byte{0x05, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00}, // DCB_ATTR_IEEE_APP: DSCP (5), padded
				[]byte{0x05, 0x00, 0x02, 0x00, 0xff, 0x00, 0x00, 0x00}, // DCB_ATTR_DCB_APP: PCP (255), padded
			),
		},
		{
			// struct dcbnl_buffer: prio2buffer[8], u32 buffer_size[8],
			// u32 total_size.
			name:  "IEEE_SET buffer",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{Buffer: &Buffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, Size: [8]uint32{0x10000, 0x20000}, TotalSize: 0x40000}})
			},
			want: nlfixture.Cat(
				[]byte{0x54, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 84, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00},
				ifnameEth0,
				[]byte{0x34, 0x00, 0x0d, 0x80},                         // DCB_ATTR_IEEE, len 52
				[]byte{0x30, 0x00, 0x0a, 0x00},                         // DCB_ATTR_DCB_BUFFER, len 48
				[]byte{0, 0, 0, 1, 0, 0, 0, 0},                         // prio2buffer
				[]byte{0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00}, // buffer_size[0..1]
				make([]byte, 24),                                       // buffer_size[2..7]
				[]byte{0x00, 0x00, 0x04, 0x00},                         // total_size
			),
		},
		{
			// struct ieee_maxrate: 8 × u64 kbit/s, host byte order.
			name:  "IEEE_SET maxrate",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{MaxRate: &[8]uint64{1: 10_000_000, 3: 25_000_000}})
			},
			want: nlfixture.Cat(
				[]byte{0x68, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 104, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00},
				ifnameEth0,
				[]byte{0x48, 0x00, 0x0d, 0x80}, // DCB_ATTR_IEEE, len 72
				[]byte{0x44, 0x00, 0x07, 0x00}, // DCB_ATTR_IEEE_MAXRATE, len 68
				make([]byte, 8),                // TC0 unlimited
				[]byte{0x80, 0x96, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00}, // TC1 10,000,000 kbit/s
				make([]byte, 8), // TC2
				[]byte{0x40, 0x78, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00}, // TC3 25,000,000 kbit/s
				make([]byte, 32), // TC4-7
			),
		},
		{
			// DCB_ATTR_DCB_REWR_TABLE (12), entries typed as the APP
			// table's (Linux 6.3 dcbnl_app_table_setdel).
			name:  "IEEE_SET rewrite",
			reply: replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.SetIEEE("eth0", &IEEESet{Rewr: []App{{Selector: IEEE_8021QAZ_APP_SEL_DSCP, Priority: 3, Protocol: 26}}})
			},
			want: nlfixture.Cat(
				[]byte{0x30, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 48, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x14, 0x00, 0x00},
				ifnameEth0,
				[]byte{0x10, 0x00, 0x0d, 0x80}, // DCB_ATTR_IEEE, len 16
				[]byte{0x0c, 0x00, 0x0c, 0x80}, // DCB_ATTR_DCB_REWR_TABLE|NLA_F_NESTED, len 12
				[]byte{0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00}, // IEEE_APP: DSCP 26 for priority 3
			),
		},
		{
			name:  "IEEE_DEL rewrite",
			reply: replyStatus(DCB_CMD_IEEE_DEL, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error {
				return c.DelRewr("eth0", []App{{Selector: IEEE_8021QAZ_APP_SEL_DSCP, Priority: 3, Protocol: 26}})
			},
			want: nlfixture.Cat(
				[]byte{0x30, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00},
				make([]byte, 8),
				[]byte{0x00, 0x1b, 0x00, 0x00}, // DCB_CMD_IEEE_DEL
				ifnameEth0,
				[]byte{0x10, 0x00, 0x0d, 0x80},
				[]byte{0x0c, 0x00, 0x0c, 0x80},
				[]byte{0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00},
			),
		},
		{
			name:  "IEEE_DEL",
			reply: replyStatus(DCB_CMD_IEEE_DEL, DCB_ATTR_IEEE, 0), typ: RTM_SETDCB,
			call: func(c *Client) error { return c.DelApps("eth0", []App{appDSCPWant}) },
			want: nlfixture.Cat(
				[]byte{0x30, 0x00, 0x00, 0x00}, // nlmsg_len 48
				[]byte{0x4f, 0x00, 0x01, 0x00}, // RTM_SETDCB, NLM_F_REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x1b, 0x00, 0x00}, // dcbmsg: DCB_CMD_IEEE_DEL
				ifnameEth0,
				[]byte{0x10, 0x00, 0x0d, 0x80},                         // DCB_ATTR_IEEE|NLA_F_NESTED, len 16
				[]byte{0x0c, 0x00, 0x03, 0x80},                         // DCB_ATTR_IEEE_APP_TABLE|NLA_F_NESTED, len 12
				[]byte{0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00}, // IEEE_APP: DSCP 26 prio 3
			),
		},
		{
			name:  "GDCBX",
			reply: replyStatus(DCB_CMD_GDCBX, DCB_ATTR_DCBX, 0x09), typ: RTM_GETDCB,
			call: func(c *Client) error { _, err := c.DCBX("eth0"); return err },
			want: nlfixture.Cat(
				[]byte{0x20, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x01, 0x00}, // len 32, RTM_GETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x16, 0x00, 0x00}, // dcbmsg: DCB_CMD_GDCBX
				ifnameEth0,
			),
		},
		{
			name:  "SDCBX",
			reply: replyStatus(DCB_CMD_SDCBX, DCB_ATTR_DCBX, 0), typ: RTM_SETDCB,
			call: func(c *Client) error { return c.SetDCBX("eth0", ModeHost|ModeIEEE) },
			want: nlfixture.Cat(
				[]byte{0x28, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x01, 0x00}, // len 40, RTM_SETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x17, 0x00, 0x00}, // dcbmsg: DCB_CMD_SDCBX
				ifnameEth0,
				[]byte{0x05, 0x00, 0x0e, 0x00, 0x09, 0x00, 0x00, 0x00}, // DCB_ATTR_DCBX = HOST|VER_IEEE
			),
		},
		{
			name:  "CEE_GET",
			reply: replyCEE, typ: RTM_GETDCB,
			call: func(c *Client) error { _, err := c.CEE("eth0"); return err },
			want: nlfixture.Cat(
				[]byte{0x20, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x01, 0x00}, // len 32, RTM_GETDCB, REQUEST
				make([]byte, 8),
				[]byte{0x00, 0x1a, 0x00, 0x00}, // dcbmsg: DCB_CMD_CEE_GET
				ifnameEth0,
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fk := newFake(t, reply(tt.typ, tt.reply))
			if err := tt.call(c); err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := fk.Requests()
			if len(reqs) != 1 {
				t.Fatalf("sent %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(tt.want, nlfixture.Wire(t, reqs[0])); diff != "" {
				t.Errorf("request bytes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIEEEReplies decodes IEEE_GET replies built to dcbnl_ieee_fill's layout.
func TestIEEEReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply []byte
		want  *IEEE
	}{
		{"peer ETS/PFC/APP, MAXRATE and DCBX", replyIEEEFull, &replyIEEEFullWant},
		{"a 6.3 kernel's rewrite table", replyIEEERewr, &replyIEEERewrWant},
		{"only ETS, PFC and APP_TABLE", replyIEEEMinimal, &replyIEEEMinimalWant},
		{"NLA_F_NESTED set, empty APP table, longer ETS, APP trust", replyIEEEFlagged, &replyIEEEFlaggedWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newFake(t, reply(RTM_GETDCB, tt.reply))
			got, err := c.IEEE("eth0")
			if err != nil {
				t.Fatalf("IEEE: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("IEEE (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCEEReply decodes a CEE_GET reply built to dcbnl_cee_fill's layout.
func TestCEEReply(t *testing.T) {
	c, _ := newFake(t, reply(RTM_GETDCB, replyCEE))
	got, err := c.CEE("eth0")
	if err != nil {
		t.Fatalf("CEE: %v", err)
	}
	if diff := cmp.Diff(&replyCEEWant, got); diff != "" {
		t.Errorf("CEE (-want +got):\n%s", diff)
	}
}

// TestDCBXReply decodes the GDCBX reply.
func TestDCBXReply(t *testing.T) {
	c, _ := newFake(t, reply(RTM_GETDCB, replyStatus(DCB_CMD_GDCBX, DCB_ATTR_DCBX, 0x0e)))
	m, err := c.DCBX("eth0")
	if err != nil {
		t.Fatalf("DCBX: %v", err)
	}
	if want := ModeLLDManaged | ModeCEE | ModeIEEE; m != want {
		t.Errorf("DCBX = %#x, want %#x", uint8(m), uint8(want))
	}
	if got, want := m.String(), "firmware-managed (LLD_MANAGED), IEEE+CEE"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// TestDriverStatus checks the u8 status that SET commands return inside the
// reply: (u8)-errno from the driver, or a positive refusal from setdcbx.
func TestDriverStatus(t *testing.T) {
	set := func(c *Client) error { return c.SetIEEE("eth0", &IEEESet{ETS: &etsWant}) }
	tests := []struct {
		name    string
		reply   []byte
		call    func(c *Client) error
		errno   syscall.Errno // 0: no errno (ErrRefused)
		message string
	}{
		{"IEEE_SET EINVAL", replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 234), set, unix.EINVAL,
			"driver rejected IEEE_SET on eth0: invalid argument"},
		{"IEEE_SET EOPNOTSUPP", replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 161), set, unix.EOPNOTSUPP,
			"driver rejected IEEE_SET on eth0: operation not supported"},
		{"IEEE_SET ERANGE", replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 222), set, unix.ERANGE,
			"driver rejected IEEE_SET on eth0: numerical result out of range"},
		{"IEEE_SET EEXIST", replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 239), set, unix.EEXIST,
			"driver rejected IEEE_SET on eth0: file exists"},
		{"IEEE_DEL ENOENT", replyStatus(DCB_CMD_IEEE_DEL, DCB_ATTR_IEEE, 254),
			func(c *Client) error { return c.DelApps("eth0", []App{appFCoEWant}) }, unix.ENOENT,
			"driver rejected IEEE_DEL on eth0: no such file or directory"},
		{"SDCBX refused", replyStatus(DCB_CMD_SDCBX, DCB_ATTR_DCBX, 1),
			func(c *Client) error { return c.SetDCBX("eth0", ModeLLDManaged) }, 0,
			"driver rejected SDCBX on eth0: refused (status 1)"},
		{"IEEE_SET EPERM from the driver", replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 255), set, unix.EPERM,
			"driver rejected IEEE_SET on eth0: operation not permitted"},
		{"SDCBX errno", replyStatus(DCB_CMD_SDCBX, DCB_ATTR_DCBX, 234),
			func(c *Client) error { return c.SetDCBX("eth0", ModeLLDManaged) }, unix.EINVAL,
			"driver rejected SDCBX on eth0: invalid argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newFake(t, reply(RTM_SETDCB, tt.reply))
			err := tt.call(c)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error = %v (%T), want *Error", err, err)
			}
			if !e.Driver {
				t.Errorf("Driver = false, want true")
			}
			if got := err.Error(); got != tt.message {
				t.Errorf("message = %q, want %q", got, tt.message)
			}
			if tt.errno != 0 && !errors.Is(err, tt.errno) {
				t.Errorf("errors.Is(err, %v) = false", tt.errno)
			}
			if tt.errno == 0 && !errors.Is(err, ErrRefused) {
				t.Errorf("errors.Is(err, ErrRefused) = false")
			}
			for _, other := range []error{ErrNoDCB, os.ErrNotExist, os.ErrPermission, errors.ErrUnsupported} {
				if errors.Is(err, other) {
					t.Errorf("a driver status matches %v", other)
				}
			}
			if errno, ok := errors.AsType[syscall.Errno](err); tt.errno != 0 && (!ok || errno != tt.errno) {
				t.Errorf("errors.As(err, *syscall.Errno) = %v, %v; want %v", errno, ok, tt.errno)
			}
		})
	}
	t.Run("success", func(t *testing.T) {
		c, _ := newFake(t, reply(RTM_SETDCB, replyStatus(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 0)))
		if err := set(c); err != nil {
			t.Errorf("SetIEEE with status 0: %v", err)
		}
	})
}

// TestNetlinkErrors checks the errors dcb_doit returns as NLMSG_ERROR for
// every command: messages and errors.Is.
func TestNetlinkErrors(t *testing.T) {
	calls := []struct {
		op   string
		call func(c *Client) error
	}{
		{"IEEE_GET", func(c *Client) error { _, err := c.IEEE("eth0"); return err }},
		{"IEEE_SET", func(c *Client) error { return c.SetIEEE("eth0", &IEEESet{PFC: &pfcWant}) }},
		{"IEEE_DEL", func(c *Client) error { return c.DelApps("eth0", []App{appFCoEWant}) }},
		{"GDCBX", func(c *Client) error { _, err := c.DCBX("eth0"); return err }},
		{"SDCBX", func(c *Client) error { return c.SetDCBX("eth0", ModeHost) }},
		{"CEE_GET", func(c *Client) error { _, err := c.CEE("eth0"); return err }},
	}
	errs := []struct {
		errno   syscall.Errno
		target  error
		message string // with OP for the command's name
	}{
		{unix.EOPNOTSUPP, ErrNoDCB, "eth0 has no DCB netlink support (driver without dcbnl_ops)"},
		{unix.ENODEV, os.ErrNotExist, "eth0: no such device"},
		{unix.EPERM, os.ErrPermission, "OP eth0: permission denied (needs CAP_NET_ADMIN)"},
		{unix.EINVAL, unix.EINVAL, "OP eth0: invalid argument"},
	}
	for _, call := range calls {
		for _, tt := range errs {
			t.Run(call.op+"/"+tt.errno.Error(), func(t *testing.T) {
				c, _ := newFake(t, fail(tt.errno))
				err := call.call(c)
				e, ok := errors.AsType[*Error](err)
				if !ok {
					t.Fatalf("error = %v (%T), want *Error", err, err)
				}
				if e.Op != call.op || e.Ifname != "eth0" || e.Err != tt.errno || e.Driver {
					t.Errorf("Error = %+v, want Op %s, Ifname eth0, Err %v, Driver false", e, call.op, tt.errno)
				}
				if want := strings.ReplaceAll(tt.message, "OP", call.op); err.Error() != want {
					t.Errorf("message = %q, want %q", err.Error(), want)
				}
				if !errors.Is(err, tt.target) {
					t.Errorf("errors.Is(err, %v) = false", tt.target)
				}
				if !errors.Is(err, tt.errno) {
					t.Errorf("errors.Is(err, %v) = false", tt.errno)
				}
				for _, other := range []error{ErrNoDCB, os.ErrNotExist, os.ErrPermission} {
					if other != tt.target && errors.Is(err, other) {
						t.Errorf("errors.Is(err, %v) = true", other)
					}
				}
			})
		}
	}
}

// TestMissingCallback: GDCBX and SDCBX answer EOPNOTSUPP both for a device
// without dcbnl_ops and for a driver without getdcbx/setdcbx; the client
// tells them apart with IEEE_GET.
func TestMissingCallback(t *testing.T) {
	answer := func(req netlink.Message) (netlink.HeaderType, []byte, syscall.Errno) {
		if req.Data[1] == DCB_CMD_IEEE_GET {
			return RTM_GETDCB, replyIEEEMinimal, 0
		}
		return 0, nil, unix.EOPNOTSUPP
	}
	c, fk := newFake(t, answer)
	_, err := c.DCBX("eth0")
	if errors.Is(err, ErrNoDCB) {
		t.Errorf("DCBX error matches ErrNoDCB for a driver with dcbnl_ops")
	}
	if !errors.Is(err, unix.EOPNOTSUPP) {
		t.Errorf("DCBX error = %v, want EOPNOTSUPP", err)
	}
	if got, want := err.Error(), "eth0: GDCBX not supported by the driver (dcbnl_ops without getdcbx)"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if reqs := fk.Requests(); len(reqs) != 2 || reqs[1].Data[1] != DCB_CMD_IEEE_GET {
		t.Errorf("requests: %d, want GDCBX then IEEE_GET", len(reqs))
	}
	err = c.SetDCBX("eth0", ModeHost|ModeIEEE)
	if got, want := err.Error(), "eth0: SDCBX not supported by the driver (dcbnl_ops without setdcbx)"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

// TestMalformedReplies checks that replies the package cannot decode give a
// clear *Error matching ErrMalformed, and never panic.
func TestMalformedReplies(t *testing.T) {
	get := func(c *Client) error { _, err := c.IEEE("eth0"); return err }
	set := func(c *Client) error { return c.SetIEEE("eth0", &IEEESet{ETS: &etsWant}) }
	tests := []struct {
		name    string
		typ     netlink.HeaderType
		reply   []byte
		call    func(c *Client) error
		message string
	}{
		{"ETS of 58 bytes", RTM_GETDCB, replyIEEEShortETS, get,
			"IEEE_GET eth0: malformed dcbnl message: DCB_ATTR_IEEE_ETS: struct ieee_ets needs 59 bytes, got 58"},
		{"PFC of 135 bytes", RTM_GETDCB, nlfixture.Cat(
			[]byte{0x00, 21, 0x00, 0x00}, ifnameEth0,
			[]byte{0x90, 0x00, 0x0d, 0x00},                               // DCB_ATTR_IEEE, len 144
			[]byte{0x8b, 0x00, 0x02, 0x00}, pfcBytes[:135], []byte{0x00}, // PFC, len 139
		), get, "IEEE_GET eth0: malformed dcbnl message: DCB_ATTR_IEEE_PFC: struct ieee_pfc needs 136 bytes, got 135"},
		{"APP entry of 3 bytes", RTM_GETDCB, nlfixture.Cat(
			[]byte{0x00, 21, 0x00, 0x00}, ifnameEth0,
			[]byte{0x10, 0x00, 0x0d, 0x00},                         // DCB_ATTR_IEEE, len 16
			[]byte{0x0c, 0x00, 0x03, 0x00},                         // APP_TABLE, len 12
			[]byte{0x07, 0x00, 0x01, 0x00, 0x01, 0x03, 0x06, 0x00}, // IEEE_APP, len 7
		), get, "IEEE_GET eth0: malformed dcbnl message: DCB_ATTR_IEEE_APP: struct dcb_app needs 4 bytes, got 3"},
		{"MAXRATE of 8 bytes", RTM_GETDCB, nlfixture.Cat(
			[]byte{0x00, 21, 0x00, 0x00}, ifnameEth0,
			[]byte{0x10, 0x00, 0x0d, 0x00},
			[]byte{0x0c, 0x00, 0x07, 0x00}, make([]byte, 8),
		), get, "IEEE_GET eth0: malformed dcbnl message: DCB_ATTR_IEEE_MAXRATE: struct ieee_maxrate needs 64 bytes, got 8"},
		{"attribute longer than the message", RTM_GETDCB, nlfixture.Cat(
			[]byte{0x00, 21, 0x00, 0x00}, ifnameEth0,
			[]byte{0x40, 0x00, 0x0d, 0x00}, // DCB_ATTR_IEEE, len 64, but 4 bytes follow
			[]byte{0x04, 0x00, 0x03, 0x00},
		), get, "IEEE_GET eth0: malformed dcbnl message: invalid attribute; length too short or too large"},
		{"no IEEE nest", RTM_GETDCB, nlfixture.Cat([]byte{0x00, 21, 0x00, 0x00}, ifnameEth0), get,
			"IEEE_GET eth0: malformed dcbnl message: no DCB_ATTR_IEEE nest"},
		{"reply for another command", RTM_GETDCB, replyCEE, get,
			"IEEE_GET eth0: malformed dcbnl message: reply for command 26, want 21"},
		{"reply shorter than dcbmsg", RTM_GETDCB, []byte{0x00, 21}, get,
			"IEEE_GET eth0: malformed dcbnl message: reply of 2 bytes is shorter than struct dcbmsg"},
		{"reply of the wrong type", RTM_SETDCB, replyIEEEMinimal, get,
			"IEEE_GET eth0: malformed dcbnl message: no reply of type 78 among 1 messages"},
		{"SET reply without status", RTM_SETDCB, []byte{0x00, 20, 0x00, 0x00}, set,
			"IEEE_SET eth0: malformed dcbnl message: no DCB_ATTR_IEEE in the reply"},
		{"SET status empty", RTM_SETDCB, []byte{0x00, 20, 0x00, 0x00, 0x04, 0x00, 0x0d, 0x00}, set,
			"IEEE_SET eth0: malformed dcbnl message: DCB_ATTR_IEEE: u8 attribute is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newFake(t, reply(tt.typ, tt.reply))
			err := tt.call(c)
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != tt.message {
				t.Errorf("message = %q, want %q", got, tt.message)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("errors.Is(err, ErrMalformed) = false")
			}
		})
	}
}

// TestBadIfname: names that cannot exist are refused without a request.
func TestBadIfname(t *testing.T) {
	for _, name := range []string{"", "sixteen-chars-xx", "a\x00b"} {
		c, fk := newFake(t, fail(unix.EINVAL))
		_, err := c.IEEE(name)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("IEEE(%q) = %v, want os.ErrNotExist", name, err)
		}
		if !strings.Contains(err.Error(), "no such device") {
			t.Errorf("IEEE(%q) message = %q", name, err)
		}
		if len(fk.Requests()) != 0 {
			t.Errorf("IEEE(%q) sent a request", name)
		}
	}
	c, _ := newFake(t, reply(RTM_GETDCB, replyIEEEMinimal))
	if _, err := c.IEEE("fifteen-chars-x"); err != nil {
		t.Errorf("IEEE of a 15-byte name: %v", err)
	}
}
