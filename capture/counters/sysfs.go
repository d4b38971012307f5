// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/ecn"
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/rdma"
)

// A reader reads files under a sysfs root for one sample and collects the
// problems it meets. Paths given to it are slash-separated and relative to
// the root; the names in them come from directory entries (which hold no
// '/') or from a validated interface name, so they stay under the root.
type reader struct {
	fs hostfs.FS
	// errs has one "path: problem" per source that exists but could not
	// be used, in the order met.
	errs []string
}

// maxFileSize bounds what is read of a counter file: sysfs counters are a
// few bytes; a longer file is not a number.
const maxFileSize = 256

// bad records that the source at rel exists but cannot be used.
func (r *reader) bad(rel, problem string) {
	r.errs = append(r.errs, rel+": "+problem)
}

// badErr records a failure to read rel, unless it is that rel does not
// exist (a missing source is not an error).
func (r *reader) badErr(rel string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path in it is the machine's, not rel
	}
	r.bad(rel, err.Error())
}

// read returns at most limit+1 bytes of the regular file at rel
// (hostfs.FS.ReadFile: no other kind of file is opened).
func (r *reader) read(rel string, limit int64) ([]byte, error) {
	return r.fs.ReadFile(rel, limit)
}

// uint reads the decimal counter in the file at rel. ok is false when the
// file is missing or unusable; the latter is recorded.
func (r *reader) uint(rel string) (v uint64, ok bool) {
	b, err := r.read(rel, maxFileSize)
	if err != nil {
		r.badErr(rel, err)
		return 0, false
	}
	v, problem := parseCounter(b)
	if problem != "" {
		r.bad(rel, problem)
		return 0, false
	}
	return v, true
}

// parseCounter parses a sysfs counter: decimal digits, optionally followed
// by one newline. It returns the problem ("not a number", "out of range")
// when b is anything else.
func parseCounter(b []byte) (uint64, string) {
	if len(b) > maxFileSize {
		return 0, "not a number"
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return 0, "not a number"
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, "not a number"
		}
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil { // only digits: too large
		return 0, "out of range"
	}
	return v, ""
}

// An alternative is one way to get a counter: the files named, in one
// directory, summed (those that exist) and multiplied by mul.
type alternative struct {
	dir   string // under the port's directory: "counters" or "hw_counters"
	files []string
	mul   uint64
}

// ndkPort says where the NDK counters of a port's traffic come from, by
// preference: the InfiniBand port counters (4-octet units for data), the
// irdma IPv4+IPv6 hw_counters, bnxt_re's hw_counters rx_bytes, tx_bytes,
// rx_pkts, tx_pkts (drivers/infiniband/hw/bnxt_re/hw_counters.c
// bnxt_re_stat_descs), Soft-RoCE's hw_counters rcvd_pkts and sent_pkts
// (drivers/infiniband/sw/rxe/rxe_hw_counters.c rxe_counter_descs: every
// RoCE v2 packet rxe_rcv takes in and rxe_xmit_packet sends; rxe counts
// no octets). mlx5's rdma_rx_bytes and the like are
// optional counters (IB_STAT_FLAG_OPTIONAL, drivers/infiniband/hw/mlx5/
// counters.c), which drivers/infiniband/core/sysfs.c never puts in
// hw_counters: they exist only over RDMA netlink, disabled until enabled
// (`rdma statistic set link DEV/P optional-counters ...`), and a file of
// that name is not read.
var ndkPort = []struct {
	counter lossless.NDKCounter
	alts    []alternative
}{
	{lossless.NDKRDMAInOctets, []alternative{
		{"counters", []string{"port_rcv_data"}, 4},
		{"hw_counters", []string{"ip4InOctets", "ip6InOctets"}, 1},
		{"hw_counters", []string{"rx_bytes"}, 1},
	}},
	{lossless.NDKRDMAOutOctets, []alternative{
		{"counters", []string{"port_xmit_data"}, 4},
		{"hw_counters", []string{"ip4OutOctets", "ip6OutOctets"}, 1},
		{"hw_counters", []string{"tx_bytes"}, 1},
	}},
	{lossless.NDKRDMAInFrames, []alternative{
		{"counters", []string{"port_rcv_packets"}, 1},
		{"hw_counters", []string{"ip4InPkts", "ip6InPkts"}, 1},
		{"hw_counters", []string{"rx_pkts"}, 1},
		{"hw_counters", []string{"rcvd_pkts"}, 1},
	}},
	{lossless.NDKRDMAOutFrames, []alternative{
		{"counters", []string{"port_xmit_packets"}, 1},
		{"hw_counters", []string{"ip4OutPkts", "ip6OutPkts"}, 1},
		{"hw_counters", []string{"tx_pkts"}, 1},
		{"hw_counters", []string{"sent_pkts"}, 1},
	}},
}

// ndkCM says which connection-manager MAD counters approximate the NDK
// connection counters: an RTU (Ready To Use) completes a connection, sent
// by the active side, received by the passive one; a REJ refuses one,
// either way. The files are in the port's own directory since Linux 5.14
// (drivers/infiniband/core/cm.c registers cm_counter_groups with
// ib_port_register_client_groups: class/infiniband/DEV/ports/PORT/
// cm_tx_msgs/rtu, as Debian's 6.1 shows for rxe), and under the
// infiniband_cm class before it (class/infiniband_cm/DEV/PORT/...): the
// port's directory is read first (cmDirs).
var ndkCM = []struct {
	counter lossless.NDKCounter
	files   []string
}{
	{lossless.NDKConnect, []string{"cm_tx_msgs/rtu"}},
	{lossless.NDKAccept, []string{"cm_rx_msgs/rtu"}},
	{lossless.NDKConnectFailure, []string{"cm_rx_msgs/rej", "cm_tx_msgs/rej"}},
}

// congestionFiles names each congestion counter's file in hw_counters, by
// driver: mlx5, then irdma, then bnxt_re (np_cnp_pkts; its
// rp_cnp_handled and np_ecn_marked_roce_packets have mlx5's names), then
// rxe (out_of_seq_request: requests whose PSN is past the expected one,
// the responder's check_psn in drivers/infiniband/sw/rxe/rxe_resp.c, as
// mlx5's out_of_sequence counts them).
var congestionFiles = [lossless.NumCongestion][]string{
	lossless.CNPSent:       {"np_cnp_sent", "cnpSent", "np_cnp_pkts"},
	lossless.CNPHandled:    {"rp_cnp_handled", "cnpHandled"},
	lossless.CNPIgnored:    {"rp_cnp_ignored", "cnpIgnored"},
	lossless.ECNMarked:     {"np_ecn_marked_roce_packets", "RxECNMrkd"},
	lossless.OutOfSequence: {"out_of_sequence", "out_of_seq_request"},
	lossless.OutOfBuffer:   {"out_of_buffer"},
}

// rdma samples the RDMA device ports bound to ifname (rdma.BoundPorts:
// see the package comment, RDMA ports); empty, not nil, when there are
// none. ifname is a valid name.
func (r *reader) rdma(ifname string) []lossless.RDMAPortSample {
	ports, problems, _ := rdma.BoundPorts(r.fs, ifname)
	r.errs = append(r.errs, problems...)
	out := make([]lossless.RDMAPortSample, 0, len(ports))
	for _, p := range ports {
		out = append(out, r.port(p))
	}
	return out
}

// port samples one RDMA device port.
func (r *reader) port(p rdma.BoundPort) lossless.RDMAPortSample {
	s := lossless.RDMAPortSample{Device: p.Dev, Port: p.Num}
	dir := "class/infiniband/" + p.Dev + "/ports/" + p.Name + "/"
	src := "ports/" + p.Name + "/" // Sources are relative to the device
	for _, c := range ndkPort {
		for _, a := range c.alts {
			if rd, ok := r.sum(dir+a.dir+"/", src+a.dir+"/", a.files, a.mul); ok {
				s.NDK[c.counter] = rd
				break
			}
		}
	}
	for _, c := range ndkCM {
		for _, cm := range cmDirs(p) {
			if rd, ok := r.sum("class/"+cm, cm, c.files, 1); ok {
				rd.Derived = true
				s.NDK[c.counter] = rd
				break
			}
		}
	}
	for c, names := range congestionFiles {
		for _, name := range names {
			if v, ok := r.uint(dir + "hw_counters/" + name); ok {
				s.Congestion[c] = lossless.Reading{Value: v, Source: src + "hw_counters/" + name}
				break
			}
		}
	}
	return s
}

// cmDirs returns where p's connection-manager counters may be, under
// class/, by preference (ndkCM): the port's directory (Linux 5.14 on),
// the infiniband_cm class (before). The Source keeps the path under class/.
func cmDirs(p rdma.BoundPort) [2]string {
	return [2]string{"infiniband/" + p.Dev + "/ports/" + p.Name + "/", "infiniband_cm/" + p.Dev + "/" + p.Name + "/"}
}

// sum reads the files under dir and returns their sum times mul, with the
// Source src followed by the names of the files that were read joined by
// "+" (and " x4" for mul 4); false when none could be read. It saturates
// instead of wrapping.
func (r *reader) sum(dir, src string, files []string, mul uint64) (lossless.Reading, bool) {
	var (
		total uint64
		used  []string
	)
	for _, f := range files {
		if v, ok := r.uint(dir + f); ok {
			total = addSat(total, v)
			used = append(used, f)
		}
	}
	if len(used) == 0 {
		return lossless.Reading{}, false
	}
	src += strings.Join(used, "+")
	if mul != 1 {
		total = mulSat(total, mul)
		src += " x" + strconv.FormatUint(mul, 10)
	}
	return lossless.Reading{Value: total, Source: src}, true
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func mulSat(a, b uint64) uint64 {
	if b != 0 && a > math.MaxUint64/b {
		return math.MaxUint64
	}
	return a * b
}

// ecn reads ifname's DCQCN settings (capture/ecn: the vendor driver's
// class/net/IF/ecn tree, else upstream mlx5's debugfs cc_params) as the
// engine's sample. Per-priority enables count only when all sixteen were
// read (one missing or malformed file leaves them unknown, never off).
// Without any source the sample is nil on an interface without an RDMA
// device (nothing to say) and otherwise carries why and the command that
// would tell. Files that exist but cannot be used are named in Err.
func (r *reader) ecn(ifname string, rdma bool) *lossless.ECNSample {
	st := ecn.Read(r.fs, ifname)
	r.errs = append(r.errs, st.Problems...)
	if st.Source == "" && !rdma {
		return nil
	}
	e := &lossless.ECNSample{Source: st.Source, CNPDSCP: st.CNPDSCP, CNPPriority: st.CNPPriority,
		CNPPriorityFromPacket: st.CNPPriorityFromPacket, Why: st.Why, Hint: st.Hint}
	for p := range 8 {
		np, rp := st.NotificationPoint[p], st.ReactionPoint[p]
		if np == ecn.Unknown || rp == ecn.Unknown {
			e.EnablesUnknown = true
		}
		if np == ecn.On {
			e.NotificationPoint |= 1 << p
		}
		if rp == ecn.On {
			e.ReactionPoint |= 1 << p
		}
	}
	if e.EnablesUnknown {
		e.NotificationPoint, e.ReactionPoint = 0, 0
	}
	return e
}
