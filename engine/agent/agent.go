// SPDX-License-Identifier: Apache-2.0

// Package agent is the transmit side of dcbtop's host DCBX agent, without
// I/O: it builds the LLDPDUs the agent sends (IEEE Std 802.1AB-2016 with
// the IEEE 802.1Qaz TLVs) and decides when to send them (the transmit
// timer and fast transmission of IEEE Std 802.1AB-2016, 9.2.5). The caller
// owns the clock and the socket.
package agent

import (
	"cmp"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Defaults of IEEE Std 802.1AB-2016, 9.2.5 (as lldpad uses them).
const (
	DefaultTxInterval = 30 * time.Second // msgTxInterval
	DefaultTxHold     = 4                // msgTxHold
	FastInterval      = time.Second      // msgFastTx
	FastCount         = 4                // txFastInit
	// TxCreditMax bounds the LLDPDUs sent back to back: each sends one
	// credit, and a credit comes back every second (txTick), up to this
	// many (IEEE Std 802.1AB-2016, 9.2.5: txCredit, txCreditMax, default
	// 5; the transmit timer state machine sends only while txCredit is
	// above 0). Twenty quick applies put five LLDPDUs on the wire at
	// once, then one a second, not twenty.
	TxCreditMax = 5
)

// Config identifies the port the agent speaks for.
type Config struct {
	Ifname     string
	MAC        lldp.MAC
	SystemName string // the host name
	SystemDesc string // e.g. "dcbtop 1.0 on Linux"
	// TxInterval is the time between LLDPDUs; DefaultTxInterval if zero.
	TxInterval time.Duration
}

// An Advert is what the agent advertises: the local Willing state, the
// local parameters (for the recommendation and APP table) and the
// operational parameters (for ETS Configuration and PFC, which carry the
// sender's operational values, IEEE Std 802.1Q-2018 D.2.9; lldpad
// bld_ieee8021qaz_etscfg_tlv does the same).
type Advert struct {
	Willing     bool
	Local       *dcb.Params
	Operational *dcb.Params
	// Dialect is the DCBX dialect spoken: lldp.DialectCEE sends the CEE
	// DCBX TLV (Control sub-TLV from CEE, the local parameters as its
	// features: CEEFeatures) in place of the IEEE 802.1Qaz TLVs; any
	// other value sends IEEE 802.1Qaz, the default.
	Dialect lldp.Dialect
	CEE     CEEState
}

// DefaultLocal returns the documented default local parameters: 8 traffic
// classes, every priority on TC0 with 100% ETS bandwidth, PFC off (cap 8),
// no APP entries.
func DefaultLocal() *dcb.Params {
	e := &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}}
	for i := range e.TSA {
		e.TSA[i] = lldp.TSAETS
	}
	return &dcb.Params{ETS: e, PFC: &dcb.PFC{Cap: 8}, App: []dcb.App{}}
}

// TTL returns the TTL the agent advertises for a transmit interval:
// msgTxInterval x msgTxHold + 1 (IEEE Std 802.1AB-2016, 9.2.5.22), at most
// 65535 seconds.
func TTL(interval time.Duration) uint16 {
	s := int64(interval/time.Second)*DefaultTxHold + 1
	return uint16(min(s, 65535))
}

// BuildDU builds the agent's LLDPDU: Chassis ID = the port MAC, Port ID =
// the interface name, TTL, System Name and Description, then ETS
// Configuration, ETS Recommendation, PFC Configuration and Application
// Priority, or for ad.Dialect CEE the one CEE DCBX TLV (one per LLDPDU:
// lldpad discards an LLDPDU with two). ttl 0 builds a shutdown LLDPDU
// (mandatory TLVs only).
func BuildDU(cfg Config, ttl uint16, ad Advert) (*lldp.DU, error) {
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: cfg.MAC[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(cfg.Ifname)},
		TTL:       ttl,
	}
	if ttl == 0 {
		return du, nil
	}
	if cfg.SystemName != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemName, Value: cfg.SystemName})
	}
	if cfg.SystemDesc != "" {
		du.TLVs = append(du.TLVs, &lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: cfg.SystemDesc})
	}
	local, op := ad.Local, ad.Operational
	if local == nil {
		local = DefaultLocal()
	}
	if op == nil {
		op = local
	}
	if ad.Dialect == lldp.DialectCEE {
		du.TLVs = append(du.TLVs, ceeTLV(local, ad))
		return checked(du)
	}
	if e := cmp.Or(op.ETS, local.ETS); e != nil {
		du.TLVs = append(du.TLVs, &lldp.ETS{Willing: ad.Willing, CBS: e.CBS, MaxTCs: maxTCs(e.MaxTCs),
			PrioTC: e.PrioTC, Bandwidth: e.TCBandwidth, TSA: e.TSA})
	}
	switch {
	case local.ETSReco != nil:
		r := local.ETSReco
		du.TLVs = append(du.TLVs, &lldp.ETS{Recommendation: true, PrioTC: r.PrioTC, Bandwidth: r.TCBandwidth, TSA: r.TSA})
	case local.ETS != nil:
		// Without an explicit recommendation, recommend the local ETS.
		r := local.ETS
		du.TLVs = append(du.TLVs, &lldp.ETS{Recommendation: true, PrioTC: r.PrioTC, Bandwidth: r.TCBandwidth, TSA: r.TSA})
	}
	if p := cmp.Or(op.PFC, local.PFC); p != nil {
		cap := p.Cap
		if local.PFC != nil {
			cap = local.PFC.Cap
		}
		du.TLVs = append(du.TLVs, &lldp.PFC{Willing: ad.Willing, MBC: p.MBC, Cap: cap, Enabled: uint8(p.Enabled)})
	}
	if local.App != nil {
		a := &lldp.AppPriority{}
		for _, e := range local.App {
			a.Entries = append(a.Entries, lldp.AppEntry{Priority: e.Priority, Selector: e.Selector, Protocol: e.Protocol})
		}
		du.TLVs = append(du.TLVs, a)
	}
	return checked(du)
}

// checked returns du once it encodes.
func checked(du *lldp.DU) (*lldp.DU, error) {
	if _, err := du.MarshalBinary(); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return du, nil
}

func maxTCs(n uint8) uint8 {
	if n == 0 || n > 8 {
		return 8
	}
	return n
}

// An Agent schedules transmissions for one port. It is not safe for
// concurrent use.
type Agent struct {
	cfg      Config
	ttl      uint16
	frame    []byte
	shutdown []byte
	next     time.Time
	fastLeft int
	// credit is txCredit, as of creditAt (whole seconds of txTick since
	// then are added when it is read: refill).
	credit   int
	creditAt time.Time
}

// New returns an agent that transmits its first LLDPDU at now, followed by
// fast transmissions (a new agent is a local change).
func New(cfg Config, ad Advert, now time.Time) (*Agent, error) {
	if cfg.TxInterval <= 0 {
		cfg.TxInterval = DefaultTxInterval
	}
	if cfg.TxInterval < time.Second {
		return nil, fmt.Errorf("agent: transmit interval %s is below 1s", cfg.TxInterval)
	}
	a := &Agent{cfg: cfg, ttl: TTL(cfg.TxInterval), credit: TxCreditMax, creditAt: now}
	if err := a.Set(ad, now); err != nil {
		return nil, err
	}
	du, err := BuildDU(cfg, 0, Advert{})
	if err == nil {
		a.shutdown, err = lldp.AppendFrame(nil, lldp.NearestBridge, cfg.MAC, du)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: shutdown LLDPDU: %w", err)
	}
	return a, nil
}

// Set changes what the agent advertises. A change starts fast
// transmission: the next LLDPDU goes out at once, then FastCount-1 more at
// FastInterval. Setting the same advertisement again does nothing.
func (a *Agent) Set(ad Advert, now time.Time) error {
	f, err := a.build(ad)
	if err != nil {
		return err
	}
	if string(f) == string(a.frame) {
		return nil
	}
	a.frame = f
	a.fast(now)
	return nil
}

// Check reports whether ad can be advertised: its LLDPDU built and framed
// (every TLV within the 511 bytes of its length field, the frame within
// an Ethernet frame), without changing what the agent sends.
func (a *Agent) Check(ad Advert) error {
	_, err := a.build(ad)
	return err
}

// build returns the frame that advertises ad.
func (a *Agent) build(ad Advert) ([]byte, error) {
	du, err := BuildDU(a.cfg, a.ttl, ad)
	if err != nil {
		return nil, err
	}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, a.cfg.MAC, du)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if n := len(f) - ethHeaderLen; n > maxLLDPDU {
		return nil, fmt.Errorf("agent: the LLDPDU would be %d bytes, more than the %d an Ethernet frame carries", n, maxLLDPDU)
	}
	return f, nil
}

// An LLDPDU travels in one untagged Ethernet frame: at most 1500 bytes
// after the 14-byte header (IEEE Std 802.1AB-2016, 7.1).
const (
	maxLLDPDU    = 1500
	ethHeaderLen = 14
)

// PeerAppeared starts fast transmission, as a new neighbour does
// (IEEE Std 802.1AB-2016, 9.2.7.7.1 newNeighbor).
func (a *Agent) PeerAppeared(now time.Time) { a.fast(now) }

func (a *Agent) fast(now time.Time) {
	a.fastLeft = FastCount
	a.next = now
}

// refill adds the credits of the txTicks (one a second) since creditAt,
// up to TxCreditMax.
func (a *Agent) refill(now time.Time) {
	ticks := int(now.Sub(a.creditAt) / time.Second)
	if ticks <= 0 {
		return
	}
	a.creditAt = a.creditAt.Add(time.Duration(ticks) * time.Second)
	if a.credit += ticks; a.credit >= TxCreditMax {
		a.credit, a.creditAt = TxCreditMax, now
	}
}

// Due returns the frame to transmit when one is due at now, and schedules
// the next transmission. Without a transmit credit left (TxCreditMax), the
// LLDPDU waits for the next one, a second after the last credit came.
func (a *Agent) Due(now time.Time) ([]byte, bool) {
	if now.Before(a.next) {
		return nil, false
	}
	a.refill(now)
	if a.credit <= 0 {
		a.next = a.creditAt.Add(time.Second)
		return nil, false
	}
	a.credit--
	interval := a.cfg.TxInterval
	if a.fastLeft > 0 {
		a.fastLeft--
		if a.fastLeft > 0 {
			interval = FastInterval
		}
	}
	a.next = now.Add(interval)
	return a.frame, true
}

// Next returns when the next LLDPDU is due.
func (a *Agent) Next() time.Time { return a.next }

// TTL returns the TTL the agent advertises.
func (a *Agent) TTL() uint16 { return a.ttl }

// Frame returns the current frame (for tests and recording).
func (a *Agent) Frame() []byte { return a.frame }

// Advertising reads back what the current frame advertises, as a peer
// decodes it (dcb.ParamsFromDU): the ETS Configuration and PFC in force
// with the Willing bit, the recommendation and the APP table. Nil when the
// frame carries no DCBX TLV.
func (a *Agent) Advertising() *dcb.Params {
	_, pdu, err := lldp.SplitFrame(a.frame)
	if err != nil {
		return nil
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		return nil
	}
	return dcb.ParamsFromDU(du)
}

// Shutdown returns the shutdown LLDPDU frame (TTL 0) to send when the
// agent stops (IEEE Std 802.1AB-2016, 9.2.7.7.1).
func (a *Agent) Shutdown() []byte { return a.shutdown }
