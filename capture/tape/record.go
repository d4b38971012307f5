// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// Magic starts every host record ("DCBT").
var Magic = [4]byte{'D', 'C', 'B', 'T'}

// Version is the host records' format version this package writes. A
// record of a later version is read as far as its kinds and tags are
// known; one of version 0 is corrupt.
const Version = 1

// Limits of a host record: what a reader refuses as corrupt rather than
// allocate (docs/recording.md).
const (
	// MaxRecord bounds a record's payload: the largest input is a file
	// of a few KiB or an `ethtool -S` of a few thousand statistics.
	MaxRecord = 1 << 20
	// MaxItems bounds the names of a directory, the statistics of an
	// ethtool record or the agents observed.
	MaxItems = 1 << 16
	// maxString bounds a name or a message.
	maxString = 4096
)

// A Kind is the kind of a host record.
type Kind uint8

// The kinds of host records (docs/recording.md).
const (
	KindBegin    Kind = 1
	KindEnd      Kind = 2
	KindFile     Kind = 3
	KindEthtool  Kind = 4
	KindObserved Kind = 5
	KindLink     Kind = 6
	KindSources  Kind = 7
	// KindNetlinkError ends a netlink exchange whose request got no
	// kernel's answer but an error of the client's side (a socket error,
	// a reply that could not be read): it follows the request, instead
	// of a reply packet.
	KindNetlinkError Kind = 8
	// KindLocal is what the run learnt of an interface's local
	// parameters from outside the host's other inputs: a dcbtop agent of
	// another process, through its control socket.
	KindLocal Kind = 9
	// KindTunable is an answer of the ETHTOOL_GTUNABLE ioctl.
	KindTunable Kind = 10
)

// A Round is what a round of reads is for.
type Round uint8

// The rounds.
const (
	// RoundOpen: the host's readers opened (counters.Open): the sources
	// there are and what resolving their netlink families asked.
	RoundOpen Round = 1
	// RoundCounters: one counters sample of Begin.Ifname.
	RoundCounters Round = 2
	// RoundDCB: one reading of Begin.Ifname's local DCB parameters.
	RoundDCB Round = 3
)

// String names the round in errors.
func (r Round) String() string {
	switch r {
	case RoundOpen:
		return "open"
	case RoundCounters:
		return "counters"
	case RoundDCB:
		return "dcb"
	}
	return fmt.Sprintf("round %d", uint8(r))
}

// A Record is one host record.
type Record interface{ Kind() Kind }

// Begin starts a round of reads.
type Begin struct {
	Round    Round
	Ifname   string        // the interface read ("" for RoundOpen)
	Interval time.Duration // a counters sample's interval
}

// End ends the round begun last.
type End struct{}

// File is one operation on the tree that stands for /sys.
type File struct{ Op hostfs.Op }

// An EthtoolOp is what an Ethtool record answers.
type EthtoolOp uint8

// The ethtool operations (the ETHTOOL_GDRVINFO and ETHTOOL_GSTATS ioctls,
// or a recorded `ethtool -i` / `ethtool -S`).
const (
	EthtoolDriver EthtoolOp = 1
	EthtoolStats  EthtoolOp = 2
)

// Ethtool is one answer of the driver's ethtool operations.
type Ethtool struct {
	Ifname string
	Op     EthtoolOp
	Driver string
	Stats  []Stat // in the driver's order
	Err    error
}

// Tunable is one answer of the ETHTOOL_GTUNABLE ioctl (KindTunable): a
// driver tunable of Ifname (ID, include/uapi/linux/ethtool.h enum
// tunable_id: 3 ETHTOOL_PFC_PREVENTION_TOUT) and its value, or the error
// the ioctl got (EOPNOTSUPP where the driver has no such tunable).
type Tunable struct {
	Ifname string
	ID     uint32
	Value  uint64
	Err    error
}

// TunablePFCPreventionTout is ETHTOOL_PFC_PREVENTION_TOUT, the tunable ID
// of the PFC storm prevention timeout.
const TunablePFCPreventionTout = 3

// Kind is KindTunable.
func (Tunable) Kind() Kind { return KindTunable }

// A Stat is one driver statistic.
type Stat struct {
	Name  string
	Value uint64
}

// Observed is what a scan of the host found: whether the run may
// administer the network (CAP_NET_ADMIN) and the LLDP agent processes.
type Observed struct {
	NetAdmin bool
	Agents   []Agent
}

// An Agent is an LLDP agent process.
type Agent struct {
	Name      string
	PID       int
	Transmits bool
}

// Link is a link change the kernel announced.
type Link struct {
	Name    string
	Index   int
	MAC     [6]byte
	Up      bool
	Removed bool
	// Was is the name before a rename ("" when none).
	Was string
	// MTU is the interface's MTU (0: not recorded, as in tapes of
	// before it was).
	MTU int
	// VLANs are the VLAN IDs of the VLAN interfaces on it; nil when not
	// recorded (tapes of before they were), empty when none.
	VLANs []uint16
}

// Sources says which counter sources the run had (counters.Sampler):
// their names in order, and why RDMA netlink could not be read
// ("" when it could, or when the host has no RDMA).
type Sources struct {
	Names        []string
	RDMAStatsErr string
}

// Local is what a run learnt, and when (the record's time), of an
// interface's local parameters from a source none of the host's other
// records stands for: the dcbtop agent of another process on the
// interface, whose control socket answered its local parameters and
// Willing state (Source "agent", engine.SourceAgent; control.OtherAgents)
// or stopped answering (Withdrawn). A replay hands the engine the same
// engine.LocalChanged at the same time.
type Local struct {
	Ifname string
	// Source is the engine's name of the source (engine.LocalSource).
	Source    string
	Willing   bool
	Withdrawn bool
	// Params are the local parameters as JSON, as the control socket
	// carries them (the snapshot contract's PARAMS, encoding/json's
	// form of dcb.Params); nil when there are none (withdrawn).
	Params []byte
}

// Kind is KindLocal.
func (Local) Kind() Kind { return KindLocal }

// NetlinkError is the error a netlink exchange got instead of a kernel's
// answer (KindNetlinkError): its text, without the "netlink receive:" of
// netlink.OpError, which the replayed connection adds again.
type NetlinkError struct{ Text string }

// Kind is KindNetlinkError.
func (NetlinkError) Kind() Kind { return KindNetlinkError }

// Kind is KindBegin.
func (Begin) Kind() Kind { return KindBegin }

// Kind is KindEnd.
func (End) Kind() Kind { return KindEnd }

// Kind is KindFile.
func (File) Kind() Kind { return KindFile }

// Kind is KindEthtool.
func (Ethtool) Kind() Kind { return KindEthtool }

// Kind is KindObserved.
func (Observed) Kind() Kind { return KindObserved }

// Kind is KindLink.
func (Link) Kind() Kind { return KindLink }

// Kind is KindSources.
func (Sources) Kind() Kind { return KindSources }

// Field tags. Each kind numbers its own from 1.
const (
	tagRound    = 1
	tagIfname   = 2
	tagInterval = 3

	tagOp    = 1
	tagName  = 2
	tagInfo  = 3
	tagEntry = 4
	tagData  = 5
	tagErr   = 6

	tagEthIfname = 1
	tagEthOp     = 2
	tagDriver    = 3
	tagStat      = 4
	tagEthErr    = 6

	tagNetAdmin = 1
	tagAgent    = 2

	tagLinkName    = 1
	tagLinkIndex   = 2
	tagLinkMAC     = 3
	tagLinkFlags   = 4
	tagLinkWas     = 5
	tagLinkMTU     = 6
	tagLinkVLANs   = 7 // 2 bytes each, little-endian; present and empty for none
	tagSourceName  = 1
	tagRDMAStatErr = 2

	tagNetlinkErr = 1

	tagLocalIfname = 1
	tagLocalSource = 2
	tagLocalFlags  = 3 // 1 willing, 2 withdrawn
	tagLocalParams = 4 // PARAMS JSON; absent for none

	tagTunIfname = 1
	tagTunID     = 2 // u32
	tagTunValue  = 3 // u64
	tagTunErr    = 4
)

// Error classes of a recorded error (the first byte of an error field).
const (
	errErrno      = 1 // u32 errno, then the operation's name
	errIsDir      = 2
	errNotRegular = 3
	errText       = 4 // the message
)
