// SPDX-License-Identifier: Apache-2.0

//go:build linux

package linkpause

import (
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"github.com/safchain/ethtool"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// A step is one PAUSE_GET the fake kernel expects: the exact request
// payload, and the answer (an errno, or the reply payload).
type step struct {
	req   []byte
	errno syscall.Errno
	reply []byte
}

// fakeKernel answers CTRL_CMD_GETFAMILY (with familyErrno, or replyFamily)
// and then the steps in order, checking every request byte for byte; it
// records what went wrong in t. Its errors carry extAck, when set, as the
// kernel's extended acknowledgement message.
type fakeKernel struct {
	t           *testing.T
	familyErrno syscall.Errno
	steps       []step
	extAck      string

	mu       sync.Mutex
	families int // CTRL_CMD_GETFAMILY requests seen
	n        int // PAUSE_GET requests seen
}

// dial returns a connection whose requests k answers.
func (k *fakeKernel) dial() *netlink.Conn {
	return (&nlfixture.Kernel{Answer: k.answer, ExtAck: k.extAck}).Dial()
}

func (k *fakeKernel) answer(req netlink.Message) ([]netlink.Message, syscall.Errno) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if req.Header.Flags != netlink.Request {
		k.t.Errorf("request flags %v, want exactly NLM_F_REQUEST", req.Header.Flags)
	}
	switch req.Header.Type {
	case genlIDCtrl:
		k.families++
		if diff := cmp.Diff(reqGetFamily, req.Data); diff != "" {
			k.t.Errorf("CTRL_CMD_GETFAMILY request (-want +got):\n%s", diff)
		}
		if k.familyErrno != 0 {
			return nil, k.familyErrno
		}
		return []netlink.Message{{Header: netlink.Header{Type: genlIDCtrl}, Data: replyFamily}}, 0
	case testFamily:
		if k.n >= len(k.steps) {
			k.t.Errorf("PAUSE_GET #%d, want only %d", k.n+1, len(k.steps))
			return nil, syscall.EINVAL
		}
		s := k.steps[k.n]
		k.n++
		if diff := cmp.Diff(s.req, req.Data); diff != "" {
			k.t.Errorf("PAUSE_GET #%d request (-want +got):\n%s", k.n, diff)
		}
		if s.errno != 0 {
			return nil, s.errno
		}
		return []netlink.Message{{Header: netlink.Header{Type: testFamily}, Data: s.reply}}, 0
	}
	k.t.Errorf("request of type %d", req.Header.Type)
	return nil, syscall.EINVAL
}

// fakeIoctl stands in for ETHTOOL_GPAUSEPARAM.
type fakeIoctl struct {
	pause  ethtool.Pause
	err    error
	asked  []string
	closed bool
}

func (f *fakeIoctl) GetPause(ifname string) (ethtool.Pause, error) {
	f.asked = append(f.asked, ifname)
	return f.pause, f.err
}

func (f *fakeIoctl) Close() { f.closed = true }

// TestGet runs Get against the fake kernel: every path from the request
// to a Pause or an error.
func TestGet(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	settings := Settings{Autoneg: On, RX: On, TX: Off}
	tests := []struct {
		name        string
		familyErrno syscall.Errno
		steps       []step
		extAck      string
		ioctl       *fakeIoctl
		want        *Pause
		wantErr     error  // matched with errors.Is
		wantMsg     string // the error's whole message
	}{
		{
			name:  "settings and counters",
			steps: []step{{req: reqPauseStats, reply: replyStats}},
			want: &Pause{Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink,
				Stats: Stats{TxFrames: u64p(5), RxFrames: u64p(1<<32 + 2)}},
		},
		{
			name:  "driver without get_pause_stats",
			steps: []step{{req: reqPauseStats, reply: replyNoStatsOp}},
			want:  &Pause{Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink, Reason: ReasonNoStatsOp},
		},
		{
			name:  "Linux 5.6 to 5.9: the flag refused, asked again without it",
			steps: []step{{req: reqPauseStats, errno: syscall.EOPNOTSUPP}, {req: reqPausePlain, reply: replyPlain}},
			want:  &Pause{Ifname: "eth0", Ifindex: 2, Settings: settings, Source: SourceNetlink, Reason: ReasonOldKernelStats},
		},
		{
			name:  "driver without pause operations",
			steps: []step{{req: reqPauseStats, errno: syscall.EOPNOTSUPP}, {req: reqPausePlain, errno: syscall.EOPNOTSUPP}},
			want:  &Pause{Ifname: "eth0", Source: SourceNetlink, Unsupported: true, Reason: ReasonNoPauseOps},
		},
		{
			name:    "no such device",
			steps:   []step{{req: reqPauseStats, errno: syscall.ENODEV}},
			wantErr: os.ErrNotExist,
			wantMsg: "eth0: no such device",
		},
		{
			name:    "permission denied",
			steps:   []step{{req: reqPauseStats, errno: syscall.EPERM}},
			wantErr: os.ErrPermission,
			wantMsg: "PAUSE_GET eth0: permission denied reading pause settings",
		},
		{
			name:    "no such device on the retry",
			steps:   []step{{req: reqPauseStats, errno: syscall.EOPNOTSUPP}, {req: reqPausePlain, errno: syscall.ENODEV}},
			wantErr: os.ErrNotExist,
			wantMsg: "eth0: no such device",
		},
		{
			name:    "other errno",
			steps:   []step{{req: reqPauseStats, errno: syscall.EBUSY}},
			wantErr: syscall.EBUSY,
			wantMsg: "PAUSE_GET eth0: device or resource busy",
		},
		{
			name:    "other errno, with the kernel's extended acknowledgement",
			steps:   []step{{req: reqPauseStats, errno: syscall.EINVAL}},
			extAck:  "unrecognized request flags",
			wantErr: syscall.EINVAL,
			wantMsg: "PAUSE_GET eth0: invalid argument (unrecognized request flags)",
		},
		{
			name:    "malformed reply",
			steps:   []step{{req: reqPauseStats, reply: replyStats[:len(replyStats)-4]}},
			wantErr: ErrMalformed,
			wantMsg: "PAUSE_GET eth0: malformed ethtool netlink reply: PAUSE_GET reply: attribute 5 has length 28 with 24 bytes left",
		},
		{
			name:    "reply of the wrong command",
			steps:   []step{{req: reqPauseStats, reply: nlfixture.Cat([]byte{0x17, 0x01, 0, 0}, replyStats[4:])}},
			wantErr: ErrMalformed,
			wantMsg: "PAUSE_GET eth0: malformed ethtool netlink reply: PAUSE_GET reply has command 23, want 22",
		},
		{
			name:        "kernel without ethtool netlink: the ioctl",
			familyErrno: syscall.ENOENT,
			ioctl:       &fakeIoctl{pause: ethtool.Pause{Autoneg: 0, RxPause: 1, TxPause: 1}},
			want: &Pause{Ifname: "eth0", Settings: Settings{Autoneg: Off, RX: On, TX: On},
				Source: SourceIoctl, Reason: ReasonIoctl},
		},
		{
			name:        "kernel without ethtool netlink, driver without pause operations",
			familyErrno: syscall.ENOENT,
			ioctl:       &fakeIoctl{err: syscall.EOPNOTSUPP},
			want:        &Pause{Ifname: "eth0", Source: SourceIoctl, Unsupported: true, Reason: ReasonNoPauseOps},
		},
		{
			name:        "kernel without ethtool netlink, no such device",
			familyErrno: syscall.ENOENT,
			ioctl:       &fakeIoctl{err: syscall.ENODEV},
			wantErr:     os.ErrNotExist,
			wantMsg:     "eth0: no such device",
		},
		{
			name:        "family lookup fails otherwise",
			familyErrno: syscall.EACCES,
			wantErr:     os.ErrPermission,
			wantMsg:     "CTRL_GETFAMILY: permission denied reading pause settings",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &fakeKernel{t: t, familyErrno: tt.familyErrno, steps: tt.steps, extAck: tt.extAck}
			c := NewClient(k.dial())
			opened := 0
			c.c.open = func() (pauseIoctl, error) {
				opened++
				if tt.ioctl == nil {
					t.Error("ioctl opened")
					return nil, syscall.EINVAL
				}
				return tt.ioctl, nil
			}
			got, err := c.Get("eth0")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("Get = %+v, %v; want nil and an error matching %v", got, err, tt.wantErr)
				}
				if err.Error() != tt.wantMsg {
					t.Errorf("error %q, want %q", err, tt.wantMsg)
				}
			} else if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Pause (-want +got):\n%s", diff)
			}
			if k.n != len(k.steps) {
				t.Errorf("%d PAUSE_GET requests, want %d", k.n, len(k.steps))
			}
			if tt.ioctl != nil && (opened != 1 || len(tt.ioctl.asked) != 1 || tt.ioctl.asked[0] != "eth0") {
				t.Errorf("ioctl opened %d times and asked %q, want once about eth0", opened, tt.ioctl.asked)
			}
			c.Close()
			if tt.ioctl != nil && !tt.ioctl.closed {
				t.Error("Close did not close the ioctl's socket")
			}
		})
	}
}

// TestFamilyResolvedOnce: the family is asked for once per Client, and a
// missing family once too.
func TestFamilyResolvedOnce(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	k := &fakeKernel{t: t, steps: []step{
		{req: reqPauseStats, reply: replyStats},
		{req: reqPauseStats, reply: replyStats},
	}}
	c := NewClient(k.dial())
	defer c.Close()
	for range 2 {
		if _, err := c.Get("eth0"); err != nil {
			t.Fatal(err)
		}
	}
	if k.families != 1 {
		t.Errorf("%d CTRL_CMD_GETFAMILY requests, want 1", k.families)
	}

	k = &fakeKernel{t: t, familyErrno: syscall.ENOENT}
	c = NewClient(k.dial())
	defer c.Close()
	io := &fakeIoctl{}
	c.c.open = func() (pauseIoctl, error) { return io, nil }
	for range 2 {
		if _, err := c.Get("eth0"); err != nil {
			t.Fatal(err)
		}
	}
	if k.families != 1 || len(io.asked) != 2 {
		t.Errorf("%d CTRL_CMD_GETFAMILY requests and %d ioctls, want 1 and 2", k.families, len(io.asked))
	}
}

// TestGetBadName: names that cannot exist are refused without a request.
func TestGetBadName(t *testing.T) {
	k := &fakeKernel{t: t}
	c := NewClient(k.dial())
	defer c.Close()
	for _, name := range []string{"", "a-name-of-16-chr", "et\x00h0"} {
		p, err := c.Get(name)
		if !errors.Is(err, os.ErrNotExist) || p != nil || !strings.Contains(err.Error(), "no such device") {
			t.Errorf("Get(%q) = %+v, %v; want os.ErrNotExist", name, p, err)
		}
	}
	if k.families != 0 || k.n != 0 {
		t.Errorf("%d requests sent, want none", k.families+k.n)
	}
}
