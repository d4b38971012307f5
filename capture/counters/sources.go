// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"errors"
	"os"

	"github.com/dcbtop/dcbtop/capture/hostfs"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// The sources New composes (see the package comment, Sources), each
// also to be composed alone (Compose).

// SysfsSource returns the source "sysfs" reading fsys, the tree that
// stands for /sys: the RDMA device ports' NDK and congestion counters
// and the ECN (DCQCN) settings.
func SysfsSource(fsys hostfs.FS) Source { return sysfsSource{fs: fsys} }

// DCBNLSource returns the source "dcbnl" over c: one DCB_CMD_IEEE_GET an
// interface a sample, for the PFC frame counters of its ieee_pfc and the
// NIC's QoS (kernel.QoSFromIEEE).
func DCBNLSource(c IEEEReader) Source { return dcbnlSource{c: c} }

// EthtoolSource returns the source "ethtool" over e: the driver's name,
// its per-priority pause statistics (after dcbnl's, see the package
// comment) and its link-wide PAUSE frame counters.
func EthtoolSource(e Ethtool) Source { return ethtoolSource{e: e} }

// RoCESource returns the source "rdma" reading fsys, the tree that
// stands for /sys: the RoCE identity of the RDMA ports bound to the
// interface (capture/rdma).
func RoCESource(fsys hostfs.FS) Source { return rdmaSource{fs: fsys} }

// RDMAStatSource returns the source "rdmastat": the optional counters of
// the RoCE ports the "rdma" source found, over RDMA netlink with c, or,
// c nil, err (why there is no c) said on each port.
func RDMAStatSource(c RDMAStats, err error) Source { return rdmastatSource{c: c, err: err} }

// LinkPauseSource returns the source "linkpause" over p: the link-wide
// PAUSE settings and statistics of ethtool netlink, completed by the
// driver's frame counters the "ethtool" source found.
func LinkPauseSource(p PauseReader) Source { return linkpauseSource{p: p} }

// sysfsSource reads the RDMA ports' counters and the ECN (DCQCN)
// settings: files under the sysfs root.
type sysfsSource struct{ fs hostfs.FS }

// Name is "sysfs".
func (sysfsSource) Name() string { return string(lossless.SourceSysfs) }

// Sample reads the RDMA device ports' NDK and congestion counters and the
// ECN settings; the files that exist but cannot be used are its error,
// one line (at most maxErrors of them named).
func (src sysfsSource) Sample(ifname string, s *lossless.Sample) error {
	r := &reader{fs: src.fs}
	s.RDMA = r.rdma(ifname)
	s.ECN = r.ecn(ifname, len(s.RDMA) > 0)
	if e := r.errString(); e != "" {
		return errors.New(e)
	}
	return nil
}

// dcbnlSource reads DCB netlink's IEEE state (DCB_CMD_IEEE_GET, one
// request an interface a sample): the PFC frame counters of its ieee_pfc
// and how the NIC classifies and buffers received traffic
// (kernel.QoSFromIEEE). A failure (no dcbnl_ops on a veth) is no error of
// the sample: most interfaces have no DCB.
type dcbnlSource struct{ c IEEEReader }

// Name is "dcbnl".
func (dcbnlSource) Name() string { return string(lossless.SourceDCBNL) }

// Sample sets the PFC counts, the requests (PFC frames sent) and
// indications (received) of ieee_pfc, and the QoS.
func (src dcbnlSource) Sample(ifname string, s *lossless.Sample) error {
	ieee, err := src.c.IEEE(ifname)
	if err != nil {
		return nil
	}
	if ieee != nil && ieee.PFC != nil {
		s.PFC = &lossless.PFCSample{}
		fromDCB(ieee.PFC.Requests, ieee.PFC.Indications, s.PFC)
	}
	s.QoS = kernel.QoSFromIEEE(ieee)
	return nil
}

// ethtoolSource reads the driver's name and statistics (ETHTOOL_GDRVINFO,
// ETHTOOL_GSTATS): the driver, its per-priority pause statistics
// (ranked against dcbnl's counts, which it finds in the sample: see pfc)
// and its link-wide PAUSE frame counters; and, where e is a
// StormTimeoutReader and the driver has the tunable, the PFC storm
// prevention timeout beside the storm counters (ETHTOOL_GTUNABLE). A
// failure (EOPNOTSUPP on lo) is no error of the sample.
type ethtoolSource struct{ e Ethtool }

// Name is "ethtool".
func (ethtoolSource) Name() string { return string(lossless.SourceEthtool) }

// Sample sets the driver, the PFC sample and the driver's link PAUSE.
// Statistics that cannot be read (a recorded `ethtool -S` with a line
// that is no statistic, one too long) are the source's error: every
// counter of theirs is then unknown, and the sample says why (the
// counters-error diagnostic). A driver without statistics (an errno from
// the ioctl, no recorded file) is no error.
func (src ethtoolSource) Sample(ifname string, s *lossless.Sample) error {
	drv := src.driver(ifname)
	if drv.err == nil {
		s.Driver = drv.name
	}
	stats, table, err := src.stats(ifname, drv)
	s.PFC = pfc(s.PFC, stats, table)
	s.LinkPause = table.linkPause(stats)
	if t, ok := src.e.(StormTimeoutReader); ok && s.PFC != nil {
		if ms, terr := t.PFCStormTimeout(ifname); terr == nil {
			s.PFC.StormTimeout = lossless.Reading{Value: uint64(ms), Source: StormTimeoutSource}
		}
	}
	return err
}

// rdmaSource reads the RoCE identity of the RDMA ports bound to the
// interface (capture/rdma: GID table, rdma_cm defaults).
type rdmaSource struct{ fs hostfs.FS }

// Name is "rdma".
func (rdmaSource) Name() string { return string(lossless.SourceRDMA) }

// Sample sets the RoCE ports (empty, not nil, without any); its error is
// rdma.Read's: directories on the way to the ports that could not be
// read.
func (src rdmaSource) Sample(ifname string, s *lossless.Sample) error {
	ports, err := rdma.Read(src.fs, ifname)
	s.RoCE = make([]lossless.RoCEPortSample, 0, len(ports))
	for i := range ports {
		s.RoCE = append(s.RoCE, ports[i].Sample())
	}
	return err
}

// rdmastatSource reads the optional counters of the RoCE ports the rdma
// source found, over RDMA netlink. A port whose counters cannot be read
// says why in its own sample (rdmastat.Unread), as does each port when
// RDMA netlink could not be dialled (err): no error of the sample.
type rdmastatSource struct {
	c   RDMAStats
	err error // why c is nil
}

// Name is "rdmastat".
func (rdmastatSource) Name() string { return string(lossless.SourceRDMAStat) }

// Sample sets each RoCE port's optional counters.
func (src rdmastatSource) Sample(_ string, s *lossless.Sample) error {
	for i := range s.RoCE {
		p := &s.RoCE[i]
		switch {
		case src.c != nil:
			if st, err := src.c.Port(p.Device, p.Port); err != nil {
				p.Optional = rdmastat.Unread(err)
			} else {
				p.Optional = st.Sample()
			}
		case src.err != nil:
			p.Optional = rdmastat.Unread(src.err)
		}
	}
	return nil
}

// linkpauseSource reads the link-wide PAUSE settings and statistics
// over ethtool netlink (capture/linkpause), completed by the driver's
// frame counters the ethtool source found (MergeLinkPause). An interface
// the kernel does not know (ENODEV) is no error.
type linkpauseSource struct{ p PauseReader }

// Name is "linkpause".
func (linkpauseSource) Name() string { return string(lossless.SourceLinkPause) }

// Sample sets the link pause.
func (src linkpauseSource) Sample(ifname string, s *lossless.Sample) error {
	p, err := src.p.Get(ifname)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	s.LinkPause = MergeLinkPause(p.Sample(), s.LinkPause)
	return nil
}
