// SPDX-License-Identifier: Apache-2.0

package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// peerConn is an interface's capture socket on which an IEEE DCBX switch
// advertises PFC on priority 3 every 200 ms; what dcbtop sends is taken.
type peerConn struct{ frame []byte }

func (c *peerConn) ReadFrame(ctx context.Context) (capture.Frame, error) {
	select {
	case <-ctx.Done():
		return capture.Frame{}, ctx.Err()
	case <-time.After(200 * time.Millisecond):
	}
	return capture.Frame{Interface: "mlx0", At: time.Now(), Dir: capture.DirectionIncoming, Data: c.frame}, nil
}
func (c *peerConn) WriteFrame([]byte) error           { return nil }
func (c *peerConn) Stats() (capture.LiveStats, error) { return capture.LiveStats{}, nil }
func (c *peerConn) Close() error                      { return nil }
func (c *peerConn) Pending() (bool, error)            { return false, nil }

// switchPFC3 is the LLDPDU of an IEEE DCBX switch, not willing, that
// enables PFC on priority 3.
func switchPFC3(t *testing.T) []byte {
	t.Helper()
	sw := lldp.MAC{2, 0, 0, 0, 0, 0x51}
	du := &lldp.DU{ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: sw[:]},
		PortID: lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")}, TTL: 120,
		TLVs: []lldp.TLV{&lldp.PFC{Cap: 8, Enabled: 1 << 3}}}
	frame, err := lldp.AppendFrame(nil, lldp.NearestBridge, sw, du)
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// fakeDCB dials DCB netlink on a fake kernel whose NIC has ETS 50/50,
// PFC on priority 3 with frame counts that grow with every read, DSCP
// 26 on priority 3 and a host-run IEEE DCBX (DCB_CMD_IEEE_GET as
// net/dcb/dcbnl.c dcbnl_ieee_fill fills it).
func fakeDCB(t *testing.T) func(nlclient.Recorder) (*dcbnl.Client, error) {
	var reads atomic.Uint64
	return func(rec nlclient.Recorder) (*dcbnl.Client, error) {
		c := dcbnl.NewClient(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
			if len(reqs) == 0 {
				return nil, nil
			}
			req := reqs[0]
			if len(req.Data) < dcbnl.SizeofDCBMsg {
				return nltest.Error(int(syscall.EINVAL), reqs)
			}
			cmd := req.Data[1]
			ae := netlink.NewAttributeEncoder()
			ae.String(dcbnl.DCB_ATTR_IFNAME, "mlx0")
			switch cmd {
			case dcbnl.DCB_CMD_IEEE_GET:
				n := reads.Add(1)
				ets := &dcbnl.ETS{ETSCap: 8, TCTxBW: [8]uint8{50, 50}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}, PrioTC: [8]uint8{0, 0, 0, 1}}
				pfc := &dcbnl.PFC{Cap: 8, Enabled: 1 << 3, Delay: 32}
				pfc.Requests[3], pfc.Indications[3] = 100*n, 40*n
				app := dcbnl.App{Selector: 5, Priority: 3, Protocol: 26}
				ae.Nested(dcbnl.DCB_ATTR_IEEE, func(ne *netlink.AttributeEncoder) error {
					for typ, m := range map[uint16]interface{ MarshalBinary() ([]byte, error) }{dcbnl.DCB_ATTR_IEEE_ETS: ets, dcbnl.DCB_ATTR_IEEE_PFC: pfc} {
						b, err := m.MarshalBinary()
						if err != nil {
							return err
						}
						ne.Bytes(typ, b)
					}
					ne.Nested(dcbnl.DCB_ATTR_IEEE_APP_TABLE, func(ae *netlink.AttributeEncoder) error {
						b, err := app.MarshalBinary()
						ae.Bytes(dcbnl.DCB_ATTR_IEEE_APP, b)
						return err
					})
					return nil
				})
				ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(dcbnl.ModeHost|dcbnl.ModeIEEE))
			case dcbnl.DCB_CMD_GDCBX:
				ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(dcbnl.ModeHost|dcbnl.ModeIEEE))
			default:
				return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
			}
			attrs, err := ae.Encode()
			if err != nil {
				t.Error(err)
				return nil, err
			}
			return []netlink.Message{{Header: netlink.Header{Type: dcbnl.RTM_GETDCB, Sequence: req.Header.Sequence, PID: req.Header.PID},
				Data: append([]byte{syscall.AF_UNSPEC, cmd, 0, 0}, attrs...)}}, nil
		}))
		c.SetRecorder(rec)
		return c, nil
	}
}

// fakePause dials ethtool netlink on a fake kernel: "ethtool" is family
// 20, and PAUSE_GET answers PAUSE on in both directions with received
// frames that grow with every read (net/ethtool/pause.c pause_fill_reply).
func fakePause() func(nlclient.Recorder) (*linkpause.Client, error) {
	var reads atomic.Uint64
	return func(rec nlclient.Recorder) (*linkpause.Client, error) {
		c := linkpause.NewClient(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
			if len(reqs) == 0 {
				return nil, nil
			}
			req := reqs[0]
			ae := netlink.NewAttributeEncoder()
			var cmd uint8
			switch req.Header.Type {
			case 0x10: // GENL_ID_CTRL: CTRL_CMD_NEWFAMILY
				cmd = 1
				ae.Uint16(1, 20)        // CTRL_ATTR_FAMILY_ID
				ae.String(2, "ethtool") // CTRL_ATTR_FAMILY_NAME
			case 20:
				cmd = 22 // ETHTOOL_MSG_PAUSE_GET_REPLY
				n := reads.Add(1)
				ae.Nested(1, func(ne *netlink.AttributeEncoder) error { // ETHTOOL_A_PAUSE_HEADER
					ne.Uint32(1, 2)      // DEV_INDEX
					ne.String(2, "mlx0") // DEV_NAME
					return nil
				})
				ae.Uint8(2, 0)                                          // AUTONEG
				ae.Uint8(3, 1)                                          // RX
				ae.Uint8(4, 1)                                          // TX
				ae.Nested(5, func(ne *netlink.AttributeEncoder) error { // STATS
					ne.Uint64(2, 0)      // TX_FRAMES
					ne.Uint64(3, 1000*n) // RX_FRAMES
					return nil
				})
			default:
				return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
			}
			attrs, err := ae.Encode()
			if err != nil {
				return nil, err
			}
			return []netlink.Message{{Header: netlink.Header{Type: req.Header.Type, Sequence: req.Header.Sequence, PID: req.Header.PID},
				Data: append([]byte{cmd, 1, 0, 0}, attrs...)}}, nil
		}))
		c.SetRecorder(rec)
		return c, nil
	}
}

// fakeRDMA dials RDMA netlink on a kernel that refuses every request
// (EOPNOTSUPP): each RoCE port says why its optional counters are unread.
func fakeRDMA(rec nlclient.Recorder) (*rdmastat.Client, error) {
	c := rdmastat.NewClient(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, nil
		}
		return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
	}))
	c.SetRecorder(rec)
	return c, nil
}

// TestRecordReplayHost records a live run with -w on an interface whose
// NIC answers DCB and ethtool netlink through an nltest fake kernel (its
// DCB state the local parameters, PFC counts that grow, PAUSE frames
// received), whose RDMA netlink refuses, whose sysfs is the mlx5 fixture
// and whose ethtool -S is recorded, with an IEEE DCBX switch as peer;
// then replays the recording: the final snapshot's interface is the live
// one, field for field, times aside.
func TestRecordReplayHost(t *testing.T) {
	dir := t.TempDir()
	eth := filepath.Join(dir, "ethtool")
	if err := os.CopyFS(filepath.Join(eth, "mlx0"), os.DirFS("../counters/testdata/ethtool/ens3f0np0")); err != nil {
		t.Fatal(err)
	}
	sys, err := filepath.Abs("../counters/testdata/sysfs/mlx5")
	if err != nil {
		t.Fatal(err)
	}
	frame := switchPFC3(t)
	rec := filepath.Join(dir, "run.pcapng")
	var live bytes.Buffer
	rt, err := Start(Config{Links: []capture.Link{{Name: "mlx0", Index: 2, MAC: [6]byte{2, 0, 0, 0, 0, 2}, Up: true}},
		Open: func(string) (Conn, error) { return &peerConn{frame: frame}, nil }, SysfsRoot: sys, EthtoolRoot: eth,
		Dialers: counters.Dialers{DCB: fakeDCB(t), Pause: fakePause(), RDMA: fakeRDMA},
		Record:  rec, JSON: true, Out: &live, Duration: 2500 * time.Millisecond, NoControl: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	var replayed bytes.Buffer
	rt, err = Start(Config{Replay: rec, JSON: true, Out: &replayed})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	l := snaptest.Iface(t, snaptest.Decode(t, "live", live.String()), "mlx0")
	r := snaptest.Iface(t, snaptest.Decode(t, "replay", replayed.String()), "mlx0")
	if l.LocalSource != engine.SourceDCBNL || l.Counters == nil || l.Counters.PFC.Source == nil || len(l.Counters.RDMA) != 1 || l.Counters.LinkPause == nil {
		t.Fatalf("the live run read no DCB state, PFC counts, RDMA port or link PAUSE: local %s, counters %+v", l.LocalSource, l.Counters)
	}
	opts := cmp.Options{cmpopts.IgnoreTypes(time.Time{}), cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(engine.Interface{}, "Capture"),
		// The countdown at the snapshot: live at the end of the run, a
		// replay at its last record.
		cmpopts.IgnoreFields(engine.Peer{}, "ExpiresInMs")}
	if diff := cmp.Diff(l, r, opts); diff != "" {
		t.Errorf("the replay's interface differs from the live run's (-live +replay):\n%s", diff)
	}
}
