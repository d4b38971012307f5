// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"bytes"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
)

// kernelReply sends one DCB netlink request (struct dcbmsg with cmd, then
// attrs) to the real kernel and returns its reply's attributes.
func kernelReply(t *testing.T, cmd uint8, attrs []byte) []byte {
	t.Helper()
	c, err := netlink.Dial(syscall.NETLINK_ROUTE, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: dcbnl.RTM_GETDCB, Flags: netlink.Request},
		Data:   append([]byte{syscall.AF_UNSPEC, cmd, 0, 0}, attrs...),
	})
	if err != nil {
		t.Fatalf("DCB command %d: %v", cmd, err)
	}
	if len(msgs) != 1 || len(msgs[0].Data) < dcbnl.SizeofDCBMsg {
		t.Fatalf("DCB command %d: %d messages", cmd, len(msgs))
	}
	return msgs[0].Data[dcbnl.SizeofDCBMsg:]
}

// attrTree flattens netlink attributes into path -> value: nested ones
// (DCB_ATTR_IEEE, its APP table) by their type path, each APP entry by
// its bytes (the table is a set).
func attrTree(t *testing.T, b []byte, path string, nested map[string]bool, out map[string][]byte) {
	t.Helper()
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for ad.Next() {
		p := fmt.Sprintf("%s/%d", path, ad.Type())
		switch {
		case nested[p]:
			attrTree(t, ad.Bytes(), p, nested, out)
		case path == ieeeAppTable:
			out[fmt.Sprintf("%s/%x", p, ad.Bytes())] = ad.Bytes()
		default:
			out[p] = slices.Clone(ad.Bytes())
		}
	}
	if err := ad.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

var (
	ieeeAttr     = fmt.Sprintf("/%d", dcbnl.DCB_ATTR_IEEE)
	ieeeAppTable = fmt.Sprintf("%s/%d", ieeeAttr, dcbnl.DCB_ATTR_IEEE_APP_TABLE)
)

// The fake kernel the unit tests use (capture/kernel/kerneltest) answers
// DCB_CMD_IEEE_GET and DCB_CMD_GDCBX as the real kernel does: given the
// state the kernel reports, every attribute the fake sends is one the
// kernel sends, at the same place, with the same bytes (the kernel sends
// more: the peer's and QCN, which the fake does not model). A fake
// that drifts from net/dcb/dcbnl.c fails here, not in production.
func TestFakeKernelAnswersAsTheKernel(t *testing.T) {
	freshDevice(t)
	dcbSet(t, "ets", "set", "dev", "dcbt0", "tc-tsa", "0:ets", "1:ets", "2:strict", "3:strict", "4:strict", "5:strict", "6:strict", "7:strict",
		"tc-bw", "0:30", "1:70", "prio-tc", "3:1")
	dcbSet(t, "pfc", "set", "dev", "dcbt0", "prio-pfc", "3:on", "delay", "32")
	dcbSet(t, "app", "add", "dev", "dcbt0", "dscp-prio", "26:3", "ethtype-prio", "0x8915:3", "dgram-port-prio", "4791:3")
	dcbSet(t, "buffer", "set", "dev", "dcbt0", "prio-buffer", "3:1", "buffer-size", "0:131072", "1:131072")

	real, err := dcbnl.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	state, err := real.IEEE("dcbt0")
	if err != nil {
		t.Fatal(err)
	}
	mode, err := real.DCBX("dcbt0")
	if err != nil {
		t.Fatal(err)
	}
	f := kerneltest.NewFake()
	f.State = *state
	f.Mode = &mode

	ae := netlink.NewAttributeEncoder()
	ae.String(dcbnl.DCB_ATTR_IFNAME, "dcbt0")
	req, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	nested := map[string]bool{ieeeAttr: true, ieeeAppTable: true}
	// The attributes the fake must send at least: the interface, the
	// IEEE nest's ETS, PFC, buffer and three APP entries, the DCBX mode;
	// GDCBX's mode alone.
	for cmd, least := range map[uint8]int{dcbnl.DCB_CMD_IEEE_GET: 8, dcbnl.DCB_CMD_GDCBX: 1} {
		kb := kernelReply(t, cmd, req)
		fb, err := f.Reply(cmd, req)
		if err != nil {
			t.Fatalf("fake, command %d: %v", cmd, err)
		}
		kernel, fake := map[string][]byte{}, map[string][]byte{}
		attrTree(t, kb, "", nested, kernel)
		attrTree(t, fb, "", nested, fake)
		if len(fake) < least {
			t.Fatalf("command %d: the fake answered %d attributes", cmd, len(fake))
		}
		for p, v := range fake {
			k, ok := kernel[p]
			switch {
			case !ok:
				t.Errorf("command %d: the fake sends attribute %s, which the kernel does not (kernel: %v)", cmd, p, keys(kernel))
			case !bytes.Equal(k, v):
				t.Errorf("command %d: attribute %s: the fake sends %x, the kernel %x", cmd, p, v, k)
			}
		}
		for p := range kernel {
			if _, ok := fake[p]; !ok {
				t.Logf("command %d: the kernel also sends %s (%d bytes), which the fake does not model", cmd, p, len(kernel[p]))
			}
		}
	}
}

// A driver's refusal of a set reaches user space the same way from the
// fake as from the kernel: in DCB_ATTR_IEEE's status byte of the
// RTM_SETDCB reply ((u8)-errno, net/dcb/dcbnl.c dcbnl_reply), not as a
// netlink error.
func TestFakeKernelRefusesAsTheKernel(t *testing.T) {
	freshDevice(t)
	pfc, err := (&dcbnl.PFC{Cap: 8, Enabled: 1 << 3}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ae := netlink.NewAttributeEncoder()
	ae.String(dcbnl.DCB_ATTR_IFNAME, "dcbt0")
	ae.Nested(dcbnl.DCB_ATTR_IEEE, func(nae *netlink.AttributeEncoder) error {
		nae.Bytes(dcbnl.DCB_ATTR_IEEE_PFC, pfc)
		return nil
	})
	req, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	debugfs(t, "dcbt0", "fail_next", "22")
	kb := kernelReply(t, dcbnl.DCB_CMD_IEEE_SET, req)
	f := kerneltest.NewFake()
	f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "dcbt0", Err: syscall.EINVAL, Driver: true}
	fb, err := f.Reply(dcbnl.DCB_CMD_IEEE_SET, req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kb, fb) {
		t.Errorf("a refused PFC set: the kernel replies %x, the fake %x", kb, fb)
	}
	if want := []byte{5, 0, dcbnl.DCB_ATTR_IEEE, 0, 256 - 22}; !bytes.HasPrefix(kb, want) {
		t.Errorf("the kernel's reply %x, want DCB_ATTR_IEEE = (u8)-EINVAL (%x...)", kb, want)
	}
}

// The driver's answer to DCB_CMD_SDCBX reaches user space the same way
// from the fake as from the kernel: in DCB_ATTR_DCBX's byte of the
// RTM_SETDCB reply (net/dcb/dcbnl.c dcbnl_setdcbx), 1 for a mode the
// driver refuses (0, or IEEE and CEE at once, which dcbtest refuses as
// ixgbe does) and 0 for one it takes (LLD_MANAGED with IEEE), which the
// kernel then reports as the fake does.
func TestFakeKernelAnswersSDCBXAsTheKernel(t *testing.T) {
	freshDevice(t)
	real, err := dcbnl.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	mode, err := real.DCBX("dcbt0")
	if err != nil {
		t.Fatal(err)
	}
	f := kerneltest.NewFake()
	f.Mode = &mode
	for _, m := range []uint8{0, dcbnl.DCB_CAP_DCBX_HOST | dcbnl.DCB_CAP_DCBX_VER_IEEE | dcbnl.DCB_CAP_DCBX_VER_CEE, dcbnl.DCB_CAP_DCBX_LLD_MANAGED | dcbnl.DCB_CAP_DCBX_VER_IEEE} {
		ae := netlink.NewAttributeEncoder()
		ae.String(dcbnl.DCB_ATTR_IFNAME, "dcbt0")
		ae.Uint8(dcbnl.DCB_ATTR_DCBX, m)
		req, err := ae.Encode()
		if err != nil {
			t.Fatal(err)
		}
		kb := kernelReply(t, dcbnl.DCB_CMD_SDCBX, req)
		fb, err := f.Reply(dcbnl.DCB_CMD_SDCBX, req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kb, fb) {
			t.Errorf("SDCBX %#02x: the kernel replies %x, the fake %x", m, kb, fb)
		}
	}
	got, err := real.DCBX("dcbt0")
	if err != nil || f.Mode == nil || got != *f.Mode {
		t.Errorf("after the SDCBXs: the kernel's mode %v (%v), the fake's %v", got, err, f.Mode)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
