// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Where the NIC puts RoCE traffic. An APP entry is a promise the DCBX
// peers exchange (IEEE Std 802.1Q-2018 D.2.12): it tells the switch how to
// classify, but a Linux NIC applies only the entries its driver
// programs, and those are few:
//
//   - mlx5 (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c,
//     mlx5e_dcbnl_ieee_setapp) accepts DSCP entries only (anything else is
//     -EINVAL) and writes them to the DSCP-to-priority table, switching
//     the port to DSCP trust with the first one; deleting an entry puts
//     that DSCP back on priority 0 (mlx5e_dcbnl_ieee_delapp);
//   - ice (drivers/net/ethernet/intel/ice/ice_dcb_nl.c, ice_dcbnl_setapp:
//     "ONLY DSCP APP TLVs have operational significance") likewise;
//   - bnxt_en (drivers/net/ethernet/broadcom/bnxt/bnxt_dcb.c,
//     bnxt_dcbnl_ieee_setapp) hands the RoCE entries, UDP 4791 and
//     EtherType 0x8915, to the firmware, and bnxt_re takes RoCE's priority
//     from them (drivers/infiniband/hw/bnxt_re/main.c,
//     bnxt_re_get_priority_mask), tagging its traffic with it.
//
// Otherwise the priority is the traffic's own marking, read as the port
// trusts: the DSCP of the ToS by the DSCP table, or the VLAN tag's PCP.
// Untagged RoCE (a GID of the interface itself) carries no PCP: rdma_cm
// gives it service level 0 (iboe_tos_to_sl, drivers/infiniband/core/
// cma.c), and a receiver classifying by PCP puts it on the port's default
// priority, 0 (IEEE Std 802.1Q-2018 6.9.3).

// A RoCEClassifier is what decides a RoCE packet's priority in the NIC.
type RoCEClassifier string

// The classifiers of RoCE traffic.
const (
	// ClassifyDSCP: the ToS's DSCP through the DSCP-to-priority table.
	ClassifyDSCP RoCEClassifier = "dscp"
	// ClassifyPCP: the VLAN tag's priority code point.
	ClassifyPCP RoCEClassifier = "pcp"
	// ClassifyApp: the APP table's RoCE entry, which the driver hands to
	// the firmware (bnxt_en and bnxt_re).
	ClassifyApp RoCEClassifier = "app"
)

// A RoCELanding is where one way of classifying puts a RoCE port's
// traffic.
type RoCELanding struct {
	// By is the classifier.
	By RoCEClassifier `json:"by"`
	// Priority is the priority, null when it cannot be known here.
	Priority *int `json:"priority"`
	// Default is true when no entry chose the priority: the port's
	// default took it (a DSCP the table does not map, untagged traffic
	// read by PCP).
	Default bool `json:"default"`
	// How says how the priority was found, in words.
	How string `json:"how"`
}

// landingFacts are what decides a RoCE port's priority.
type landingFacts struct {
	ifname string
	// table is the APP table the NIC applies, tableFrom where it is from.
	table     []dcb.App
	tableFrom string
	qos       *PortQoSSample
	r         *RoCEPortSample
	driver    string
}

// nicTable returns the APP table the NIC applies and its name: the
// kernel's own (DCB netlink) where that is this host's local source,
// else the table in force (what a host DCBX agent programs).
func nicTable(local, op *dcb.Params, kernel bool) ([]dcb.App, string) {
	if kernel && local != nil {
		return local.App, "the kernel's APP table"
	}
	if op != nil {
		return op.App, "the APP table in force"
	}
	return nil, ""
}

// bnxtDriver is the Broadcom netdev driver whose RoCE device (bnxt_re)
// takes its priority from the APP table's RoCE entries (ethtool -i:
// DRV_MODULE_NAME "bnxt_en").
const bnxtDriver = "bnxt_en"

// landings returns where the NIC puts the port's RoCE traffic: one
// landing when the classifier is known (the driver's or the trust
// table's), one per possible classifier when the trust is unknown.
func (f *landingFacts) landings() []RoCELanding {
	if f.driver == bnxtDriver {
		if l, ok := f.appLanding(); ok {
			return []RoCELanding{l}
		}
	}
	if f.qos != nil && f.qos.Trust != nil {
		how := "trust " + strings.Join(f.qos.Trust, ", ")
		if f.qos.TrustDerived {
			how += " (derived from the APP table)"
		}
		var untagged string
		for _, sel := range f.qos.Trust {
			switch sel {
			case "dscp":
				l := f.dscpLanding()
				l.How += "; " + how
				return []RoCELanding{l}
			case "pcp":
				l, tagged := f.pcpLanding()
				if tagged != "untagged" {
					l.How += "; " + how
					return []RoCELanding{l}
				}
				// Untagged: no PCP to read, the next field decides.
				untagged = l.How + ", "
			}
		}
		zero := 0
		return []RoCELanding{{By: ClassifyPCP, Priority: &zero, Default: true,
			How: untagged + "nothing the port trusts (" + strings.Join(f.qos.Trust, ", ") + ") marks it: the default priority 0"}}
	}
	l, _ := f.pcpLanding()
	return []RoCELanding{f.dscpLanding(), l}
}

// appLanding is bnxt_re's priority: the APP table's UDP 4791 (RoCE v2)
// entry, else its EtherType 0x8915 (RoCE v1) one.
func (f *landingFacts) appLanding() (RoCELanding, bool) {
	for _, want := range []struct {
		sel   lldp.AppSelector
		proto uint16
	}{{lldp.AppSelUDP, RoCEv2Port}, {lldp.AppSelEthertype, RoCEv1Ethertype}} {
		for _, a := range f.table {
			if a.Selector == want.sel && a.Protocol == want.proto {
				p := int(a.Priority)
				return RoCELanding{By: ClassifyApp, Priority: &p,
					How: fmt.Sprintf("APP %s %d in %s (bnxt_re takes RoCE's priority from it)", a.Selector, a.Protocol, f.tableFrom)}, true
			}
		}
	}
	return RoCELanding{}, false
}

// dscpLanding is the priority of the default ToS's DSCP.
func (f *landingFacts) dscpLanding() RoCELanding {
	t := f.r.DefaultToS
	if t == nil {
		return RoCELanding{By: ClassifyDSCP, How: "rdma_cm's default ToS is not configured: the DSCP is what each application sets"}
	}
	if p, ok := dscpIn(f.table, t.DSCP); ok {
		return RoCELanding{By: ClassifyDSCP, Priority: &p, How: fmt.Sprintf("APP dscp %d in %s", t.DSCP, f.tableFrom)}
	}
	zero := 0
	where := f.tableFrom
	if where == "" {
		where = "the APP table"
	}
	return RoCELanding{By: ClassifyDSCP, Priority: &zero, Default: true,
		How: fmt.Sprintf("DSCP %d is not in %s: the default priority 0", t.DSCP, where)}
}

// dscpIn returns the priority table maps dscp to.
func dscpIn(table []dcb.App, dscp uint8) (int, bool) {
	for _, a := range table {
		if a.Selector == lldp.AppSelDSCP && a.Protocol == uint16(dscp) {
			return int(a.Priority), true
		}
	}
	return 0, false
}

// iceDriver is the Intel E800 netdev driver, under the irdma RDMA device
// (ethtool -i: "ice").
const iceDriver = "ice"

// ipTOS2Prio is the kernel's ToS-to-priority table (net/ipv4/route.c
// ip_tos2prio: TC_PRIO_BESTEFFORT 0, BULK 2, INTERACTIVE_BULK 4,
// INTERACTIVE 6), which rt_tos2priority indexes by the ToS bits
// (IPTOS_TOS(tos) >> 1).
var ipTOS2Prio = [16]uint8{0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4}

// rtTOS2Priority is include/net/route.h rt_tos2priority.
func rtTOS2Priority(tos uint8) int { return int(ipTOS2Prio[(tos&0x1e)>>1]) }

// pcpLanding is the priority the traffic's VLAN tag carries; tagged says
// "untagged", "tagged" or "" (unknown). irdma tags every RoCE packet
// while DCB runs in VLAN (PCP) mode, a priority tag (VLAN 0) where the GID
// has no VLAN, with the priority rt_tos2priority gives the ToS
// (drivers/infiniband/hw/irdma/verbs.c, irdma_modify_qp_roce).
func (f *landingFacts) pcpLanding() (RoCELanding, string) {
	if f.driver == iceDriver {
		t := f.r.DefaultToS
		if t == nil {
			return RoCELanding{By: ClassifyPCP, How: "irdma tags RoCE with rt_tos2priority of the ToS each application sets (rdma_cm's default is not configured)"}, "tagged"
		}
		p := rtTOS2Priority(t.ToS)
		return RoCELanding{By: ClassifyPCP, Priority: &p,
			How: fmt.Sprintf("irdma tags RoCE with PCP rt_tos2priority(ToS %d) = %d", t.ToS, p)}, "tagged"
	}
	dev, tagged := f.gidNetdev()
	switch tagged {
	case "untagged":
		zero := 0
		return RoCELanding{By: ClassifyPCP, Priority: &zero, Default: true,
			How: fmt.Sprintf("untagged (the GID is %s's own): no PCP, service level 0, the default priority 0", dev)}, tagged
	case "tagged":
		return RoCELanding{By: ClassifyPCP,
			How: fmt.Sprintf("tagged by %s: the PCP is its egress-qos-map's, not read here", dev)}, tagged
	}
	why := "no routable GID"
	if f.r.RoutableV2 != nil {
		why = "the routable GID's netdev is not reported"
	}
	return RoCELanding{By: ClassifyPCP, How: "whether the traffic is VLAN-tagged is unknown (" + why + ")"}, ""
}

// gidNetdev returns the netdev of the port's routable RoCE v2 GID and
// whether its traffic is tagged: "untagged" when it is the interface
// itself, "tagged" for another (a VLAN device on it), "" when unknown.
func (f *landingFacts) gidNetdev() (string, string) {
	r := f.r
	if r.RoutableV2 == nil {
		return "", ""
	}
	for _, g := range r.GIDs {
		if g.Index != *r.RoutableV2 || g.Netdev == nil {
			continue
		}
		if *g.Netdev == f.ifname {
			return *g.Netdev, "untagged"
		}
		return *g.Netdev, "tagged"
	}
	return "", ""
}

// landingVerdict judges one landing: unknown without a priority, an error
// on a priority without PFC in force, a warning where a default took it
// (no entry chose it), ok otherwise.
func landingVerdict(l RoCELanding, pfc *dcb.PFC) PathVerdict {
	switch {
	case l.Priority == nil:
		return PathUnknown
	case pfc != nil && !pfc.Enabled.Has(uint8(*l.Priority)):
		return PathError
	case l.Default:
		return PathWarning
	}
	return PathOK
}

// worstLanding returns the index of the landing with the worst verdict
// (the first of equals), and that verdict; -1 and unknown for none.
func worstLanding(ls []RoCELanding, pfc *dcb.PFC) (int, PathVerdict) {
	at, worst := -1, PathOK
	for i, l := range ls {
		if v := landingVerdict(l, pfc); at < 0 || v.Worse(worst) {
			at, worst = i, v
		}
	}
	if at < 0 {
		return -1, PathUnknown
	}
	return at, worst
}

// landingsAgree reports whether every landing has the same known
// priority.
func landingsAgree(ls []RoCELanding) bool {
	return len(ls) > 0 && !slices.ContainsFunc(ls, func(l RoCELanding) bool {
		return l.Priority == nil || *l.Priority != *ls[0].Priority
	})
}

// LandingWords renders landings as "3 by dscp (APP dscp 26 ...), 0 by
// pcp (untagged ...)".
func LandingWords(ls []RoCELanding) string {
	var b []string
	for _, l := range ls {
		p := "?"
		if l.Priority != nil {
			p = fmt.Sprint(*l.Priority)
		}
		b = append(b, fmt.Sprintf("%s by %s (%s)", p, l.By, l.How))
	}
	return strings.Join(b, "; ")
}

// A landed is a RoCE port's landings judged: the worst one (at, -1 for
// none) and its verdict, the verdict the priority hop takes unless every
// landing agrees.
type landed struct {
	facts   landingFacts
	all     []RoCELanding
	at      int
	verdict PathVerdict
}

// landOn judges where f's port's traffic lands against PFC in force (nil
// when unknown).
func landOn(f landingFacts, pfc *dcb.PFC) landed {
	l := landed{facts: f, all: f.landings()}
	l.at, l.verdict = worstLanding(l.all, pfc)
	return l
}

// landing judges where the NIC puts r's traffic on this interface.
func (in *pathInput) landing(r *RoCEPortSample) landed {
	f := landingFacts{ifname: in.Name, r: r}
	f.table, f.tableFrom = nicTable(in.Local, in.Operational, in.KernelTable)
	var pfc *dcb.PFC
	if in.Operational != nil {
		pfc = in.Operational.PFC
	}
	if lc := in.Counters; lc != nil {
		f.qos = lc.QoS
		if lc.Driver != nil {
			f.driver = *lc.Driver
		}
	}
	return landOn(f, pfc)
}

// value renders the landings for the priority hop: the priority, or each
// classifier's when they differ.
func (l landed) value() string {
	if len(l.all) == 1 || landingsAgree(l.all) {
		return fmt.Sprint(*l.all[l.at].Priority)
	}
	var b []string
	for _, x := range l.all {
		p := "?"
		if x.Priority != nil {
			p = fmt.Sprint(*x.Priority)
		}
		b = append(b, fmt.Sprintf("%s by %s", p, x.By))
	}
	return strings.Join(b, ", ")
}

// reason says why the priority hop has its verdict.
func (l landed) reason(prio int) string {
	x := l.all[l.at]
	switch {
	case len(l.all) > 1 && !landingsAgree(l.all):
		return fmt.Sprintf("the trust is unknown and the ways of classifying disagree: %s; judged at priority %d, the worse", LandingWords(l.all), prio)
	case l.verdict == PathError:
		return fmt.Sprintf("RoCE lands on priority %d, where PFC is off: %s", prio, x.How)
	case x.Default:
		return fmt.Sprintf("no entry puts RoCE on a priority: %s", x.How)
	}
	return x.How
}

// ECN field values of an IP header (RFC 3168, 5).
const (
	ecnNotECT = 0
	ecnCE     = 3
)

// ecnWords names an ECN field value.
func ecnWords(ecn uint8) string {
	switch ecn & 3 {
	case ecnNotECT:
		return "Not-ECT"
	case 1:
		return "ECT(1)"
	case 2:
		return "ECT(0)"
	}
	return "CE"
}

// A tosJudgement is the verdict on rdma_cm's default ToS: its ECN field
// and its DSCP.
type tosJudgement struct {
	value   string
	verdict PathVerdict
	why     string
	// lossy is the DSCP's landing when it lacks PFC (roce-tos-not-lossless).
	lossy *RoCELanding
	// ecn is the ECN field's problem: SeverityError for CE, SeverityWarning
	// for Not-ECT; ecnBad false when fine.
	ecn    diag.Severity
	ecnBad bool
}

// judgeToS judges the default ToS t of f's port:
//   - its ECN field: Not-ECT packets are never marked (RFC 3168, 5: a
//     router sets CE only on ECN-capable packets), so switches fall back to
//     dropping or pausing and DCQCN's notification point has nothing to
//     answer: a warning (a NIC whose congestion control sets ECT itself
//     makes up for it); CE from the sender says congestion where there is
//     none, and every packet draws a CNP: an error;
//   - its DSCP, where DSCP classifies the traffic (trusted first, the trust
//     unknown, or DSCP entries in the table, which the switch classifies
//     by: IEEE Std 802.1Q-2018 D.2.12): a DSCP the table does not map lands
//     on the default priority, and one on a priority without PFC in force
//     is lossy (roce-tos-not-lossless).
func judgeToS(t *RoCEToS, f *landingFacts, pfc *dcb.PFC) tosJudgement {
	j := tosJudgement{value: fmt.Sprintf("%d (DSCP %d, %s)", t.ToS, t.DSCP, ecnWords(t.ECN)), verdict: PathOK}
	var why []string
	switch t.ECN & 3 {
	case ecnCE:
		j.verdict, j.ecn, j.ecnBad = PathError, diag.SeverityError, true
		why = append(why, "its ECN field is CE (congestion experienced): every packet reads as marked and draws a CNP")
	case ecnNotECT:
		j.verdict, j.ecn, j.ecnBad = PathWarning, diag.SeverityWarning, true
		why = append(why, "its ECN field is Not-ECT: no switch may mark these packets (RFC 3168), so DCQCN gets no congestion signal unless the NIC sets ECT itself")
	}
	if dscpClassifies(f) {
		l := f.dscpLanding()
		switch v := landingVerdict(l, pfc); v {
		case PathError:
			j.verdict, j.lossy = PathError, &l
			why = append(why, fmt.Sprintf("DSCP %d lands on priority %d, where PFC is off (%s)", t.DSCP, *l.Priority, l.How))
		case PathWarning:
			if j.verdict == PathOK {
				j.verdict = PathWarning
			}
			why = append(why, l.How)
		}
	}
	if len(why) == 0 {
		why = append(why, "rdma_cm's default ("+t.Source+")")
	}
	j.why = strings.Join(why, "; ")
	return j
}

// dscpClassifies reports whether the DSCP decides RoCE's priority here or
// at the switch: the port trusts DSCP before anything that marks RoCE,
// its trust is unknown, or the table maps DSCP values.
func dscpClassifies(f *landingFacts) bool {
	if slices.ContainsFunc(f.table, func(a dcb.App) bool { return a.Selector == lldp.AppSelDSCP }) {
		return true
	}
	if f.qos == nil || f.qos.Trust == nil {
		return true
	}
	_, tagged := f.gidNetdev()
	for _, sel := range f.qos.Trust {
		switch {
		case sel == "dscp":
			return true
		case sel == "pcp" && tagged != "untagged":
			return false
		}
	}
	return false
}

// tosHop renders the ToS hop of r.
func (in *pathInput) tosHop(r *RoCEPortSample, f landingFacts) (string, PathVerdict, string) {
	t := r.DefaultToS
	if t == nil {
		return "", PathUnknown, "rdma_cm's default ToS is not configured (cma_roce_tos): connections carry what each application sets (ToS 0 when it sets none)"
	}
	var pfc *dcb.PFC
	if in.Operational != nil {
		pfc = in.Operational.PFC
	}
	j := judgeToS(t, &f, pfc)
	return j.value, j.verdict, j.why
}
