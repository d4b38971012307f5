// Package casebook runs the case book: real incidents from public threads,
// each rebuilt through the inputs dcbtop reads, judged by the same engine
// and readers as a live run, against the verdict written down before
// dcbtop ran on it (README.md).
package casebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/engine"
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
func Run(dir string) (engine.Interface, error) {
	var h Host
	if err := readJSON(filepath.Join(dir, "host.json"), &h); err != nil {
		return engine.Interface{}, err
	}
	mac := h.MAC
	e := engine.New(engine.Config{})
	ifn := h.Interface
	e.Apply(engine.LinkChanged{Interface: ifn, At: t0, Ifindex: 2, MAC: mac, Up: true})
	var agents []engine.HostAgent
	for i, a := range h.HostAgents {
		agents = append(agents, engine.HostAgent{Name: a.Name, PID: 100 + i, Transmits: a.Transmits})
	}
	e.Apply(engine.HostObserved{At: t0, NetAdmin: true, Agents: agents})
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
			ev, ok := kernel.Local(kern, ifn, t0)
			if !ok {
				return engine.Interface{}, errors.New("host.json: local source dcbnl without a dcbnl member")
			}
			e.Apply(ev)
		default:
			return engine.Interface{}, fmt.Errorf("host.json local.source %q: want agent or dcbnl", l.Source)
		}
	}
	at := t0.Add(time.Second)
	if p := h.Peer; p != nil {
		f, err := peerFrame(p)
		if err != nil {
			return engine.Interface{}, err
		}
		e.Apply(engine.FrameReceived{Interface: ifn, At: at, Data: f})
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
	src := counters.Config{SysfsRoot: filepath.Join(tmp, "sys"), Ethtool: counters.FileEthtool{Root: filepath.Join(tmp, "ethtool")}}
	if h.DCBNL != nil {
		src.DCB = kern
	}
	if h.LinkPause != nil {
		src.Pause = pauseSettings{h.LinkPause}
	}
	s := counters.New(src)
	interval := time.Duration(max(h.IntervalS, 1) * float64(time.Second))
	e.Apply(s.Sample(ifn, at, interval))
	if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
		if err := copyTree(filepath.Join(dir, "later"), tmp); err != nil {
			return engine.Interface{}, err
		}
		at = at.Add(interval)
		e.Apply(s.Sample(ifn, at, interval))
	}
	in, ok := e.Interface(ifn)
	if !ok {
		return engine.Interface{}, fmt.Errorf("no interface %s in the snapshot", ifn)
	}
	return in, nil
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

// A fakeKernel answers DCB netlink as the case's NIC would: DCB_CMD_IEEE_GET
// with its local parameters (when DCB netlink is their source), trust
// table, PFC delay and buffers; DCB_CMD_GDCBX with its mode. Writes fail:
// the case book only reads.
type fakeKernel struct {
	ieee *dcbnl.IEEE // nil: the NIC has no DCB netlink
	mode dcbnl.Mode
}

var errNoDCB = errors.New("operation not supported (no DCB netlink on this NIC)")

func (k *fakeKernel) IEEE(string) (*dcbnl.IEEE, error) {
	if k.ieee == nil {
		return nil, errNoDCB
	}
	c := *k.ieee
	return &c, nil
}

func (k *fakeKernel) DCBX(string) (dcbnl.Mode, error) {
	if k.ieee == nil {
		return 0, errNoDCB
	}
	return k.mode, nil
}

func (k *fakeKernel) SetIEEE(string, *dcbnl.IEEESet) error {
	return errors.New("the case book does not write")
}
func (k *fakeKernel) DelApps(string, []dcbnl.App) error {
	return errors.New("the case book does not write")
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

// pauseSettings answers ethtool netlink's PAUSE_GET with the case's
// settings and no statistics (the driver's come from ethtool -S).
type pauseSettings struct{ l *LinkPause }

func (p pauseSettings) Get(ifname string) (*linkpause.Pause, error) {
	st := func(b *bool) linkpause.State {
		switch {
		case b == nil:
			return linkpause.Unknown
		case *b:
			return linkpause.On
		}
		return linkpause.Off
	}
	return &linkpause.Pause{Ifname: ifname, Source: linkpause.SourceNetlink, Reason: linkpause.ReasonNoStatsOp,
		Settings: linkpause.Settings{Autoneg: st(p.l.Autoneg), RX: st(p.l.RX), TX: st(p.l.TX)}}, nil
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
