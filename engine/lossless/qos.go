// SPDX-License-Identifier: Apache-2.0

package lossless

import "slices"

// A PortQoSSample is how the NIC classifies and buffers received traffic,
// as DCB netlink reports it (DCB_CMD_IEEE_GET, linux/dcbnl.h): which
// header field decides a packet's priority (trust), the PFC delay
// allowance, the receive buffers per priority, and the per-TC rate
// limits. Each is null when the driver does not report it.
type PortQoSSample struct {
	// Trust lists the fields the port classifies received traffic by, in
	// precedence order: "dscp", "pcp" or another APP selector's name
	// (DCB_ATTR_DCB_APP_TRUST_TABLE, Linux 6.2+). Where the kernel does
	// not report it, it is derived as mlx5 sets it when the APP table
	// changes: ["dscp","pcp"] when DSCP entries exist, else ["pcp"]
	// (TrustDerived). Null when unknown.
	Trust        []string `json:"trust"`
	TrustDerived bool     `json:"trust_derived"`
	// PFCDelay is struct ieee_pfc's delay: the allowance for the cable's
	// round trip in bits; mlx5 takes it as the cable length in metres and
	// sizes each lossless buffer's headroom from it.
	PFCDelay *uint16 `json:"pfc_delay"`
	// Buffer is the receive buffer split (DCB_ATTR_DCB_BUFFER, struct
	// dcbnl_buffer, mlx5): each priority's buffer and each buffer's size.
	Buffer *PortBuffer `json:"buffer"`
	// MaxRateKbps is each TC's transmit rate limit in kbit/s, 0 unlimited
	// (DCB_ATTR_IEEE_MAXRATE).
	MaxRateKbps *[8]uint64 `json:"max_rate_kbps"`
	// Rewrite is the APP rewrite table (DCB_ATTR_DCB_REWR_TABLE, Linux
	// 6.3; net/dcb/dcbnl.c dcb_rewr_list): the DSCP or PCP a frame of a
	// priority leaves with. Empty when the kernel has the table and it
	// holds nothing; null when the kernel has none (before 6.3) or DCB
	// netlink does not report.
	Rewrite []RewriteEntry `json:"rewrite"`
	// Source names where the values come from.
	Source string `json:"source"`
}

// A RewriteEntry is one entry of the APP rewrite table: frames of
// Priority leave with Protocol in the field Selector names ("dscp": the
// DSCP, IEEE_8021QAZ_APP_SEL_DSCP; "pcp": PCP + 8×DEI, DCB_APP_SEL_PCP).
type RewriteEntry struct {
	Selector string `json:"selector"`
	Priority uint8  `json:"priority"`
	Protocol uint16 `json:"protocol"`
}

// A PortBuffer is struct dcbnl_buffer: the receive buffer each priority
// uses and the buffers' sizes in bytes.
type PortBuffer struct {
	PrioBuffer [8]uint8  `json:"prio_buffer"`
	SizeBytes  [8]uint32 `json:"size_bytes"`
	TotalBytes uint32    `json:"total_bytes"`
}

// TrustsDSCP reports whether DSCP decides the priority (it comes first),
// and whether that is known.
func (q *PortQoSSample) TrustsDSCP() (dscp, known bool) {
	if q == nil || q.Trust == nil {
		return false, false
	}
	return len(q.Trust) > 0 && q.Trust[0] == "dscp", true
}

// equal reports whether two samples hold the same facts.
func (q *PortQoSSample) equal(o *PortQoSSample) bool {
	if q == nil || o == nil {
		return q == o
	}
	return slices.Equal(q.Trust, o.Trust) && q.TrustDerived == o.TrustDerived && ptrEqual(q.PFCDelay, o.PFCDelay) &&
		ptrEqual(q.Buffer, o.Buffer) && ptrEqual(q.MaxRateKbps, o.MaxRateKbps) && q.Source == o.Source &&
		slices.Equal(q.Rewrite, o.Rewrite) && (q.Rewrite == nil) == (o.Rewrite == nil)
}

// clone returns a deep copy.
func (q *PortQoSSample) clone() *PortQoSSample {
	if q == nil {
		return nil
	}
	c := *q
	c.Trust = slices.Clone(q.Trust)
	c.Rewrite = slices.Clone(q.Rewrite)
	return &c
}
