// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dcbtop/dcbtop/engine/dcb"

	assets "github.com/dcbtop/dcbtop/assets/demo"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// DefaultHostMAC is the host MAC a scenario gets when it names none.
var DefaultHostMAC = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0xfe}

// An Action is what a Step does.
type Action string

// Actions of a Step.
const (
	// ActionStart makes a switch appear: it sends its first LLDPDU at once,
	// then fast transmissions, then one per transmit interval.
	ActionStart Action = "start"
	// ActionSet changes a switch's parameters or Willing state; a switch
	// that transmits starts fast transmission, as a real agent does.
	ActionSet Action = "set"
	// ActionSilence stops a switch's transmissions without a shutdown
	// LLDPDU (a cut link): the host sees the TTL run out. The switch also
	// stops hearing the host and forgets it, as a port going down does.
	ActionSilence Action = "silence"
	// ActionResume ends a silence (the link is back); it may change the
	// parameters or Willing state at the same time, like ActionSet.
	ActionResume Action = "resume"
	// ActionShutdown stops a switch's LLDP agent: it sends a shutdown
	// LLDPDU (TTL 0), unless it is silent, in which case nothing reaches
	// the host.
	ActionShutdown Action = "shutdown"
	// ActionNote does nothing: it marks the time of a consequence of
	// earlier steps (a TTL running out, a hold-down ending), so that its
	// Comment can be shown as a caption and its Expect checked.
	ActionNote Action = "note"
)

// A Scenario is a scripted, looping sequence of Steps played by simulated
// DCBX switches on one link. Load returns the embedded default.
type Scenario struct {
	// Name and Comment describe the scenario.
	Name    string
	Comment string
	// Host is the suggested local configuration of the host the switches
	// talk to.
	Host Host
	// Steps are in the order of their At.
	Steps    []Step
	duration time.Duration
}

// Host is the scenario's suggested host side: what dcbtop's agent on the
// demo link should advertise (or the local parameters a test gives its
// engine). The switches react to whatever the host really sends.
type Host struct {
	Comment string
	// MAC is the host port's MAC address (the PFC tie-break compares it
	// with the switches' chassis MACs when both sides are willing).
	MAC lldp.MAC
	// Willing is the host's DCBX Willing state.
	Willing bool
	// Params are the host's local parameters, Willing bits set to Willing.
	Params *dcb.Params
}

// A Step is one entry of a Scenario.
type Step struct {
	// At is the offset from the start of the loop.
	At time.Duration
	// Switch names the simulated switch the step acts on; for a note it
	// names the switch the consequence concerns, or is "".
	Switch string
	Action Action
	// Comment says what the operator should see.
	Comment string
	// Caption says in one short line what the step shows (the screen's
	// demo caption): the JSON's caption, or the comment's first sentence.
	Caption string
	// Start is the switch's configuration, for ActionStart.
	Start *SwitchConfig
	// Params holds the features a set or resume step changes (nil
	// features stay as they are); nil when it changes none.
	Params *dcb.Params
	// Willing is the new Willing state of a set or resume step; nil when
	// it does not change.
	Willing *bool
	// Expect lists the remote-parameter indications a listening host
	// sees between this step and the next, in order.
	Expect []Expect
	// NIC changes the demo host's simulated RoCE NIC (any action may);
	// nil when the step changes nothing there.
	NIC *NICChange
}

// A NICChange is what a step changes in the traffic of the demo host's
// simulated RoCE NIC (NIC); nil fields stay as they are.
type NICChange struct {
	// ToS is rdma_cm's default ToS of the NIC's port: the RoCE traffic's
	// DSCP (ToS>>2), hence its priority, and ECN bits.
	ToS *uint8 `json:"tos"`
	// Congestion turns on or off the bursts in which the switch's buffer
	// for the RoCE traffic fills (and it pauses the host, or drops).
	Congestion *bool `json:"congestion"`
	// ECN turns on or off the switch's ECN marking in those bursts.
	ECN *bool `json:"ecn"`
}

// An Expect is a QOS_REMOTE_PARAMETERS_CHANGE indication a step should
// cause at a host that only listens.
type Expect struct {
	Reason engine.Reason
	Flags  engine.Flags
	// PeerWilling, when set, is the Willing bit of the peer's ETS and PFC
	// TLVs in the indication's parameters.
	PeerWilling *bool
	// Diagnostics are codes the host shows right after the indication
	// when its local parameters and Willing state are the scenario's Host.
	Diagnostics []string
}

// Duration returns the length of one loop of the scenario.
func (sc *Scenario) Duration() time.Duration { return sc.duration }

// Switch returns the configuration of the named switch's first start
// step, and false when no step starts it.
func (sc *Scenario) Switch(name string) (SwitchConfig, bool) {
	for _, st := range sc.Steps {
		if st.Action == ActionStart && st.Switch == name {
			return st.Start.clone(), true
		}
	}
	return SwitchConfig{}, false
}

// Load parses and validates the embedded default scenario
// (assets/demo/scenario.json).
func Load() (*Scenario, error) {
	return Parse(bytes.NewReader(assets.ScenarioJSON))
}

// JSON forms. Pointers tell a field left out from a zero value.
type scenarioJSON struct {
	Name     string     `json:"name"`
	Comment  string     `json:"comment"`
	Duration *float64   `json:"duration_s"`
	Host     *hostJSON  `json:"host"`
	Steps    []stepJSON `json:"steps"`
}

type hostJSON struct {
	Comment string          `json:"comment"`
	MAC     string          `json:"mac"`
	Willing bool            `json:"willing"`
	Params  json.RawMessage `json:"params"`
}

type stepJSON struct {
	At         *float64        `json:"at_s"`
	Switch     string          `json:"switch"`
	Action     string          `json:"action"`
	Comment    string          `json:"comment"`
	Caption    string          `json:"caption"`
	ChassisMAC *string         `json:"chassis_mac"`
	Port       *string         `json:"port"`
	SystemName *string         `json:"system_name"`
	SystemDesc *string         `json:"system_description"`
	TxInterval *float64        `json:"tx_interval_s"`
	ReactDelay *float64        `json:"react_delay_s"`
	Willing    *bool           `json:"willing"`
	Params     json.RawMessage `json:"params"`
	Expect     []expectJSON    `json:"expect"`
	NIC        *NICChange      `json:"nic"`
}

type expectJSON struct {
	Reason      string       `json:"reason"`
	Flags       engine.Flags `json:"flags"`
	PeerWilling *bool        `json:"peer_willing"`
	Diagnostics []string     `json:"diagnostics"`
}

// Limits of the scenario format.
const (
	maxDuration   = time.Hour
	maxTxInterval = 3600 // seconds
	maxReactDelay = time.Minute
)

// Parse reads and validates a scenario in the JSON form of
// assets/demo/scenario.json. It is strict: unknown fields, fields an
// action does not take, steps out of order, actions a switch cannot do in
// its state (set before start, resume without silence...) and parameters
// that break the rules dcbtop applies to received TLVs
// (dcb.Params.Errors) are errors that name the step.
func Parse(r io.Reader) (*Scenario, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var j scenarioJSON
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if dec.More() {
		return nil, errors.New("scenario: trailing data after the object")
	}
	sc := &Scenario{Name: j.Name, Comment: j.Comment}
	if j.Duration == nil {
		return nil, errors.New("scenario: duration_s is missing")
	}
	d, err := seconds(*j.Duration)
	if err != nil || d <= 0 || d > maxDuration {
		return nil, fmt.Errorf("scenario: duration_s %v is not a duration of more than 0 s and at most %v", *j.Duration, maxDuration)
	}
	sc.duration = d
	if sc.Host, err = parseHost(j.Host); err != nil {
		return nil, err
	}
	if len(j.Steps) == 0 {
		return nil, errors.New("scenario: no steps")
	}
	v := validator{states: map[string]switchState{}, msaps: map[string]string{}, noted: map[string]bool{}, host: sc.Host.MAC}
	for i, sj := range j.Steps {
		st, err := v.step(sj, sc.duration)
		if err != nil {
			return nil, fmt.Errorf("scenario: step %d%s: %w", i+1, describe(sj), err)
		}
		if i > 0 && st.At < sc.Steps[i-1].At {
			return nil, fmt.Errorf("scenario: step %d%s: at_s is before the previous step's (%v)", i+1, describe(sj), sc.Steps[i-1].At)
		}
		sc.Steps = append(sc.Steps, st)
	}
	for name := range v.noted {
		if _, ok := v.states[name]; !ok {
			return nil, fmt.Errorf("scenario: a note names switch %q, which no step starts", name)
		}
	}
	return sc, nil
}

// describe names a step in errors: " (at 20s, leaf-1 set)".
func describe(sj stepJSON) string {
	var parts []string
	if sj.At != nil {
		parts = append(parts, fmt.Sprintf("at %vs", *sj.At))
	}
	if w := strings.TrimSpace(sj.Switch + " " + sj.Action); w != "" {
		parts = append(parts, w)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func seconds(s float64) (time.Duration, error) {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 || s > maxDuration.Seconds() {
		return 0, fmt.Errorf("%v s is out of range", s)
	}
	return time.Duration(math.Round(s * float64(time.Second))), nil
}

func parseMAC(s string) (lldp.MAC, error) {
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		return lldp.MAC{}, fmt.Errorf("%q is not a MAC address like 02:dc:b0:00:00:01", s)
	}
	m := lldp.MAC(hw)
	if m[0]&1 != 0 || m == (lldp.MAC{}) {
		return lldp.MAC{}, fmt.Errorf("%s is not a unicast MAC address", m)
	}
	return m, nil
}

// parseParams reads a PARAMS object strictly and checks it like received
// TLVs. Willing lives on the step or host, not in the parameters.
func parseParams(raw json.RawMessage) (*dcb.Params, error) {
	p, err := dcb.ParseParams(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if p.Willing() {
		return nil, errors.New("params: give the Willing state with \"willing\" beside \"params\", not inside ets or pfc")
	}
	if p.ETS == nil && p.ETSReco == nil && p.PFC == nil && p.App == nil {
		return nil, errors.New("params: give at least one of ets, ets_reco, pfc, app")
	}
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return p, nil
}

func given(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func parseHost(hj *hostJSON) (Host, error) {
	h := Host{MAC: DefaultHostMAC, Params: agent.DefaultLocal(), Willing: true}
	if hj == nil {
		h.Params = h.Params.WithWilling(h.Willing)
		return h, nil
	}
	h.Comment, h.Willing = hj.Comment, hj.Willing
	if hj.MAC != "" {
		m, err := parseMAC(hj.MAC)
		if err != nil {
			return Host{}, fmt.Errorf("scenario: host: mac: %w", err)
		}
		h.MAC = m
	}
	if given(hj.Params) {
		p, err := parseParams(hj.Params)
		if err != nil {
			return Host{}, fmt.Errorf("scenario: host: %w", err)
		}
		h.Params = p
	}
	h.Params = h.Params.WithWilling(h.Willing)
	return h, nil
}

// switchState is a switch's state while the steps are validated (and
// played).
type switchState uint8

const (
	stateAbsent switchState = iota // never started, or shut down
	stateOn                        // transmitting
	stateSilent                    // silenced
)

func (s switchState) String() string {
	return [...]string{"not started (or shut down)", "transmitting", "silent"}[s]
}

// allowedStates lists, for each action but note, the states a switch may
// be in for it.
var allowedStates = map[Action][]switchState{
	ActionStart:    {stateAbsent},
	ActionSet:      {stateOn, stateSilent},
	ActionSilence:  {stateOn},
	ActionResume:   {stateSilent},
	ActionShutdown: {stateOn, stateSilent},
}

type validator struct {
	states map[string]switchState
	msaps  map[string]string // chassis MAC + port -> switch name
	noted  map[string]bool   // switches named by notes
	host   lldp.MAC
}

// maxCaption bounds a step's caption, one header line on the screen.
const maxCaption = 100

func (v *validator) step(sj stepJSON, dur time.Duration) (Step, error) {
	var st Step
	if sj.At == nil {
		return st, errors.New("at_s is missing")
	}
	at, err := seconds(*sj.At)
	if err != nil || at >= dur {
		return st, fmt.Errorf("at_s %v is not within the scenario's %v", *sj.At, dur)
	}
	st.At, st.Switch, st.Action, st.Comment = at, sj.Switch, Action(sj.Action), strings.TrimSpace(sj.Comment)
	if st.NIC = sj.NIC; st.NIC != nil && *st.NIC == (NICChange{}) {
		return st, errors.New("nic changes nothing: give tos, congestion, ecn or several")
	}
	if st.Comment == "" {
		return st, errors.New("comment is missing: say what the operator should see")
	}
	if st.Caption = strings.TrimSpace(sj.Caption); st.Caption == "" {
		first, _, _ := strings.Cut(strings.Join(strings.Fields(st.Comment), " "), ". ")
		if r := []rune(first); len(r) > maxCaption {
			first = string(r[:maxCaption-1]) + "…"
		}
		st.Caption = first
	}
	if strings.ContainsFunc(st.Caption, unicode.IsControl) || utf8.RuneCountInString(st.Caption) > maxCaption {
		return st, fmt.Errorf("caption %q: want one line of at most %d characters", st.Caption, maxCaption)
	}
	startOnly := map[string]bool{"chassis_mac": sj.ChassisMAC != nil, "port": sj.Port != nil, "system_name": sj.SystemName != nil,
		"system_description": sj.SystemDesc != nil, "tx_interval_s": sj.TxInterval != nil, "react_delay_s": sj.ReactDelay != nil}
	changes := map[string]bool{"willing": sj.Willing != nil, "params": given(sj.Params)}
	// refuse names the first field given among sets, in the order of the
	// JSON form.
	refuse := func(sets ...map[string]bool) error {
		for _, f := range []string{"chassis_mac", "port", "system_name", "system_description", "tx_interval_s", "react_delay_s", "willing", "params"} {
			for _, given := range sets {
				if given[f] {
					return fmt.Errorf("%s does not take %s", st.Action, f)
				}
			}
		}
		return nil
	}
	if st.Action == ActionNote {
		if err := refuse(startOnly, changes); err != nil {
			return st, err
		}
		if st.Switch != "" {
			v.noted[st.Switch] = true
		}
		st.Expect, err = parseExpect(sj.Expect)
		return st, err
	}
	if st.Switch == "" {
		return st, errors.New("switch is missing")
	}
	cur := v.states[st.Switch]
	allowed, ok := allowedStates[st.Action]
	if !ok {
		return st, fmt.Errorf("unknown action %q (want start, set, silence, resume, shutdown or note)", sj.Action)
	}
	if !slices.Contains(allowed, cur) {
		return st, fmt.Errorf("%s cannot %s: it is %s", st.Switch, st.Action, cur)
	}
	switch st.Action {
	case ActionStart:
		cfg, err := v.start(st.Switch, sj)
		if err != nil {
			return st, err
		}
		st.Start = &cfg
		v.states[st.Switch] = stateOn
	case ActionSet, ActionResume:
		if err := refuse(startOnly); err != nil {
			return st, err
		}
		if st.Action == ActionSet && !changes["willing"] && !changes["params"] {
			return st, errors.New("set changes nothing: give willing, params or both")
		}
		st.Willing = sj.Willing
		if changes["params"] {
			if st.Params, err = parseParams(sj.Params); err != nil {
				return st, err
			}
		}
		if st.Action == ActionResume {
			v.states[st.Switch] = stateOn
		}
	case ActionSilence, ActionShutdown:
		if err := refuse(startOnly, changes); err != nil {
			return st, err
		}
		v.states[st.Switch] = map[Action]switchState{ActionSilence: stateSilent, ActionShutdown: stateAbsent}[st.Action]
	}
	st.Expect, err = parseExpect(sj.Expect)
	return st, err
}

func (v *validator) start(name string, sj stepJSON) (SwitchConfig, error) {
	cfg := SwitchConfig{Name: name, TxInterval: agent.DefaultTxInterval, SystemName: name}
	if sj.ChassisMAC == nil {
		return cfg, errors.New("chassis_mac is missing")
	}
	m, err := parseMAC(*sj.ChassisMAC)
	if err != nil {
		return cfg, fmt.Errorf("chassis_mac: %w", err)
	}
	if m == v.host {
		return cfg, fmt.Errorf("chassis_mac: %s is the host's MAC", m)
	}
	cfg.ChassisMAC = m
	if sj.Port == nil || *sj.Port == "" || len(*sj.Port) > 255 {
		return cfg, errors.New("port is missing (the Port ID, an interface name of 1-255 bytes)")
	}
	cfg.Port = *sj.Port
	msap := m.String() + " " + cfg.Port
	if other, ok := v.msaps[msap]; ok && other != name {
		return cfg, fmt.Errorf("chassis_mac and port are those of %s: two switches cannot share an MSAP", other)
	}
	v.msaps[msap] = name
	if sj.SystemName != nil {
		cfg.SystemName = *sj.SystemName
	}
	if sj.SystemDesc != nil {
		cfg.SystemDesc = *sj.SystemDesc
	}
	if len(cfg.SystemName) > 255 || len(cfg.SystemDesc) > 255 {
		return cfg, errors.New("system_name and system_description are at most 255 bytes")
	}
	if t := sj.TxInterval; t != nil {
		if *t != math.Trunc(*t) || *t < 1 || *t > maxTxInterval {
			return cfg, fmt.Errorf("tx_interval_s %v is not a whole number of seconds from 1 to %d", *t, maxTxInterval)
		}
		cfg.TxInterval = time.Duration(*t) * time.Second
	}
	if r := sj.ReactDelay; r != nil {
		d, err := seconds(*r)
		if err != nil || d > maxReactDelay {
			return cfg, fmt.Errorf("react_delay_s %v is not from 0 to %v", *r, maxReactDelay)
		}
		cfg.ReactDelay = d
	}
	if sj.Willing != nil {
		cfg.Willing = *sj.Willing
	}
	if !given(sj.Params) {
		return cfg, errors.New("params is missing: what the switch advertises")
	}
	if cfg.Params, err = parseParams(sj.Params); err != nil {
		return cfg, err
	}
	cfg.Params = cfg.Params.WithWilling(cfg.Willing)
	return cfg, nil
}

var reasons = map[engine.Reason]bool{engine.ReasonFirstReceipt: true, engine.ReasonChanged: true,
	engine.ReasonTTLExpired: true, engine.ReasonShutdown: true, engine.ReasonMultiPeer: true, engine.ReasonLinkDown: true}

func parseExpect(list []expectJSON) ([]Expect, error) {
	var out []Expect
	for i, ej := range list {
		r := engine.Reason(ej.Reason)
		if !reasons[r] {
			return nil, fmt.Errorf("expect %d: reason %q is not a remote reason (first-receipt, changed, ttl-expired, shutdown, multi-peer)", i+1, ej.Reason)
		}
		if ej.Flags&engine.FlagWilling != 0 {
			return nil, fmt.Errorf("expect %d: WILLING is not a flag of remote indications", i+1)
		}
		out = append(out, Expect{Reason: r, Flags: ej.Flags, PeerWilling: ej.PeerWilling, Diagnostics: ej.Diagnostics})
	}
	return out, nil
}
