// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/jsondoc"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Policy is what `dcbtop check --expect` holds the operational
// parameters to: a PARAMS-shaped JSON object whose members are all
// optional. Its JSON form is
//
//	{"pfc": {"enabled": [3]},
//	 "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}],
//	 "ets": {"min_bandwidth": {"3": 50}},
//	 "willing": false}
//
// pfc.enabled is the exact set of priorities with PFC; each app entry must
// be in force; ets.min_bandwidth maps a priority to the least bandwidth
// share (percent) its traffic class must get under ETS; willing is the
// local DCBX Willing state.
type Policy struct {
	PFC     *PolicyPFC `json:"pfc,omitempty"`
	App     []dcb.App  `json:"app,omitempty"`
	ETS     *PolicyETS `json:"ets,omitempty"`
	Willing *bool      `json:"willing,omitempty"`
	// Trust is what the NIC must classify received traffic by first:
	// "dscp" or "pcp" (the DCB netlink trust table).
	Trust *string `json:"trust,omitempty"`
	// RoCE holds what RoCE traffic must carry: the DSCP of rdma_cm's
	// default ToS.
	RoCE *PolicyRoCE `json:"roce,omitempty"`
	// CNP holds the congestion notification packets' DSCP and priority.
	CNP *PolicyCNP `json:"cnp,omitempty"`
}

// PolicyRoCE is a Policy's RoCE part.
type PolicyRoCE struct {
	DSCP *int `json:"dscp,omitempty"`
}

// PolicyCNP is a Policy's CNP part: the DSCP and 802.1p priority the NIC
// marks its CNPs with.
type PolicyCNP struct {
	DSCP     *int `json:"dscp,omitempty"`
	Priority *int `json:"priority,omitempty"`
}

// PolicyPresets are the policies operators use, by name (dcbtop check
// --expect NAME); docs/dcbx.md cites their sources.
var PolicyPresets = map[string]string{
	// NVIDIA nic-configuration-operator's "RoCE optimized" NIC
	// configuration: trust DSCP, PFC on priority 3 (RoCE's DSCP 26 on it),
	// CNPs with DSCP 4 on priority 6.
	"roce-k8s": `{"trust":"dscp","pfc":{"enabled":[3]},"app":[{"selector":"dscp","protocol":26,"priority":3}],"roce":{"dscp":26},"cnp":{"dscp":4,"priority":6}}`,
	// Microsoft's Azure Local (Azure Stack HCI) host networking: the host
	// does not accept the switch's DCB (Willing off), PFC on priority 3
	// for SMB Direct (RDMA), nothing else lossless.
	"azure-local": `{"willing":false,"pfc":{"enabled":[3]}}`,
}

// PresetPolicy returns the preset policy of that name.
func PresetPolicy(name string) (*Policy, bool) {
	s, ok := PolicyPresets[name]
	if !ok {
		return nil, false
	}
	p, err := ParsePolicy([]byte(s))
	if err != nil {
		panic("engine: preset policy " + name + ": " + err.Error()) // TestPolicyPresets
	}
	return p, true
}

// PolicyPFC is a Policy's PFC part.
type PolicyPFC struct {
	// Enabled lists priorities as JSON numbers (an int slice: a []uint8
	// would also accept a base64 string).
	Enabled []int `json:"enabled"`
}

// PolicyETS is a Policy's ETS part.
type PolicyETS struct {
	// MinBandwidth maps a priority ("0"-"7") to the least ETS bandwidth
	// share of its traffic class, 0-100.
	MinBandwidth map[string]uint8 `json:"min_bandwidth"`
}

// ParsePolicy decodes a policy, refusing unknown members, members given
// twice, values of the wrong type, priorities outside 0-7, DSCPs outside
// 0-63 and shares over 100. Its error (a *JSONError) lists every problem,
// each at its line and column. Member names match exactly.
func ParsePolicy(b []byte) (*Policy, error) {
	d, root := jsondoc.Read(b)
	if root != nil {
		if p := readPolicy(d, root); d.Total() == 0 {
			return p, nil
		}
	}
	return nil, d.Err("policy")
}

// readPolicy walks a policy document.
func readPolicy(d *jsondoc.Doc, v *jsondoc.Value) *Policy {
	p := &Policy{}
	if !d.WantObject(v, "", "a policy object") {
		return p
	}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path := jsondoc.MemberPath("", key)
		switch key {
		case "pfc":
			p.PFC = nil
			if d.WantObject(v, path, "an object") {
				p.PFC = &PolicyPFC{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "enabled" {
						p.PFC.Enabled = dcb.ReadPriorities(d, path, v)
					} else {
						d.Unknown(m, "pfc", "enabled")
					}
				}
			}
		case "app":
			var bad []bool
			p.App, bad = dcb.ReadApps(d, path, v)
			for i, a := range p.App {
				if bad[i] {
					continue
				}
				at := func(field string) (int, string) {
					path := jsondoc.IndexPath(path, i)
					if off, ok := d.At(path + "." + field); ok {
						return off, path + "." + field
					}
					off, _ := d.At(path)
					return off, path
				}
				if a.Priority > 7 {
					off, path := at("priority")
					d.Errorf(off, path, "priority %d is not 0-7", a.Priority)
				}
				if a.Selector < lldp.AppSelEthertype || a.Selector > lldp.AppSelDSCP {
					off, path := at("selector")
					d.Errorf(off, path, "selector %v is not one of ethertype, tcp-port, udp-port, port or dscp", a.Selector)
				}
			}
		case "ets":
			p.ETS = nil
			if d.WantObject(v, path, "an object") {
				p.ETS = &PolicyETS{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "min_bandwidth" {
						p.ETS.MinBandwidth = minBandwidth(d, path, v)
					} else {
						d.Unknown(m, "ets", "min_bandwidth")
					}
				}
			}
		case "willing":
			d.Leaf(v, path, "true, false or null", &p.Willing)
		case "trust":
			if d.Leaf(v, path, `"dscp", "pcp" or null`, &p.Trust) && p.Trust != nil && *p.Trust != "dscp" && *p.Trust != "pcp" {
				d.Errorf(v.Off, path, "%s is not dscp or pcp", jsondoc.Describe(v))
			}
		case "roce":
			p.RoCE = nil
			if d.WantObject(v, path, "an object") {
				p.RoCE = &PolicyRoCE{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "dscp" {
						p.RoCE.DSCP = intIn(d, path, v, 63, "a DSCP 0-63")
					} else {
						d.Unknown(m, "roce", "dscp")
					}
				}
			}
		case "cnp":
			p.CNP = nil
			if d.WantObject(v, path, "an object") {
				p.CNP = &PolicyCNP{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					switch path := jsondoc.MemberPath(path, key); key {
					case "dscp":
						p.CNP.DSCP = intIn(d, path, v, 63, "a DSCP 0-63")
					case "priority":
						p.CNP.Priority = intIn(d, path, v, 7, "a priority 0-7")
					default:
						d.Unknown(m, "cnp", "dscp or priority")
					}
				}
			}
		default:
			d.Unknown(m, "", "pfc, app, ets, willing, trust, roce or cnp")
		}
	}
	return p
}

// intIn decodes a number 0-max or null at v.
func intIn(d *jsondoc.Doc, path string, v *jsondoc.Value, max int, want string) *int {
	var x *int
	if d.Leaf(v, path, want+" or null", &x) && x != nil && (*x < 0 || *x > max) {
		d.Errorf(v.Off, path, "%d is not 0-%d", *x, max)
	}
	return x
}

// minBandwidth decodes ets.min_bandwidth at v: priority keys "0" to "7",
// one spelling each ("3", never "03" or "+3"), shares 0-100.
func minBandwidth(d *jsondoc.Doc, path string, v *jsondoc.Value) map[string]uint8 {
	if v.Null() {
		return nil
	}
	if !v.Object() {
		d.Errorf(v.Off, path, "want an object of priorities to percentages, got %s", jsondoc.Describe(v))
		return nil
	}
	out := map[string]uint8{}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path := jsondoc.MapKeyPath(path, key)
		if len(key) != 1 || key[0] < '0' || key[0] > '7' {
			d.Errorf(m.KeyOff, path, "the key is not a priority 0-7")
		}
		var x uint8
		if d.Leaf(v, path, "a percentage 0-100", &x) && x > 100 {
			d.Errorf(v.Off, path, "%d%% is over 100", x)
		}
		out[key] = x
	}
	return out
}

func (c *checker) policy() {
	pol := c.o.Policy
	here := c.here("the parameters in force here")
	if here == nil {
		c.add(verdict.CheckPolicy, verdict.Unknown, "the operational parameters are unknown (local parameters unknown)", "")
		return
	}
	var bad, ev []string
	if pol.PFC != nil {
		var want dcb.PrioSet
		for _, p := range pol.PFC.Enabled {
			want |= 1 << p
		}
		var got dcb.PrioSet
		if here.PFC != nil {
			got = here.PFC.Enabled
		}
		ev = append(ev, fmt.Sprintf("pfc.enabled: want %s, in force %s", prios(want), prios(got)))
		if got != want {
			bad = append(bad, fmt.Sprintf("PFC on %s, expected %s", prios(got), prios(want)))
		}
	}
	for _, a := range pol.App {
		if slices.Contains(here.App, a) {
			ev = append(ev, fmt.Sprintf("app %s %d -> %d: in force", a.Selector, a.Protocol, a.Priority))
		} else {
			bad = append(bad, fmt.Sprintf("APP %s %d -> priority %d not in force", a.Selector, a.Protocol, a.Priority))
		}
	}
	if pol.ETS != nil {
		keys := make([]string, 0, len(pol.ETS.MinBandwidth))
		for k := range pol.ETS.MinBandwidth {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			min := pol.ETS.MinBandwidth[k]
			p, _ := strconv.Atoi(k) // ParsePolicy checked it
			if here.ETS == nil {
				bad = append(bad, "no ETS in force")
				break
			}
			tc := here.ETS.PrioTC[p]
			if tc > 7 {
				bad = append(bad, fmt.Sprintf("priority %d on invalid TC %d", p, tc))
				continue
			}
			bw, tsa := here.ETS.TCBandwidth[tc], here.ETS.TSA[tc]
			ev = append(ev, fmt.Sprintf("ets: priority %d on TC %d, %s %d%% (want ets >= %d%%)", p, tc, tsa, bw, min))
			if tsa != lldp.TSAETS || bw < min {
				bad = append(bad, fmt.Sprintf("priority %d's TC %d has %s %d%%, expected ets >= %d%%", p, tc, tsa, bw, min))
			}
		}
	}
	if pol.Willing != nil {
		switch {
		case c.in.Willing == nil:
			bad = append(bad, "the Willing state is unknown")
		case *c.in.Willing != *pol.Willing:
			bad = append(bad, fmt.Sprintf("Willing is %s, expected %s", onOff(*c.in.Willing), onOff(*pol.Willing)))
		default:
			ev = append(ev, "willing "+onOff(*c.in.Willing))
		}
	}
	unknown := c.policyRoCE(&bad, &ev)
	if len(bad) > 0 {
		c.add(verdict.CheckPolicy, verdict.Critical, strings.Join(bad, "; "), "apply the policy (dcbtop apply, or the switch's configuration when this host is willing)", ev...)
		return
	}
	if len(unknown) > 0 {
		c.add(verdict.CheckPolicy, verdict.Unknown, "the policy could not be checked in full: "+strings.Join(unknown, "; "), "", ev...)
		return
	}
	c.add(verdict.CheckPolicy, verdict.OK, "the operational parameters meet the policy", "", ev...)
}

// policyRoCE checks a policy's trust, RoCE DSCP and CNP parts against the
// sampled facts, adding what differs to bad and what was seen to ev; it
// returns what could not be checked.
func (c *checker) policyRoCE(bad, ev *[]string) (unknown []string) {
	pol := c.o.Policy
	lc := c.in.Counters
	if pol.Trust != nil {
		var q *lossless.PortQoSSample
		if lc != nil {
			q = lc.QoS
		}
		dscp, known := q.TrustsDSCP()
		got := "pcp"
		if dscp {
			got = "dscp"
		}
		switch {
		case !known:
			unknown = append(unknown, "trust: DCB netlink does not report what the NIC classifies by")
		case got != *pol.Trust:
			*bad = append(*bad, fmt.Sprintf("the NIC trusts %s first, expected %s", got, *pol.Trust))
		default:
			*ev = append(*ev, "trust "+got)
		}
	}
	if want := roceDSCP(pol.RoCE); want != nil {
		var got []string
		known := false
		if lc != nil {
			for _, r := range lc.RoCE {
				if r.DefaultToS != nil {
					known = true
					if int(r.DefaultToS.DSCP) != *want {
						*bad = append(*bad, fmt.Sprintf("%s port %d: rdma_cm's default DSCP is %d, expected %d", engine.Sanitize(r.Device), r.Port, r.DefaultToS.DSCP, *want))
					}
					got = append(got, fmt.Sprintf("%s/%d dscp %d", engine.Sanitize(r.Device), r.Port, r.DefaultToS.DSCP))
				}
			}
		}
		if known {
			*ev = append(*ev, "roce: "+strings.Join(got, ", "))
		} else {
			unknown = append(unknown, "roce.dscp: no RoCE port with rdma_cm's default ToS configured")
		}
	}
	if pol.CNP != nil && (pol.CNP.DSCP != nil || pol.CNP.Priority != nil) {
		unknown = append(unknown, c.policyCNP(bad, ev)...)
	}
	return unknown
}

// policyCNP checks the policy's CNP marking against the DCQCN settings
// read (ECNSample.CNPDSCP, CNPPriority); what was not read is unknown,
// with the command that would tell.
func (c *checker) policyCNP(bad, ev *[]string) (unknown []string) {
	pol := c.o.Policy.CNP
	var e *lossless.ECNSample
	if lc := c.in.Counters; lc != nil {
		e = lc.ECN
	}
	hint := "mlxconfig -d DEV q CNP_DSCP_P1 CNP_802P_PRIO_P1"
	if e != nil && e.Hint != "" {
		hint = e.Hint
	}
	for _, f := range []struct {
		name string
		want *int
		got  *uint8
	}{{"cnp.dscp", pol.DSCP, e.DSCPOfCNP()}, {"cnp.priority", pol.Priority, e.PriorityOfCNP()}} {
		switch {
		case f.want == nil:
		case f.got == nil:
			unknown = append(unknown, f.name+": not read here ("+hint+")")
		case int(*f.got) != *f.want:
			*bad = append(*bad, fmt.Sprintf("%s is %d, expected %d", f.name, *f.got, *f.want))
		default:
			*ev = append(*ev, fmt.Sprintf("%s %d", f.name, *f.got))
		}
	}
	return unknown
}

func roceDSCP(r *PolicyRoCE) *int {
	if r == nil {
		return nil
	}
	return r.DSCP
}
