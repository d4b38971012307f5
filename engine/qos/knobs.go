// SPDX-License-Identifier: Apache-2.0

package qos

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lossless"
)

// A TCRate is one traffic class's transmit rate limit: struct
// ieee_maxrate's tc_maxrate[TC] (include/uapi/linux/dcbnl.h), in kbit/s,
// 0 for no limit. The kernel hands the eight of them to the driver's
// ieee_setmaxrate (net/dcb/dcbnl.c dcbnl_ieee_set, DCB_ATTR_IEEE_MAXRATE);
// mlx5 converts them to its 100 Mbit/s or 1 Gbit/s units and refuses more
// than 255 Gbit/s (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c
// mlx5e_dcbnl_ieee_setmaxrate).
type TCRate struct {
	TC   uint8  `json:"tc"`
	Kbps uint64 `json:"kbps"`
}

// rateUnits are the units a rate may be given in, in bit/s: the SI
// multiples of bit/s that iproute2's dcb maxrate and tc take (tc_util.c
// get_rate64), and their one-letter forms. "bps" and its multiples are
// not among them: tc and dcb read them as bytes per second.
var rateUnits = map[string]uint64{
	"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
	"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12,
}

// ParseRate reads a transmit rate limit ("10gbit", "2.5g", "500mbit",
// "0" or "unlimited" for none) into struct ieee_maxrate's kbit/s. The
// rate must be a whole number of kbit/s; a bare number other than 0, and
// the byte units tc and dcb take ("bps", "gbps"), are refused.
func ParseRate(s string) (uint64, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if l == "0" || l == "unlimited" {
		return 0, nil
	}
	l = strings.TrimSuffix(l, "/s")
	i := strings.IndexFunc(l, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		if i < 0 {
			return 0, fmt.Errorf("%q: give a unit: kbit, mbit, gbit or tbit (10gbit); 0 for no limit", s)
		}
		return 0, fmt.Errorf("%q: want a rate such as 10gbit, 500mbit or 0 (no limit)", s)
	}
	num, unit := l[:i], l[i:]
	mult, ok := rateUnits[unit]
	if !ok {
		if strings.HasSuffix(unit, "bps") || unit == "b" {
			return 0, fmt.Errorf("%q: tc and dcb read %q as bytes per second: give bits per second (kbit, mbit, gbit, tbit)", s, unit)
		}
		return 0, fmt.Errorf("%q: unknown unit %q (want kbit, mbit, gbit or tbit)", s, unit)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || strings.Count(num, ".") > 1 || strings.HasPrefix(num, ".") || strings.HasSuffix(num, ".") {
		return 0, fmt.Errorf("%q: %q is not a number", s, num)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).SetUint64(mult)))
	r.Quo(r, big.NewRat(1000, 1)) // bit/s → kbit/s
	if !r.IsInt() {
		return 0, fmt.Errorf("%q: not a whole number of kbit/s (struct ieee_maxrate counts kbit/s)", s)
	}
	if !r.Num().IsUint64() {
		return 0, fmt.Errorf("%q: too large for struct ieee_maxrate's u64 kbit/s", s)
	}
	return r.Num().Uint64(), nil
}

// ParseMaxRate reads dcbtop apply's --maxrate: TC:RATE pairs,
// comma-separated, as iproute2's dcb maxrate tc-maxrate takes them
// ("0:10gbit,3:25gbit"; TC 0-7, or "all" for the eight), each RATE as
// ParseRate reads it.
func ParseMaxRate(s string) ([]TCRate, error) {
	var out []TCRate
	for _, pair := range strings.Split(s, ",") {
		tc, rate, ok := strings.Cut(pair, ":")
		if !ok {
			return nil, fmt.Errorf("%q: want TC:RATE, e.g. 3:25gbit (0 for no limit)", pair)
		}
		kbps, err := ParseRate(rate)
		if err != nil {
			return nil, fmt.Errorf("TC %s: %w", tc, err)
		}
		if tc == "all" {
			for i := range uint8(8) {
				out = append(out, TCRate{TC: i, Kbps: kbps})
			}
			continue
		}
		n, err := strconv.ParseUint(tc, 10, 8)
		if err != nil || n > 7 {
			return nil, fmt.Errorf("%q: the traffic class is 0-7 or all", pair)
		}
		out = append(out, TCRate{TC: uint8(n), Kbps: kbps})
	}
	return out, nil
}

// RateWords renders kbit/s for people: "unlimited", "25 Gbit/s",
// "1.5 Gbit/s", "100 Mbit/s", "64 kbit/s".
func RateWords(kbps uint64) string {
	if kbps == 0 {
		return "unlimited"
	}
	for _, u := range []struct {
		div  uint64
		name string
	}{{1e9, "Tbit/s"}, {1e6, "Gbit/s"}, {1e3, "Mbit/s"}} {
		if kbps >= u.div {
			return strconv.FormatFloat(float64(kbps)/float64(u.div), 'f', -1, 64) + " " + u.name
		}
	}
	return strconv.FormatUint(kbps, 10) + " kbit/s"
}

// rateArg renders kbit/s as ParseRate reads it back exactly: "0",
// "25gbit", "1500mbit", "64kbit".
func rateArg(kbps uint64) string {
	switch {
	case kbps == 0:
		return "0"
	case kbps%1e9 == 0:
		return strconv.FormatUint(kbps/1e9, 10) + "tbit"
	case kbps%1e6 == 0:
		return strconv.FormatUint(kbps/1e6, 10) + "gbit"
	case kbps%1e3 == 0:
		return strconv.FormatUint(kbps/1e3, 10) + "mbit"
	}
	return strconv.FormatUint(kbps, 10) + "kbit"
}

// The DCBX mode bits of DCB_ATTR_DCBX (include/uapi/linux/dcbnl.h
// DCB_CAP_DCBX_*), which a State's DCBX byte holds.
const (
	dcbxHost       = 0x01 // DCB_CAP_DCBX_HOST: an agent on the host runs DCBX
	dcbxLLDManaged = 0x02 // DCB_CAP_DCBX_LLD_MANAGED: an embedded agent (the NIC firmware) does
	dcbxVerCEE     = 0x04 // DCB_CAP_DCBX_VER_CEE
	dcbxVerIEEE    = 0x08 // DCB_CAP_DCBX_VER_IEEE
)

// The agents a DCBXMode names.
const (
	// DCBXHost is DCB_CAP_DCBX_HOST: an LLDP agent on the host (lldpad,
	// dcbtop --agent) negotiates DCBX and programs the NIC.
	DCBXHost = "host"
	// DCBXLLDManaged is DCB_CAP_DCBX_LLD_MANAGED: the NIC's own agent
	// (its firmware) negotiates DCBX; the host's writes are refused or
	// only an initial configuration.
	DCBXLLDManaged = "lld-managed"
)

// A DCBXMode is the DCBX mode to set with DCB_CMD_SDCBX (net/dcb/dcbnl.c
// dcbnl_setdcbx hands the mode byte to the driver's setdcbx, whose
// non-zero answer is a refusal): who runs DCBX (Agent, DCBXHost or
// DCBXLLDManaged) and in which version (Version "ieee" or "cee",
// DCB_CAP_DCBX_VER_*; "" for the one in force, IEEE where both or neither
// are). One version, because drivers refuse both at once (ixgbe, i40e,
// ice: "no support for ... CEE+IEEE"). In JSON and on the command line it
// is written "host", "host,cee", "lld-managed".
type DCBXMode struct {
	Agent   string
	Version string
}

// ParseDCBXMode reads "host", "lld-managed", or either with ",ieee" or
// ",cee".
func ParseDCBXMode(s string) (DCBXMode, error) {
	agent, ver, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ",")
	m := DCBXMode{Agent: agent, Version: ver}
	switch {
	case agent != DCBXHost && agent != DCBXLLDManaged:
		return m, fmt.Errorf("dcbx mode %q: want host or lld-managed (optionally ,ieee or ,cee)", s)
	case ver != "" && ver != "ieee" && ver != "cee":
		return m, fmt.Errorf("dcbx mode %q: the version is ieee or cee (one of them: drivers refuse both)", s)
	}
	return m, nil
}

// String is the mode as ParseDCBXMode reads it.
func (m DCBXMode) String() string {
	if m.Version == "" {
		return m.Agent
	}
	return m.Agent + "," + m.Version
}

// MarshalText writes the mode as String does.
func (m DCBXMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the mode as ParseDCBXMode does.
func (m *DCBXMode) UnmarshalText(b []byte) error {
	v, err := ParseDCBXMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Firmware reports whether m hands DCBX to the NIC's firmware.
func (m DCBXMode) Firmware() bool { return m.Agent == DCBXLLDManaged }

// Words says m as dcbtop says a DCBX mode read from the NIC (capture/dcbnl
// Mode.String): "host agent, IEEE", "firmware-managed (LLD_MANAGED)".
func (m DCBXMode) Words() string {
	w := "host agent"
	if m.Firmware() {
		w = "firmware-managed (LLD_MANAGED)"
	}
	if m.Version != "" {
		w += ", " + strings.ToUpper(m.Version)
	}
	return w
}

// DCBXModeOf returns the mode a DCBX mode byte (DCB_CAP_DCBX_*) stands
// for, as an undo writes it back: host when DCB_CAP_DCBX_HOST is set,
// else lld-managed (mlx5 in firmware mode only clears HOST); its one
// version. both is set when the byte names IEEE and CEE, which no write
// can restore (Version is then "").
func DCBXModeOf(b uint8) (m DCBXMode, both bool) {
	m.Agent = DCBXLLDManaged
	if b&dcbxHost != 0 && b&dcbxLLDManaged == 0 {
		m.Agent = DCBXHost
	}
	switch ieee, cee := b&dcbxVerIEEE != 0, b&dcbxVerCEE != 0; {
	case ieee && cee:
		both = true
	case ieee:
		m.Version = "ieee"
	case cee:
		m.Version = "cee"
	}
	return m, both
}

// maxRateErrors checks rates against what the NIC reports: TCs 0-7, each
// once, a driver that reports its rate limits (DCB_ATTR_IEEE_MAXRATE: it
// has ieee_getmaxrate, whose absence dcbnl_ieee_fill answers by leaving
// the attribute out), and no limit on a traffic class beyond the NIC's
// (struct ieee_ets ets_cap).
func maxRateErrors(rates []TCRate, reported bool, maxTCs uint8) []error {
	var errs []error
	seen := map[uint8]bool{}
	for _, r := range rates {
		switch {
		case r.TC > 7:
			errs = append(errs, fmt.Errorf("maxrate: TC %d: traffic classes are 0-7", r.TC))
		case seen[r.TC]:
			errs = append(errs, fmt.Errorf("maxrate: TC %d given twice", r.TC))
		case maxTCs > 0 && r.TC >= maxTCs && r.Kbps != 0:
			errs = append(errs, fmt.Errorf("maxrate: TC %d: the NIC has %d traffic classes (ETS ets_cap)", r.TC, maxTCs))
		}
		seen[r.TC] = true
	}
	if len(rates) > 0 && !reported {
		errs = append(errs, errors.New("maxrate: the driver reports no rate limits (DCB_ATTR_IEEE_MAXRATE: no ieee_getmaxrate): they cannot be set here"))
	}
	return errs
}

// The PFC storm prevention timeout's special values
// (include/uapi/linux/ethtool.h).
const (
	// StormTimeoutOff is PFC_STORM_PREVENTION_DISABLE.
	StormTimeoutOff uint16 = 0
	// StormTimeoutAuto is PFC_STORM_PREVENTION_AUTO: the driver's
	// default (mlx5 writes 100 ms, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC, and
	// reads that back).
	StormTimeoutAuto uint16 = 0xffff
)

// ParseStormTimeout reads dcbtop apply's --pfc-storm-timeout: a timeout
// in milliseconds ("100", "100ms"; 1-65534), "off" (or 0) or "auto", as
// ETHTOOL_PFC_PREVENTION_TOUT's u16 holds it.
func ParseStormTimeout(s string) (uint16, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	switch l {
	case "off", "0":
		return StormTimeoutOff, nil
	case "auto":
		return StormTimeoutAuto, nil
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(l, "ms"), 10, 16)
	if err != nil || n == uint64(StormTimeoutAuto) {
		return 0, fmt.Errorf("%q: want a timeout in ms (1-65534), off or auto", s)
	}
	return uint16(n), nil
}

// StormTimeoutWords says a timeout for people: "off", "auto", "100 ms".
func StormTimeoutWords(ms uint16) string {
	switch ms {
	case StormTimeoutOff:
		return "off"
	case StormTimeoutAuto:
		return "auto"
	}
	return strconv.Itoa(int(ms)) + " ms"
}

// stormTimeoutArg is ms as ParseStormTimeout reads it back.
func stormTimeoutArg(ms uint16) string {
	switch ms {
	case StormTimeoutOff:
		return "off"
	case StormTimeoutAuto:
		return "auto"
	}
	return strconv.Itoa(int(ms))
}

// mlx5StormTimeout is the range mlx5 takes (en_ethtool.c
// mlx5e_set_pfc_prevention_tout: MLX5E_PFC_PREVEN_TOUT_MIN_MSEC and
// _MAX_MSEC; off and auto besides), refused with EINVAL outside it.
const mlx5StormTimeoutMin, mlx5StormTimeoutMax = 80, 8000

// A PrioDSCP is one DSCP rewrite: frames of Priority (0-7) leave with
// DSCP (0-63), an entry of the APP rewrite table
// (DCB_ATTR_DCB_REWR_TABLE with selector IEEE_8021QAZ_APP_SEL_DSCP; the
// entry's priority is the priority, its protocol the DSCP: iproute2's
// dcb rewr prio-dscp PRIO:DSCP).
type PrioDSCP struct {
	Priority uint8 `json:"priority"`
	DSCP     uint8 `json:"dscp"`
}

// ParsePrioDSCP reads dcbtop apply's --rewr-dscp: PRIO:DSCP pairs,
// comma-separated, as dcb rewr's prio-dscp takes them ("3:26,5:46").
func ParsePrioDSCP(s string) ([]PrioDSCP, error) {
	var out []PrioDSCP
	for _, pair := range strings.Split(s, ",") {
		p, d, ok := strings.Cut(pair, ":")
		pv, err1 := strconv.ParseUint(p, 10, 8)
		dv, err2 := strconv.ParseUint(d, 10, 8)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q: want PRIO:DSCP, e.g. 3:26", pair)
		}
		out = append(out, PrioDSCP{Priority: uint8(pv), DSCP: uint8(dv)})
	}
	return out, nil
}

// ParsePriorities reads dcbtop apply's --rewr-dscp-delete: priorities
// 0-7, comma-separated ("3,5"), as dcb rewr del prio-dscp names the
// entries it deletes by their priority.
func ParsePriorities(s string) ([]uint8, error) {
	var out []uint8
	for _, x := range strings.Split(s, ",") {
		p, err := strconv.ParseUint(strings.TrimSpace(x), 10, 8)
		if err != nil || p > 7 {
			return nil, fmt.Errorf("%q: want a priority 0-7", x)
		}
		out = append(out, uint8(p))
	}
	return out, nil
}

// ErrNoRewriteTable is the one line said where the kernel has no APP
// rewrite table: it appeared in Linux 6.3 (net/dcb/dcbnl.c, net-next
// commit 622f1b2fae2e "net: dcb: add new rewrite table", January 2023),
// and an older kernel leaves DCB_ATTR_DCB_REWR_TABLE out of its
// DCB_CMD_IEEE_GET replies and skips it in a set without a word.
var ErrNoRewriteTable = errors.New("the kernel has no APP rewrite table (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3): rewrite entries cannot be set here")

// rewriteErrors checks DSCP rewrites against the table the kernel
// reports (q's Rewrite, nil: none; q nil: no DCB netlink): priorities
// 0-7 and DSCP 0-63, each priority once, none both set and deleted.
func rewriteErrors(set []PrioDSCP, del []uint8, q *lossless.PortQoSSample) []error {
	if len(set) == 0 && len(del) == 0 {
		return nil
	}
	var errs []error
	seen := map[uint8]bool{}
	for _, r := range set {
		switch {
		case r.Priority > 7:
			errs = append(errs, fmt.Errorf("rewrite: priority %d is not 0-7", r.Priority))
		case r.DSCP > 63:
			errs = append(errs, fmt.Errorf("rewrite: priority %d: DSCP %d is not 0-63", r.Priority, r.DSCP))
		case seen[r.Priority]:
			errs = append(errs, fmt.Errorf("rewrite: priority %d given twice", r.Priority))
		}
		seen[r.Priority] = true
	}
	for _, p := range del {
		if p > 7 || seen[p] {
			errs = append(errs, fmt.Errorf("rewrite: priority %d deleted and set, or not 0-7", p))
		}
	}
	switch {
	case q == nil:
		errs = append(errs, errors.New("rewrite: the driver reports no DCB netlink here: rewrite entries cannot be set"))
	case q.Rewrite == nil:
		errs = append(errs, ErrNoRewriteTable)
	}
	return errs
}

// rewriteDSCPs returns the DSCPs the table rewrites priority p to.
func rewriteDSCPs(table []lossless.RewriteEntry, p uint8) []uint16 {
	var out []uint16
	for _, e := range table {
		if e.Selector == "dscp" && e.Priority == p {
			out = append(out, e.Protocol)
		}
	}
	return out
}

// withRewrite returns table with c's DSCP rewrites: each replaces the
// DSCP entries of its priority, a deleted priority loses them; the other
// entries stay, in order.
func (c *Change) withRewrite(table []lossless.RewriteEntry) []lossless.RewriteEntry {
	out := slices.DeleteFunc(slices.Clone(table), func(e lossless.RewriteEntry) bool {
		return e.Selector == "dscp" && (slices.ContainsFunc(c.RewriteDSCP, func(r PrioDSCP) bool { return r.Priority == e.Priority }) ||
			slices.Contains(c.RewriteDSCPDelete, e.Priority))
	})
	if out == nil {
		out = []lossless.RewriteEntry{}
	}
	for _, r := range c.RewriteDSCP {
		out = append(out, lossless.RewriteEntry{Selector: "dscp", Priority: r.Priority, Protocol: uint16(r.DSCP)})
	}
	return out
}
