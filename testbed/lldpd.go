// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// LLDPDTTL is the TTL, in seconds, that lldpd 1.0.16 (Debian 12) advertises
// with tx-interval 1 and the default tx-hold 4: TTL = tx-interval x tx-hold,
// with no +1. It sends an LLDPDU about every second. A shutdown LLDPDU
// (SIGTERM, LLDPD.Stop) has TTL 0.
const LLDPDTTL = 4

// OUIs of the organisationally specific TLVs DCBX uses.
var (
	OUI8021 = [3]byte{0x00, 0x80, 0xc2} // IEEE 802.1 (802.1Qaz: 9 ETS Configuration, 10 ETS Recommendation, 11 PFC, 12 Application Priority)
	OUICEE  = [3]byte{0x00, 0x1b, 0x21} // Intel/CEE DCBX (subtype 2 = CEE DCBX TLV)
)

// UnknownTLV is an organisationally specific TLV: what lldpd sends as a
// "custom TLV" and what a receiving lldpd lists under "unknown-tlvs". Value
// is the information string after the 3-byte OUI and the subtype byte.
type UnknownTLV struct {
	OUI     [3]byte
	Subtype uint8
	Value   []byte
}

// String renders the TLV as "00-80-C2/11=0808" (OUI/subtype=value).
func (u UnknownTLV) String() string {
	return fmt.Sprintf("%02X-%02X-%02X/%d=%x", u.OUI[0], u.OUI[1], u.OUI[2], u.Subtype, u.Value)
}

// LLDPDOpts configures StartLLDPD. The zero value is usable.
type LLDPDOpts struct {
	// Hostname is the system name (configure system hostname); default:
	// the namespace's name. It may contain any byte except CR and LF.
	Hostname string
	// SysDescr is the system description, passed with -S (it may contain
	// escape characters: no shell is involved). Default: "dcbtop testbed
	// lldpd in NS".
	SysDescr string
	// TxInterval is the transmit interval in seconds; default 1 (TTL
	// LLDPDTTL).
	TxInterval int
	// TxHold is the TTL multiplier; 0 keeps lldpd's default (4).
	TxHold int
	// TLVs are custom TLVs present from the very first LLDPDU on.
	TLVs []UnknownTLV
	// Config holds extra lldpcli commands applied before the first LLDPDU,
	// one per line (e.g. "configure lldp portidsubtype ifname").
	Config []string
	// Args are extra lldpd command-line arguments.
	Args []string
	// StartupTimeout bounds lldpd's start (0: 10 s; a guest under TCG on
	// a loaded machine needs more).
	StartupTimeout time.Duration
}

// LLDPD is an lldpd started by StartLLDPD.
type LLDPD struct {
	NS     *NS
	Ifname string // the only interface it uses (-I)
	Dir    string // private directory: control socket, startup config, log
	Socket string // control socket (-u)
	Log    string // lldpd's stdout+stderr
	Pid    int    // pid of lldpd's monitor process (the one we started)

	t        testing.TB
	p        *proc
	stopOnce sync.Once
}

// StartLLDPD starts lldpd (1.0.16, Debian) in ns as a foreground child
// (`ip netns exec NS lldpd -d -u SOCK -I IFNAME -S DESCR -O CONF`) and
// returns once its control socket answers and it has applied its startup
// configuration, so even the first LLDPDU carries opts.Hostname,
// opts.TxInterval and opts.TLVs.
//
// How: CONF (a file of lldpcli commands) makes lldpd start paused and run
// `lldpcli -u SOCK -C CONF resume` itself; it logs "lldpd should resume
// operations" once done. Every lldpd gets its own 0755 directory under
// os.TempDir() for its socket, config and log (0755 because lldpd's
// unprivileged lldpcli must read them; short, because socket paths are
// limited to 107 bytes). lldpd 1.0.16 has no pid-file option and writes no
// pid file with -d; the pid is LLDPD.Pid.
//
// A t.Cleanup stops it (Stop) if the test has not, and logs lldpd's output
// when the test failed.
func StartLLDPD(t testing.TB, ns *NS, ifname string, opts LLDPDOpts) *LLDPD {
	t.Helper()
	checkNS(t, "StartLLDPD", ns)
	checkIfname(t, ifname)
	RequireCommands(t, "ip", "lldpd", "lldpcli")
	if opts.Hostname == "" {
		opts.Hostname = ns.Name
	}
	if strings.ContainsAny(opts.Hostname, "\r\n\x00") {
		t.Fatalf("testbed: StartLLDPD: hostname %q may not contain CR, LF or NUL", opts.Hostname)
	}
	if opts.SysDescr == "" {
		opts.SysDescr = "dcbtop testbed lldpd in " + ns.Name
	}
	if opts.TxInterval <= 0 {
		opts.TxInterval = 1
	}

	dir, err := os.MkdirTemp("", "dcbtop-lldpd-")
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	watch("+dir " + dir)
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err == nil {
			watch("-dir " + dir)
		}
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("testbed: %v", err)
	}
	l := &LLDPD{
		NS:     ns,
		Ifname: ifname,
		Dir:    dir,
		Socket: filepath.Join(dir, "lldpd.sock"),
		Log:    filepath.Join(dir, "lldpd.log"),
		t:      t,
	}

	var conf bytes.Buffer
	fmt.Fprintf(&conf, "configure system hostname %s\n", lldpcliQuote(opts.Hostname))
	fmt.Fprintf(&conf, "configure lldp tx-interval %d\n", opts.TxInterval)
	if opts.TxHold > 0 {
		fmt.Fprintf(&conf, "configure lldp tx-hold %d\n", opts.TxHold)
	}
	for _, tlv := range opts.TLVs {
		fmt.Fprintf(&conf, "%s\n", strings.Join(customTLVArgs("add", tlv.OUI, tlv.Subtype, tlv.Value), " "))
	}
	for _, line := range opts.Config {
		fmt.Fprintf(&conf, "%s\n", line)
	}
	confPath := filepath.Join(dir, "lldpd.conf")
	if err := os.WriteFile(confPath, conf.Bytes(), 0o644); err != nil {
		t.Fatalf("testbed: %v", err)
	}
	logf, err := os.OpenFile(l.Log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	defer logf.Close() // the child has its own copy

	args := []string{"netns", "exec", ns.Name, mustCmd("lldpd"),
		"-d", "-u", l.Socket, "-I", ifname, "-S", opts.SysDescr, "-O", confPath,
		"-L", mustCmd("lldpcli")}
	args = append(args, opts.Args...)
	cmd := exec.Command(mustCmd("ip"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group: Kill takes lldpd's privilege-separated child down
	// at the same instant as the monitor.
	p, err := startProc(cmd, true)
	if err != nil {
		t.Fatalf("testbed: start lldpd: %v", err)
	}
	l.p, l.Pid = p, cmd.Process.Pid
	t.Cleanup(func() {
		l.Stop()
		if t.Failed() {
			t.Logf("testbed: lldpd in %s (pid %d) log:\n%s", ns.Name, l.Pid, l.logText())
		}
	})

	startup := cmp.Or(opts.StartupTimeout, 10*time.Second)
	deadline := time.Now().Add(startup)
	for {
		if p.exited() {
			t.Fatalf("testbed: lldpd in %s exited during startup (%v); log:\n%s", ns.Name, p.err, l.logText())
		}
		if strings.Contains(l.logText(), "lldpd should resume operations") {
			if _, err := l.CLI("show", "configuration"); err == nil {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: lldpd in %s did not come up within %v; log:\n%s", ns.Name, startup, l.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lldpcliQuote quotes s for lldpcli's tokenizer (double quotes, with
// backslash escaping backslash and both quote characters).
func lldpcliQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `'`, `\'`)
	return `"` + r.Replace(s) + `"`
}

func (l *LLDPD) logText() string {
	b, _ := os.ReadFile(l.Log)
	return string(b)
}

// CLI runs `lldpcli -u SOCK args...` and returns its stdout. (lldpcli only
// talks to the control socket, so it runs outside the namespace.)
func (l *LLDPD) CLI(args ...string) (string, error) {
	return run("lldpcli", append([]string{"-u", l.Socket}, args...)...)
}

// customTLVArgs are the lldpcli arguments of `configure lldp custom-tlv op`.
func customTLVArgs(op string, oui [3]byte, subtype uint8, info []byte) []string {
	a := []string{"configure", "lldp", "custom-tlv", op,
		"oui", fmt.Sprintf("%02x,%02x,%02x", oui[0], oui[1], oui[2]), "subtype", strconv.Itoa(int(subtype))}
	if len(info) > 0 {
		h := make([]string, len(info))
		for i, b := range info {
			h[i] = fmt.Sprintf("%02x", b)
		}
		a = append(a, "oui-info", strings.Join(h, ","))
	}
	return a
}

// AddTLV adds a custom TLV (`configure lldp custom-tlv add oui XX,XX,XX
// subtype N oui-info HEX,...`); info is the information string after OUI and
// subtype (at most 507 bytes). "add" appends: adding the same OUI/subtype
// twice sends both. lldpd sends an LLDPDU with the change right away.
func (l *LLDPD) AddTLV(oui [3]byte, subtype uint8, info []byte) error {
	_, err := l.CLI(customTLVArgs("add", oui, subtype, info)...)
	return err
}

// ReplaceTLV replaces every custom TLV with this OUI and subtype by one
// (`custom-tlv replace`).
func (l *LLDPD) ReplaceTLV(oui [3]byte, subtype uint8, info []byte) error {
	_, err := l.CLI(customTLVArgs("replace", oui, subtype, info)...)
	return err
}

// ClearTLVs removes all custom TLVs (`unconfigure lldp custom-tlv`).
func (l *LLDPD) ClearTLVs() error {
	_, err := l.CLI("unconfigure", "lldp", "custom-tlv")
	return err
}

// Stop sends SIGTERM and waits for lldpd to exit (SIGKILL to its process
// group after 5 s). On SIGTERM lldpd sends a shutdown LLDPDU (Chassis ID,
// Port ID, TTL 0, End) first. Stop is idempotent; later Stop/Kill calls do
// nothing.
func (l *LLDPD) Stop() {
	l.stopOnce.Do(func() {
		if !l.p.stop(syscall.SIGTERM, 5*time.Second, true) {
			l.t.Errorf("testbed: lldpd in %s did not exit within 5 s of SIGTERM; killed", l.NS.Name)
		}
	})
}

// Kill sends SIGKILL to lldpd's process group (monitor and
// privilege-separated child) and waits: no shutdown LLDPDU is sent, the
// neighbour's entry has to age out (TTL). Idempotent, like Stop.
func (l *LLDPD) Kill() {
	l.stopOnce.Do(func() {
		// The whole group at once: killing only the monitor is not enough,
		// the child notices and still sends a shutdown LLDPDU.
		if !l.p.kill(true) {
			l.t.Errorf("testbed: lldpd in %s did not exit within 5 s of SIGKILL", l.NS.Name)
		}
	})
}

// Exited reports whether the lldpd process has exited.
func (l *LLDPD) Exited() bool { return l.p.exited() }

// Neighbor is one neighbour as lldpd reports it. Strings are as lldpcli
// prints them.
type Neighbor struct {
	Interface     string       // local interface it was received on
	Via           string       // protocol: "LLDP"
	RID           int          // lldpd's remote index
	Age           string       // e.g. "0 day, 00:00:03"
	ChassisIDType string       // "mac", "local", "ifname", "ip", ...
	ChassisID     string       // e.g. "02:dc:b0:00:00:01" for type mac
	SysName       string       // System Name TLV ("" when absent)
	SysDescr      string       // System Description TLV
	MgmtIPs       []string     // Management Address TLVs
	PortIDType    string       // "mac", "ifname", "local", ...
	PortID        string       // Port ID
	PortDescr     string       // Port Description TLV
	TTL           int          // TTL the neighbour advertised, seconds
	UnknownTLVs   []UnknownTLV // org-specific TLVs lldpd does not decode (all DCBX TLVs), in frame order
}

// Neighbors returns what this lldpd has learnt, from `lldpcli -f json0 show
// neighbors details`. json0 is the same data as -f json in a stable shape
// where every object is wrapped in an array:
//
//	{"lldp": [{"interface": [{
//	  "name": "vb", "via": "LLDP", "rid": "1", "age": "0 day, 00:00:03",
//	  "chassis": [{"id": [{"type": "mac", "value": "9e:10:de:a3:dc:36"}],
//	               "name": [{"value": "sw-a"}], "descr": [{"value": "descr\tA"}],
//	               "mgmt-ip": [{"value": "..."}], "capability": [...]}],
//	  "port": [{"id": [{"type": "mac", "value": "9e:10:de:a3:dc:36"}],
//	            "descr": [{"value": "va"}], "ttl": [{"value": "4"}], ...}],
//	  "unknown-tlvs": [{"unknown-tlv": [
//	     {"oui": "00,80,C2", "subtype": "9", "len": "21", "value": "00,00,01,...,00"},
//	     {"oui": "00,80,C2", "subtype": "11", "len": "2", "value": "08,08"}]}]
//	}]}]}
//
// With no neighbours it prints {"lldp": [{}]}. (With -f json the shape
// changes with the data: "interface" is keyed by interface name for one
// neighbour and becomes an array for several, "chassis" is keyed by system
// name when there is one, and "unknown-tlv" can be an object or an array.)
func (l *LLDPD) Neighbors() ([]Neighbor, error) {
	out, err := l.CLI("-f", "json0", "show", "neighbors", "details")
	if err != nil {
		return nil, err
	}
	return ParseNeighborsJSON0([]byte(out))
}

// WaitNeighbors polls Neighbors every 100 ms until cond holds and returns
// that list; it fails the test after timeout.
func (l *LLDPD) WaitNeighbors(timeout time.Duration, cond func([]Neighbor) bool) []Neighbor {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	var last []Neighbor
	var lastErr error
	for {
		last, lastErr = l.Neighbors()
		if lastErr == nil && cond(last) {
			return last
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("testbed: lldpd in %s: neighbours did not reach the expected state within %v; last: %+v (err %v)",
				l.NS.Name, timeout, last, lastErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type j0Value struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type j0Neighbor struct {
	Name    string `json:"name"`
	Via     string `json:"via"`
	RID     string `json:"rid"`
	Age     string `json:"age"`
	Chassis []struct {
		ID     []j0Value `json:"id"`
		Name   []j0Value `json:"name"`
		Descr  []j0Value `json:"descr"`
		MgmtIP []j0Value `json:"mgmt-ip"`
	} `json:"chassis"`
	Port []struct {
		ID    []j0Value `json:"id"`
		Descr []j0Value `json:"descr"`
		TTL   []j0Value `json:"ttl"`
	} `json:"port"`
	TTL []struct { // newer lldpd versions: TTL next to "port"
		TTL string `json:"ttl"`
	} `json:"ttl"`
	UnknownTLVs []struct {
		UnknownTLV []struct {
			OUI     string `json:"oui"`
			Subtype string `json:"subtype"`
			Len     string `json:"len"`
			Value   string `json:"value"`
		} `json:"unknown-tlv"`
	} `json:"unknown-tlvs"`
}

func first(v []j0Value) j0Value {
	if len(v) == 0 {
		return j0Value{}
	}
	return v[0]
}

// ParseNeighborsJSON0 parses `lldpcli -f json0 show neighbors details`
// (see LLDPD.Neighbors).
func ParseNeighborsJSON0(b []byte) ([]Neighbor, error) {
	var doc struct {
		LLDP []struct {
			Interface []j0Neighbor `json:"interface"`
		} `json:"lldp"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("testbed: lldpcli json0: %w", err)
	}
	var ns []Neighbor
	for _, l := range doc.LLDP {
		for _, in := range l.Interface {
			n := Neighbor{Interface: in.Name, Via: in.Via, Age: in.Age}
			n.RID, _ = strconv.Atoi(in.RID)
			if len(in.Chassis) > 0 {
				c := in.Chassis[0]
				id := first(c.ID)
				n.ChassisIDType, n.ChassisID = id.Type, id.Value
				n.SysName = first(c.Name).Value
				n.SysDescr = first(c.Descr).Value
				for _, m := range c.MgmtIP {
					n.MgmtIPs = append(n.MgmtIPs, m.Value)
				}
			}
			ttl := ""
			if len(in.Port) > 0 {
				p := in.Port[0]
				id := first(p.ID)
				n.PortIDType, n.PortID = id.Type, id.Value
				n.PortDescr = first(p.Descr).Value
				ttl = first(p.TTL).Value
			}
			if ttl == "" && len(in.TTL) > 0 {
				ttl = in.TTL[0].TTL
			}
			if ttl != "" {
				v, err := strconv.Atoi(ttl)
				if err != nil {
					return nil, fmt.Errorf("testbed: lldpcli json0: ttl %q: %w", ttl, err)
				}
				n.TTL = v
			}
			for _, u := range in.UnknownTLVs {
				for _, x := range u.UnknownTLV {
					tlv, err := parseUnknownTLV(x.OUI, x.Subtype, x.Value)
					if err != nil {
						return nil, err
					}
					if x.Len != "" && x.Len != strconv.Itoa(len(tlv.Value)) {
						return nil, fmt.Errorf("testbed: lldpcli json0: unknown TLV %v: len %q but %d value bytes", tlv, x.Len, len(tlv.Value))
					}
					n.UnknownTLVs = append(n.UnknownTLVs, tlv)
				}
			}
			ns = append(ns, n)
		}
	}
	return ns, nil
}

// parseUnknownTLV parses lldpcli's "00,80,C2" / "9" / "08,08".
func parseUnknownTLV(oui, subtype, value string) (UnknownTLV, error) {
	var u UnknownTLV
	o, err := commaHex(oui)
	if err != nil || len(o) != 3 {
		return u, fmt.Errorf("testbed: lldpcli json0: bad OUI %q", oui)
	}
	copy(u.OUI[:], o)
	st, err := strconv.ParseUint(subtype, 10, 8)
	if err != nil {
		return u, fmt.Errorf("testbed: lldpcli json0: bad subtype %q", subtype)
	}
	u.Subtype = uint8(st)
	if u.Value, err = commaHex(value); err != nil {
		return u, fmt.Errorf("testbed: lldpcli json0: bad value %q", value)
	}
	return u, nil
}

func commaHex(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return []byte{}, nil
	}
	return hex.DecodeString(strings.ReplaceAll(s, ",", ""))
}

// PortStats are lldpd's counters of one port (`lldpcli show statistics
// ports`): LLDPDUs sent and received, and its neighbour table's
// insertions, deletions (a shutdown LLDPDU, IEEE Std 802.1AB-2016
// 9.2.7.7.1) and age-outs (a TTL that ran out, 9.2.5.23).
type PortStats struct {
	TX, RX                     int
	Inserted, Deleted, AgedOut int
}

// Stats returns lldpd's counters of port ifname, from `lldpcli -f json0
// show statistics ports IFNAME`:
//
//	{"lldp": [{"interface": [{"name": "p0", "tx": [{"tx": "4"}], "rx": [{"rx": "4"}],
//	  "ageout_cnt": [{"ageout_cnt": "0"}], "insert_cnt": [{"insert_cnt": "1"}],
//	  "delete_cnt": [{"delete_cnt": "0"}], ...}]}]}
func (l *LLDPD) Stats(ifname string) (PortStats, error) {
	out, err := l.CLI("-f", "json0", "show", "statistics", "ports", ifname)
	if err != nil {
		return PortStats{}, err
	}
	var doc struct {
		LLDP []struct {
			Interface []map[string]json.RawMessage `json:"interface"`
		} `json:"lldp"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return PortStats{}, fmt.Errorf("lldpcli statistics: %w", err)
	}
	for _, d := range doc.LLDP {
		for _, itf := range d.Interface {
			var name string
			if err := json.Unmarshal(itf["name"], &name); err != nil || name != ifname {
				continue
			}
			count := func(key string) int {
				var v []map[string]string
				_ = json.Unmarshal(itf[key], &v)
				if len(v) == 0 {
					return -1
				}
				n, err := strconv.Atoi(v[0][key])
				if err != nil {
					return -1
				}
				return n
			}
			return PortStats{TX: count("tx"), RX: count("rx"), Inserted: count("insert_cnt"),
				Deleted: count("delete_cnt"), AgedOut: count("ageout_cnt")}, nil
		}
	}
	return PortStats{}, fmt.Errorf("lldpcli statistics: no port %s in %s", ifname, out)
}
