// SPDX-License-Identifier: Apache-2.0

// Package tunable reads and writes a driver's PFC storm prevention
// timeout: the ethtool tunable ETHTOOL_PFC_PREVENTION_TOUT
// (include/uapi/linux/ethtool.h enum tunable_id), a u16 in milliseconds,
// through the SIOCETHTOOL ioctl's ETHTOOL_GTUNABLE and ETHTOOL_STUNABLE
// with struct ethtool_tunable (net/ethtool/ioctl.c ethtool_get_tunable,
// ethtool_set_tunable; ethtool's --get-tunable/--set-tunable
// pfc-prevention-tout). It is how long a NIC keeps pausing its peer
// before its storm guard stops honouring its own PFC (mlx5:
// en_ethtool.c mlx5e_get_pfc_prevention_tout and _set_, 80-8000 ms, the
// stall watermark beside tx_pause_storm_warning_events and
// _error_events). Most drivers have no such tunable: the kernel answers
// EOPNOTSUPP (ErrNoTunable) without a get_tunable, and the driver
// without the ID.
package tunable

import (
	"errors"
	"fmt"
	"syscall"
)

// The special values of the timeout (include/uapi/linux/ethtool.h).
const (
	// Disabled is PFC_STORM_PREVENTION_DISABLE: no storm prevention.
	Disabled uint16 = 0
	// Auto is PFC_STORM_PREVENTION_AUTO: the driver's default (mlx5
	// writes 100 ms, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC, and reads that
	// back).
	Auto uint16 = 0xffff
)

// ioctl numbers and the tunable's identity (include/uapi/linux/ethtool.h,
// include/uapi/linux/sockios.h).
const (
	siocEthtool         = 0x8946 // SIOCETHTOOL
	ethtoolGTunable     = 0x48   // ETHTOOL_GTUNABLE
	ethtoolSTunable     = 0x49   // ETHTOOL_STUNABLE
	pfcPreventionTout   = 3      // ETHTOOL_PFC_PREVENTION_TOUT
	ethtoolTunableU16   = 2      // ETHTOOL_TUNABLE_U16
	ifnamsiz            = 16     // IFNAMSIZ
	sizeofTunableHeader = 16     // struct ethtool_tunable: cmd, id, type_id, len (u32 each)
)

// ErrNoTunable matches (errors.Is) an Error whose interface has no PFC
// storm prevention timeout: EOPNOTSUPP from the kernel (no get_tunable,
// a veth) or from the driver (mlx5 without the PCAM pfcc_mask and
// stall_detect capabilities).
var ErrNoTunable = errors.New("no PFC storm prevention timeout")

// An Error is a failed ETHTOOL_GTUNABLE or ETHTOOL_STUNABLE: Op is
// "ETHTOOL_GTUNABLE" or "ETHTOOL_STUNABLE", Err the errno.
type Error struct {
	Op     string
	Ifname string
	Err    error
}

// Error is one line: what failed and why, in words where the errno says
// something about the driver.
func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, syscall.EOPNOTSUPP):
		return fmt.Sprintf("%s has no PFC storm prevention timeout (the driver has no ethtool tunable pfc-prevention-tout)", e.Ifname)
	case errors.Is(e.Err, syscall.EPERM):
		return fmt.Sprintf("%s %s: permission denied (needs CAP_NET_ADMIN)", e.Op, e.Ifname)
	case errors.Is(e.Err, syscall.ENODEV):
		return fmt.Sprintf("%s: no such interface", e.Ifname)
	}
	return fmt.Sprintf("%s pfc-prevention-tout %s: %v", e.Op, e.Ifname, e.Err)
}

// Unwrap returns the errno.
func (e *Error) Unwrap() error { return e.Err }

// Is matches ErrNoTunable for EOPNOTSUPP.
func (e *Error) Is(target error) bool {
	return target == ErrNoTunable && errors.Is(e.Err, syscall.EOPNOTSUPP)
}
