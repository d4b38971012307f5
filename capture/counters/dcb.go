package counters

import (
	"errors"
	"strconv"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// DCB gives an interface's per-priority PFC frame counters from DCB
// netlink (struct ieee_pfc): requests are the PFC frames sent, indications
// those received, indexed by priority.
type DCB interface {
	PFCCounters(ifname string) (requests, indications [8]uint64, err error)
}

// errNoPFC is what DCBFrom's DCB returns when the driver reports no
// ieee_pfc.
var errNoPFC = errors.New("dcbnl: no ieee_pfc in the reply")

// An IEEEReader reads an interface's IEEE DCB state (DCB_CMD_IEEE_GET):
// a *dcbnl.Client, or one that shares each reply with another reader.
type IEEEReader interface {
	IEEE(ifname string) (*dcbnl.IEEE, error)
}

var _ IEEEReader = (*dcbnl.Client)(nil)

// DCBFrom returns the DCB that reads the counters with c (IEEE_GET: the
// requests and indications of its PFC). An error, or a reply without PFC,
// is an error. DCBFrom(nil) is nil: no DCB.
func DCBFrom(c IEEEReader) DCB {
	if c == nil {
		return nil
	}
	return dcbClient{c}
}

type dcbClient struct{ c IEEEReader }

func (d dcbClient) PFCCounters(ifname string) (requests, indications [8]uint64, err error) {
	ieee, err := d.c.IEEE(ifname)
	if err != nil {
		return requests, indications, err
	}
	if ieee == nil || ieee.PFC == nil {
		return requests, indications, errNoPFC
	}
	return ieee.PFC.Requests, ieee.PFC.Indications, nil
}

// pfc samples ifname's per-priority pause counters. The counts come from
// dcbnl when it has any that is not zero, otherwise from the driver's
// ethtool statistics when a table reads them, otherwise from dcbnl when it
// answered at all (its zeros are then all there is); nil when neither
// source has anything. Durations and storm counters come from ethtool
// whichever source has the counts. A failure of either source is no
// error of the sample: most interfaces have neither.
func (s *Sampler) pfc(ifname string, stats map[string]uint64, table *pfcTable) *lossless.PFCSample {
	var (
		dcbOK, dcbNonZero bool
		req, ind          [8]uint64
	)
	if s.dcb != nil {
		var err error
		if req, ind, err = s.dcb.PFCCounters(ifname); err == nil {
			dcbOK = true
			for p := range 8 {
				dcbNonZero = dcbNonZero || req[p] != 0 || ind[p] != 0
			}
		}
	}
	out := &lossless.PFCSample{}
	switch {
	case dcbOK && dcbNonZero:
		fromDCB(req, ind, out)
	case table != nil && table.counts(stats, out):
		out.Source = lossless.PFCSourceEthtool
	case dcbOK:
		fromDCB(req, ind, out)
	default:
		return nil
	}
	if table != nil {
		table.extras(stats, out)
	}
	return out
}

// fromDCB sets out's counts to dcbnl's requests (sent) and indications
// (received).
func fromDCB(req, ind [8]uint64, out *lossless.PFCSample) {
	out.Source = lossless.PFCSourceDCBNL
	for p := range out.Priorities {
		i := strconv.Itoa(p)
		out.Priorities[p].RxPause = lossless.Reading{Value: ind[p], Source: "dcbnl ieee_pfc.indications[" + i + "]"}
		out.Priorities[p].TxPause = lossless.Reading{Value: req[p], Source: "dcbnl ieee_pfc.requests[" + i + "]"}
	}
}
