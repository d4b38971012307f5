// SPDX-License-Identifier: Apache-2.0

// Package casebook runs the case book: real incidents from public threads,
// each rebuilt through the inputs dcbtop reads, judged by the same engine
// and readers as a live run, against the verdict written down before
// dcbtop ran on it (README.md).
package casebook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Host is a case's host.json: the rebuilt host (README.md).
type Host struct {
	Interface string     `json:"interface"`
	MAC       lldp.MAC   `json:"mac"`
	Local     *Local     `json:"local"`
	DCBNL     *DCBNL     `json:"dcbnl"`
	LinkPause *LinkPause `json:"link_pause"`
	Peer      *Peer      `json:"peer"`
	// Speakers are further LLDP speakers heard on the port besides the
	// peer (a BMC sharing the NIC, a vSwitch passing its VMs' LLDPDUs,
	// an unmanaged switch), each an LLDPDU built as the peer's is.
	Speakers []Peer `json:"speakers"`
	// MTU is the interface's MTU (IFLA_MTU), fed as the link's MTU and
	// recorded in the tape's link record; 0: not known (not given).
	MTU int `json:"mtu"`
	// PeerSilentS is how long the peer has been silent when the samples
	// are taken.
	PeerSilentS float64     `json:"peer_silent_s"`
	HostAgents  []HostAgent `json:"host_agents"`
	// IntervalS is the time between the two counter samples.
	IntervalS float64 `json:"interval_s"`
	// LocalMAC says which end of an undirected capture is this host.
	LocalMAC string `json:"local_mac"`
}

// Local is this host's local parameters and where they come from.
type Local struct {
	Source  string          `json:"source"` // "agent" or "dcbnl"
	Willing bool            `json:"willing"`
	Params  json.RawMessage `json:"params"`
}

// DCBNL is what DCB netlink reports besides the parameters.
type DCBNL struct {
	Trust    []string `json:"trust"` // null: no trust table
	PFCDelay *uint16  `json:"pfc_delay"`
	Buffer   *struct {
		PrioBuffer [8]uint8  `json:"prio_buffer"`
		SizeBytes  [8]uint32 `json:"size_bytes"`
		TotalBytes uint32    `json:"total_bytes"`
	} `json:"buffer"`
	// FirmwareDCBX: the NIC's firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED).
	FirmwareDCBX bool `json:"firmware_dcbx"`
}

// LinkPause is ethtool netlink's 802.3x settings.
type LinkPause struct {
	Autoneg *bool `json:"autoneg"`
	RX      *bool `json:"rx"`
	TX      *bool `json:"tx"`
}

// Peer is the switch's LLDP agent.
type Peer struct {
	ChassisMAC lldp.MAC        `json:"chassis_mac"`
	PortID     string          `json:"port_id"`
	SystemName string          `json:"system_name"`
	TTL        uint16          `json:"ttl"`
	Willing    bool            `json:"willing"`
	Params     json.RawMessage `json:"params"`
	DCBX       string          `json:"dcbx"` // "ieee" or "none"
}

// HostAgent is an LLDP agent process of the host.
type HostAgent struct {
	Name      string `json:"name"`
	Transmits bool   `json:"transmits"`
}

// readJSON decodes path into v, refusing unknown members.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// params decodes a PARAMS member as --local does (dcb.ParseParams).
func params(raw json.RawMessage) (*dcb.Params, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return dcb.ParseParams(bytes.NewReader(raw))
}

// t0 is when every case starts.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run feeds the case in dir through the engine, as a live run would have
// met it: the link, the host's LLDP agents, the local parameters (dcbtop's
// agent's, or DCB netlink's read by capture/kernel), the peer's LLDPDU,
// then one or two counter samples read by capture/counters' sampler of a
// host's sources (counters.New) from the case's sysfs and ethtool trees
// (later/ replacing files for the second). It returns the interface as the last snapshot shows it.
func Run(dir string) (engine.Interface, error) { return run(dir, nil) }

// Record runs the case as Run does and writes to path what `dcbtop -w`
// would have recorded on the case's host: the link, the host observed,
// the DCB reading (the byte-exact DCB_CMD_IEEE_GET reply of the case's
// NIC), the peer's LLDPDU, the counter sources opened and each counters
// sample's inputs (the sysfs files, the ethtool answers, the DCB and
// ethtool netlink replies). dcbtop -r replays it through the same
// readers. It returns what Run returns.
func Record(dir, path string) (engine.Interface, error) {
	w, err := pcap.Create(path)
	if err != nil {
		return engine.Interface{}, err
	}
	in, err := run(dir, w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return in, err
}

// run is Run, recording to w when it is not nil.
func run(dir string, w *pcap.Writer) (engine.Interface, error) {
	var h Host
	if err := readJSON(filepath.Join(dir, "host.json"), &h); err != nil {
		return engine.Interface{}, err
	}
	var tap *tape.Tap
	var werr error
	write := func(at time.Time, recs ...tape.Record) {
		if w != nil && werr == nil {
			werr = tape.Write(w, at, recs)
		}
	}
	round := func(at time.Time, b tape.Begin, recs ...tape.Record) {
		all := append(append([]tape.Record{}, recs...), tap.Take()...)
		if w != nil && werr == nil {
			werr = tape.WriteRound(w, at, b, all)
		}
	}
	if w != nil {
		tap = tape.NewTap()
	}
	mac := h.MAC
	e := engine.New(engine.Config{Judge: check.Judge, NameFixes: qos.NameFixes})
	ifn := h.Interface
	e.Apply(engine.LinkChanged{Interface: ifn, At: t0, Ifindex: casebookIfindex, MAC: mac, Up: true, MTU: h.MTU})
	write(t0, tape.Link{Name: ifn, Index: casebookIfindex, MAC: [6]byte(mac), Up: true, MTU: h.MTU})
	var agents []engine.HostAgent
	obs := tape.Observed{NetAdmin: true}
	for i, a := range h.HostAgents {
		agents = append(agents, engine.HostAgent{Name: a.Name, PID: 100 + i, Transmits: a.Transmits})
		obs.Agents = append(obs.Agents, tape.Agent{Name: a.Name, PID: 100 + i, Transmits: a.Transmits})
	}
	e.Apply(engine.HostObserved{At: t0, NetAdmin: true, Agents: agents})
	write(t0, obs)
	kern, err := newKernel(&h)
	if err != nil {
		return engine.Interface{}, err
	}
	if l := h.Local; l != nil {
		switch l.Source {
		case "agent":
			p, err := params(l.Params)
			if err != nil {
				return engine.Interface{}, fmt.Errorf("host.json local.params: %w", err)
			}
			e.Apply(engine.LocalChanged{Interface: ifn, At: t0, Source: engine.SourceAgent, Willing: l.Willing, Params: p})
		case "dcbnl":
			c := dcbnl.NewClient(kern.dcbConn())
			c.SetRecorder(tap.Netlink(tape.ProtoRoute))
			ev, ok := kernel.Local(c, ifn, t0)
			c.Close()
			if !ok {
				return engine.Interface{}, errors.New("host.json: local source dcbnl without a dcbnl member")
			}
			round(t0, tape.Begin{Round: tape.RoundDCB, Ifname: ifn})
			e.Apply(ev)
		default:
			return engine.Interface{}, fmt.Errorf("host.json local.source %q: want agent or dcbnl", l.Source)
		}
	}
	at := t0.Add(time.Second)
	var heard []*Peer
	if h.Peer != nil {
		heard = append(heard, h.Peer)
	}
	for i := range h.Speakers {
		heard = append(heard, &h.Speakers[i])
	}
	for _, p := range heard {
		f, err := peerFrame(p)
		if err != nil {
			return engine.Interface{}, err
		}
		e.Apply(engine.FrameReceived{Interface: ifn, At: at, Data: f})
		if w != nil && werr == nil {
			werr = w.WriteFrame(capture.Frame{Interface: ifn, At: at, Dir: capture.DirectionIncoming, Data: f})
		}
	}
	at = at.Add(time.Duration(h.PeerSilentS * float64(time.Second)))
	e.Apply(engine.Tick{At: at})
	tmp, err := os.MkdirTemp("", "casebook-")
	if err != nil {
		return engine.Interface{}, err
	}
	defer os.RemoveAll(tmp)
	for _, sub := range []string{"sys", "ethtool"} {
		if err := copyTree(filepath.Join(dir, sub), filepath.Join(tmp, sub)); err != nil {
			return engine.Interface{}, err
		}
	}
	src := counters.Config{FS: tap.FS(hostfs.Dir(filepath.Join(tmp, "sys"))), Ethtool: tap.Ethtool(counters.FileEthtool{Root: filepath.Join(tmp, "ethtool")})}
	if h.DCBNL != nil {
		c := dcbnl.NewClient(kern.dcbConn())
		c.SetRecorder(tap.Netlink(tape.ProtoRoute))
		defer c.Close()
		src.DCB = c
	}
	if h.LinkPause != nil {
		c := linkpause.NewClient(pauseConn(h.LinkPause, ifn))
		c.SetRecorder(tap.Netlink(tape.ProtoGeneric))
		defer c.Close()
		src.Pause = c
	}
	s := counters.New(src)
	round(at, tape.Begin{Round: tape.RoundOpen}, s.Tape(nil))
	interval := time.Duration(max(h.IntervalS, 1) * float64(time.Second))
	ev := s.Sample(ifn, at, interval)
	round(at, tape.Begin{Round: tape.RoundCounters, Ifname: ifn, Interval: interval})
	e.Apply(ev)
	if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
		if err := copyTree(filepath.Join(dir, "later"), tmp); err != nil {
			return engine.Interface{}, err
		}
		at = at.Add(interval)
		ev := s.Sample(ifn, at, interval)
		round(at, tape.Begin{Round: tape.RoundCounters, Ifname: ifn, Interval: interval})
		e.Apply(ev)
	}
	if werr != nil {
		return engine.Interface{}, fmt.Errorf("recording: %w", werr)
	}
	in, ok := e.Interface(ifn)
	if !ok {
		return engine.Interface{}, fmt.Errorf("no interface %s in the snapshot", ifn)
	}
	return in, nil
}

// Replay replays the recording at path as `dcbtop -r FILE --json` does
// (capture/session, headless, as fast as possible) and returns ifname as
// the final snapshot shows it.
func Replay(path, ifname string) (engine.Interface, error) {
	rt, err := session.Start(session.Config{Replay: path, Out: io.Discard})
	if err != nil {
		return engine.Interface{}, err
	}
	err = rt.Loop(context.Background())
	snap := rt.Snapshot()
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return engine.Interface{}, err
	}
	for _, in := range snap.Interfaces {
		if in.Name == ifname {
			return in, nil
		}
	}
	return engine.Interface{}, fmt.Errorf("no interface %s in the replay's snapshot", ifname)
}

// peerFrame builds the switch's LLDPDU: the mandatory TLVs, its system
// name, and (dcbx "ieee") the IEEE 802.1Qaz TLVs of its PARAMS, Willing
// as given.
func peerFrame(p *Peer) ([]byte, error) {
	mac := p.ChassisMAC
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: mac[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(p.PortID)},
		TTL:       max(p.TTL, 1),
	}
	if p.SystemName != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemName, Value: p.SystemName})
	}
	switch p.DCBX {
	case "none":
	case "ieee", "":
		ps, err := params(p.Params)
		if err != nil {
			return nil, fmt.Errorf("host.json peer.params: %w", err)
		}
		if ps != nil {
			du.TLVs = append(du.TLVs, ieeeTLVs(ps, p.Willing)...)
		}
	default:
		return nil, fmt.Errorf("host.json peer.dcbx %q: want ieee or none", p.DCBX)
	}
	return lldp.AppendFrame(nil, lldp.NearestBridge, mac, du)
}

// ieeeTLVs are the IEEE 802.1Qaz TLVs advertising ps (D.2.9-D.2.12).
func ieeeTLVs(ps *dcb.Params, willing bool) []lldp.TLV {
	var out []lldp.TLV
	if e := ps.ETS; e != nil {
		out = append(out, &lldp.ETS{Willing: willing || e.Willing, CBS: e.CBS, MaxTCs: min(max(e.MaxTCs, 1), 8), PrioTC: e.PrioTC, Bandwidth: e.TCBandwidth, TSA: e.TSA})
	}
	if r := ps.ETSReco; r != nil {
		out = append(out, &lldp.ETS{Recommendation: true, PrioTC: r.PrioTC, Bandwidth: r.TCBandwidth, TSA: r.TSA})
	}
	if f := ps.PFC; f != nil {
		out = append(out, &lldp.PFC{Willing: willing || f.Willing, MBC: f.MBC, Cap: f.Cap, Enabled: uint8(f.Enabled)})
	}
	if ps.App != nil {
		a := &lldp.AppPriority{}
		for _, x := range ps.App {
			a.Entries = append(a.Entries, lldp.AppEntry{Priority: x.Priority, Selector: x.Selector, Protocol: x.Protocol})
		}
		out = append(out, a)
	}
	return out
}

// A fakeKernel is the case's NIC's DCB netlink state, which dcbConn
// answers in bytes: DCB_CMD_IEEE_GET with its local parameters (when DCB
// netlink is their source), trust table, PFC delay and buffers;
// DCB_CMD_GDCBX with its mode. Writes are refused: the case book only
// reads.
type fakeKernel struct {
	ieee *dcbnl.IEEE // nil: the NIC has no DCB netlink
	mode dcbnl.Mode
}

// trustSelectors are the trust table's names (linux/dcbnl.h: the APP
// selectors, DCB_APP_SEL_PCP 255).
var trustSelectors = map[string]uint8{"ethertype": 1, "tcp-port": 2, "udp-port": 3, "port": 4, "dscp": 5, "pcp": 255}

// newKernel builds the NIC's DCB netlink state from the case.
func newKernel(h *Host) (*fakeKernel, error) {
	d := h.DCBNL
	if d == nil {
		return &fakeKernel{}, nil
	}
	ie := &dcbnl.IEEE{App: []dcbnl.App{}}
	k := &fakeKernel{ieee: ie, mode: dcbnl.ModeHost | dcbnl.ModeIEEE}
	if d.FirmwareDCBX {
		k.mode = dcbnl.ModeLLDManaged | dcbnl.ModeIEEE
	}
	if l := h.Local; l != nil && l.Source == "dcbnl" {
		p, err := params(l.Params)
		if err != nil {
			return nil, fmt.Errorf("host.json local.params: %w", err)
		}
		if p != nil {
			if e := p.ETS; e != nil {
				ie.ETS = &dcbnl.ETS{Willing: l.Willing, ETSCap: e.MaxTCs, CBS: e.CBS, TCTxBW: e.TCBandwidth, TCRxBW: e.TCBandwidth, PrioTC: e.PrioTC}
				for i, t := range e.TSA {
					ie.ETS.TCTSA[i] = uint8(t)
				}
				if r := p.ETSReco; r != nil {
					ie.ETS.TCRecoBW, ie.ETS.RecoPrioTC = r.TCBandwidth, r.PrioTC
					for i, t := range r.TSA {
						ie.ETS.TCRecoTSA[i] = uint8(t)
					}
				}
			}
			if f := p.PFC; f != nil {
				ie.PFC = &dcbnl.PFC{Cap: f.Cap, Enabled: uint8(f.Enabled)}
				if f.MBC {
					ie.PFC.MBC = 1
				}
			}
			for _, a := range p.App {
				ie.App = append(ie.App, dcbnl.App{Selector: uint8(a.Selector), Priority: a.Priority, Protocol: a.Protocol})
			}
		}
	}
	if d.PFCDelay != nil {
		if ie.PFC == nil {
			ie.PFC = &dcbnl.PFC{Cap: 8}
		}
		ie.PFC.Delay = *d.PFCDelay
	}
	if d.Trust != nil {
		ie.AppTrust = []uint8{}
		for _, t := range d.Trust {
			sel, ok := trustSelectors[t]
			if !ok {
				return nil, fmt.Errorf("host.json dcbnl.trust %q: want dscp, pcp or an APP selector", t)
			}
			ie.AppTrust = append(ie.AppTrust, sel)
		}
	}
	if b := d.Buffer; b != nil {
		ie.Buffer = &dcbnl.Buffer{PrioBuffer: b.PrioBuffer, Size: b.SizeBytes, TotalSize: b.TotalBytes}
	}
	return k, nil
}

// copyTree copies the files under src into dst (nothing when src does not
// exist), replacing those there.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) && path == src {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
