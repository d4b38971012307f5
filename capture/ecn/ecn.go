// SPDX-License-Identifier: Apache-2.0

package ecn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// A Tri is an on/off that may be unknown. Its zero value is Unknown, so a
// Settings nobody filled in claims nothing.
type Tri uint8

// The three values of a Tri.
const (
	Unknown Tri = iota // not read: no source, or the file is missing or malformed
	Off                // the file says 0
	On                 // the file says 1
)

// String returns "unknown", "off" or "on".
func (t Tri) String() string {
	switch t {
	case Off:
		return "off"
	case On:
		return "on"
	case Unknown:
		return "unknown"
	}
	return "Tri(" + strconv.Itoa(int(t)) + ")"
}

// Settings are one interface's DCQCN (RoCE ECN congestion control)
// settings as far as they could be read. Anything not read is Unknown or
// nil, never a zero by default.
type Settings struct {
	// Source is the directory the values come from, relative to the
	// root: "class/net/IF/ecn" (MLNX_OFED) or
	// "kernel/debug/mlx5/PCI/cc_params" (upstream mlx5_ib). It is ""
	// when nothing could be read, and then Why says why.
	Source string

	// NotificationPoint and ReactionPoint say, per 802.1p priority,
	// whether the NIC acts as DCQCN notification point (sends CNPs for
	// ECN-marked RoCE packets it receives) and reaction point (slows
	// down when it receives CNPs). Only the MLNX_OFED tree has them; the
	// upstream debugfs directory has no per-priority switch, so there
	// they stay Unknown.
	NotificationPoint, ReactionPoint [8]Tri

	// CNPDSCP is the DSCP the NIC marks its CNPs with (0..63); nil when
	// unknown.
	CNPDSCP *uint8

	// CNPPriority is the configured 802.1p priority of the CNPs (0..7).
	// It is nil when unknown, and when CNPPriorityFromPacket is true
	// (the parameter is then not used). The MLNX_OFED tree does not show
	// the priority mode, so there CNPPriority is the configured value
	// and CNPPriorityFromPacket stays nil.
	CNPPriority *uint8

	// CNPPriorityFromPacket is np_cnp_prio_mode where it can be read:
	// false when the CNP takes CNPPriority, true when it takes the
	// priority of the received packet that asked for it. nil when
	// unknown.
	CNPPriorityFromPacket *bool

	// Params holds the other numeric parameters as read (rate-increase
	// and rate-decrease timers and steps, alpha, the minimum time
	// between CNPs, ...), by file name; nil when there are none.
	Params map[string]uint64

	// Why says, in one line, why nothing could be read; "" when Source
	// is set.
	Why string

	// Hint is a command that would tell what is still unknown (the
	// firmware configuration, mlxconfig, for an mlx5 NIC), or a pointer
	// for other drivers; "" when nothing relevant is left unknown or no
	// such command is known.
	Hint string

	// Problems lists files that exist but could not be used, each as
	// "path: problem" with the path relative to the root: unreadable,
	// not a number, out of range, a directory, too long. Their values
	// are unknown.
	Problems []string
}

// Read reads the DCQCN settings of interface ifname from fsys, the tree
// that stands for /sys (debugfs at kernel/debug included). It tries the MLNX_OFED tree, then, for the mlx5_core driver,
// the upstream debugfs directory. It never fails: what it cannot read is
// unknown, with the reason in Why and Problems.
func Read(fsys hostfs.FS, ifname string) Settings {
	if why := validIfname(ifname); why != "" {
		return Settings{Why: "invalid interface name " + strconv.Quote(ifname) + ": " + why}
	}
	r := &reader{fs: fsys}
	s := r.read(ifname)
	s.Problems = r.problems
	return s
}

// A reader reads files of the tree and collects problems.
type reader struct {
	fs       hostfs.FS
	problems []string
}

func (r *reader) problem(rel, what string) {
	r.problems = append(r.problems, rel+": "+what)
}

// A device is what class/net/IF/device and its driver link say.
type device struct {
	pci    string // base name of the device link, "" when none
	driver string // base name of the driver link, "" when none
	why    string // why pci or driver is "", one line
}

func (r *reader) read(ifname string) Settings {
	netdir := "class/net/" + ifname
	if _, err := r.fs.Stat(netdir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Settings{Why: netdir + " does not exist: no such interface"}
		}
		return Settings{Why: netdir + ": " + errText(err)}
	}
	dev := r.device(netdir)

	var s Settings
	if r.ofed(&s, netdir+"/ecn") {
		s.Hint = hint(dev, &s)
		return s
	}
	switch {
	case dev.pci == "" || dev.driver == "":
		s.Why = dev.why
	case dev.driver == "mlx5_core":
		r.ccParams(&s, dev.pci)
	default:
		s.Why = dev.driver + ": no DCQCN settings are known for this driver (no class/net/" + ifname + "/ecn)"
	}
	s.Hint = hint(dev, &s)
	return s
}

// device resolves class/net/IF/device and its driver link. Both are
// symlinks made by the driver core (drivers/base/core.c
// device_add_class_symlinks, drivers/base/dd.c driver_sysfs_add); only
// their base names matter.
func (r *reader) device(netdir string) device {
	link, err := r.fs.Readlink(netdir + "/device")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return device{why: netdir + " has no device link: a virtual interface, without RDMA congestion control of its own"}
		}
		return device{why: netdir + "/device: " + errText(err)}
	}
	d := device{pci: filepath.Base(link)}
	if !plainName(d.pci) {
		return device{why: netdir + "/device: link to " + strconv.Quote(link) + " has no usable name"}
	}
	link, err = r.fs.Readlink(netdir + "/device/driver")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			d.why = "device " + d.pci + " has no driver bound"
		} else {
			d.why = netdir + "/device/driver: " + errText(err)
		}
		return d
	}
	d.driver = filepath.Base(link)
	if !plainName(d.driver) {
		d.driver = ""
		d.why = netdir + "/device/driver: link to " + strconv.Quote(link) + " has no usable name"
	}
	return d
}

// plainName reports whether a link's base name can be put in a path
// under the root and in a command line: not ".", "..", or empty, and
// without path separators, spaces or shell characters.
func plainName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' ||
			c == ':' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ofed reads the MLNX_OFED tree under dir (class/net/IF/ecn). It reports
// false, leaving s alone, when neither roce_np nor roce_rp is a
// directory there.
func (r *reader) ofed(s *Settings, dir string) bool {
	np, rp := dir+"/roce_np", dir+"/roce_rp"
	hasNP, hasRP := r.isDir(np), r.isDir(rp)
	if !hasNP && !hasRP {
		return false
	}
	known := false
	if hasNP {
		known = r.enables(&s.NotificationPoint, np+"/enable")
		for _, p := range ofedNP {
			rel := np + "/" + p.name
			b, ok := r.file(rel)
			if !ok {
				continue
			}
			switch p.name {
			case ofedCNPDSCP:
				s.CNPDSCP = small(r, rel, b, parseDSCP)
			case ofedCNPPrio:
				s.CNPPriority = small(r, rel, b, parsePriority)
			default:
				r.param(s, rel, p, b)
			}
		}
		known = known || s.CNPDSCP != nil || s.CNPPriority != nil
	}
	if hasRP {
		known = r.enables(&s.ReactionPoint, rp+"/enable") || known
		for _, p := range ofedRP {
			rel := rp + "/" + p.name
			if b, ok := r.file(rel); ok {
				r.param(s, rel, p, b)
			}
		}
	}
	known = known || len(s.Params) > 0
	if !known {
		s.Why = dir + " exists but none of its values could be read"
		return true
	}
	s.Source = dir
	return true
}

// enables reads dir/0..7 into t and reports whether any was read.
func (r *reader) enables(t *[8]Tri, dir string) bool {
	if !r.isDir(dir) {
		return false
	}
	got := false
	for p := range t {
		rel := dir + "/" + strconv.Itoa(p)
		b, ok := r.file(rel)
		if !ok {
			continue
		}
		on, err := parseBit(b)
		if err != nil {
			r.problem(rel, err.Error())
			continue
		}
		t[p] = Off
		if on {
			t[p] = On
		}
		got = true
	}
	return got
}

// ccParams reads the upstream mlx5_ib debugfs directory of device pci.
func (r *reader) ccParams(s *Settings, pci string) {
	dir := "kernel/debug/mlx5/" + pci + "/cc_params"
	if why := r.walk(dir); why != "" {
		s.Why = why
		return
	}
	var mode *bool
	var prio *uint8
	for _, p := range ccParams {
		rel := dir + "/" + p.name
		b, ok := r.file(rel)
		if !ok {
			continue
		}
		switch p.name {
		case ccCNPDSCP:
			s.CNPDSCP = small(r, rel, b, parseDSCP)
		case ccCNPPrio:
			prio = small(r, rel, b, parsePriority)
		case ccCNPPrioMode:
			mode = small(r, rel, b, parseBit)
		default:
			r.param(s, rel, p, b)
		}
	}
	s.CNPPriorityFromPacket = mode
	if mode == nil || !*mode {
		s.CNPPriority = prio
	}
	if s.CNPDSCP == nil && prio == nil && mode == nil && len(s.Params) == 0 {
		s.Why = dir + " exists but none of its values could be read"
		return
	}
	s.Source = dir
}

// walk checks each directory on the way to dir and says, in one line,
// where and why it stops; "" when dir is a readable directory.
func (r *reader) walk(dir string) string {
	steps := []struct{ rel, missing string }{
		{"kernel/debug", "no debugfs mount point"},
		{"kernel/debug/mlx5", "debugfs is not mounted there, or mlx5_core is not loaded"},
		{path.Dir(dir), "mlx5_core made no debugfs directory for this device"},
		{dir, "mlx5_ib made none: it is not loaded, or the firmware does not allow congestion-control query and modify (cong.c mlx5_ib_init_cong_debugfs)"},
	}
	for _, st := range steps {
		fi, err := r.fs.Stat(st.rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return st.rel + " does not exist: " + st.missing
		case errors.Is(err, fs.ErrPermission):
			return st.rel + ": permission denied (debugfs is for root only)"
		case err != nil:
			return st.rel + ": " + errText(err)
		case !fi.Dir:
			return st.rel + " is not a directory"
		}
	}
	// Stat needs only search permission; listing the files needs read.
	if _, err := r.fs.ReadDir(dir); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return dir + ": permission denied (debugfs is for root only)"
		}
		return dir + ": " + errText(err)
	}
	return ""
}

// small parses b with parse and returns the value, or records a problem
// and returns nil.
func small[T any](r *reader, rel string, b []byte, parse func([]byte) (T, error)) *T {
	v, err := parse(b)
	if err != nil {
		r.problem(rel, err.Error())
		return nil
	}
	return &v
}

// param parses b as p and stores it in s.Params, or records a problem.
func (r *reader) param(s *Settings, rel string, p param, b []byte) {
	v, err := parseUint(b, p.max)
	if err != nil {
		r.problem(rel, err.Error())
		return
	}
	if s.Params == nil {
		s.Params = make(map[string]uint64)
	}
	s.Params[p.name] = v
}

// isDir reports whether rel is a directory (following symlinks). Something
// else there is a problem; nothing there is not.
func (r *reader) isDir(rel string) bool {
	fi, err := r.fs.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false
	case err != nil:
		r.problem(rel, errText(err))
		return false
	case !fi.Dir:
		r.problem(rel, "not a directory")
		return false
	}
	return true
}

// file reads at most maxRead bytes of rel. A missing file is silently
// not ok; a file that exists but cannot be read is not ok and a problem.
func (r *reader) file(rel string) ([]byte, bool) {
	b, err := r.fs.ReadFile(rel, maxRead-1)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false
	case err != nil:
		r.problem(rel, errText(err))
		return nil, false
	}
	return b, true
}

// errText is err without the absolute path an *fs.PathError carries
// (the caller names the file relative to the root).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	return err.Error()
}

// hint returns the command that would tell what s leaves unknown.
func hint(d device, s *Settings) string {
	switch d.driver {
	case "":
		return ""
	case "mlx5_core":
		if s.complete() {
			return ""
		}
		pci := d.pci
		if !pciName(pci) {
			pci = "<PCI>"
		}
		return fmt.Sprintf("mlxconfig -d %s q ROCE_CC_PRIO_MASK_P1 CNP_DSCP_P1 CNP_802P_PRIO_P1", pci)
	case "bnxt_en":
		return "bnxt_re: as root, grep . /sys/kernel/debug/bnxt_re/" + d.pci + "/cc_config/* (Broadcom's out-of-tree bnxt_re uses configfs instead)"
	case "ice", "i40e":
		return "irdma: dcbtop knows no file that shows its DCQCN settings; see Intel's irdma documentation"
	}
	// Not a RoCE NIC driver dcbtop knows (virtio_net, veth's absence of
	// one, ...): there is nothing to point at.
	return ""
}

// complete reports whether nothing the mlxconfig hint would show is
// unknown: every notification-point priority, the CNP DSCP and the CNP
// priority.
func (s *Settings) complete() bool {
	for _, t := range s.NotificationPoint {
		if t == Unknown {
			return false
		}
	}
	fromPacket := s.CNPPriorityFromPacket != nil && *s.CNPPriorityFromPacket
	return s.CNPDSCP != nil && (s.CNPPriority != nil || fromPacket)
}

// pciName reports whether s has the shape of a PCI device name,
// DDDD:BB:DD.F in hexadecimal (the domain may be longer).
func pciName(s string) bool {
	n := len(s)
	if n < 12 || s[n-2] != '.' || s[n-5] != ':' || s[n-8] != ':' {
		return false
	}
	for i := 0; i < n; i++ {
		if i == n-2 || i == n-5 || i == n-8 {
			continue
		}
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
