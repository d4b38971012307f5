// SPDX-License-Identifier: Apache-2.0

// Package ecn reads a network interface's DCQCN settings, the ECN-based
// congestion control of RoCE v2, from whichever source the host has, and
// says so when they are unknown. It only reads files; nothing here is an
// engine event yet.
//
// DCQCN has three roles. A switch marks packets ECN CE when a queue
// builds up. The receiving NIC, the notification point (NP), answers a
// marked RoCE packet with a congestion notification packet (CNP) to the
// sender, at most one per min_time_between_cnps, carrying the CNP's own
// DSCP and 802.1p priority. The sending NIC, the reaction point (RP),
// cuts the flow's rate on a CNP and climbs back (the rpg_* and dce_tcp_*
// parameters). For CNPs to arrive on time, the switches must give the CNP
// DSCP/priority a queue of its own (often strict priority); dcbtop wants
// the CNP marking for that check.
//
// # Files
//
// Every path is under the root the caller gives ("/sys"), which stands
// for all of /sys, debugfs at kernel/debug included; Settings.Source and
// every path in Settings.Problems are relative to it.
//
// The interface, class/net/IF (Read refuses a name the kernel's
// dev_valid_name, net/core/dev.c, would refuse, before touching a file),
// and its links made by the driver core (drivers/base/core.c
// device_add_class_symlinks, drivers/base/dd.c driver_sysfs_add):
//
//	class/net/IF/device          -> the PCI device; base name e.g. 0000:3b:00.0
//	class/net/IF/device/driver   -> the bound driver; base name e.g. mlx5_core
//
// 1. The MLNX_OFED tree, made by NVIDIA's out-of-tree mlx5_core
// (mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c,
// mlx5e_sysfs_create and mlx5e_fill_attributes; values printed with
// "%d\n" by en_ecn.c, which prints nothing when the firmware query
// fails):
//
//	class/net/IF/ecn/roce_np/enable/0..7        0 or 1: NP on for that priority
//	class/net/IF/ecn/roce_np/cnp_dscp           0..63
//	class/net/IF/ecn/roce_np/cnp_802p_prio      0..7
//	class/net/IF/ecn/roce_np/min_time_between_cnps
//	class/net/IF/ecn/roce_rp/enable/0..7        0 or 1: RP on for that priority
//	class/net/IF/ecn/roce_rp/{clamp_tgt_rate, clamp_tgt_rate_after_time_inc,
//	  rpg_time_reset, rpg_byte_reset, rpg_threshold, rpg_max_rate,
//	  rpg_ai_rate, rpg_hai_rate, rpg_gd, rpg_min_dec_fac, rpg_min_rate,
//	  rate_to_set_on_first_cnp, dce_tcp_g, dce_tcp_rtt,
//	  rate_reduce_monitor_period, initial_alpha_value}
//
// 2. The upstream (inbox) mlx5 debugfs directory, read only when the
// netdev has no MLNX_OFED tree and its driver is mlx5_core:
//
//	kernel/debug/mlx5/PCI/cc_params/NAME
//
// mlx5/ is mlx5_core's debugfs root and PCI its per-device directory,
// named after the PCI function (drivers/net/ethernet/mellanox/mlx5/core/
// debugfs.c mlx5_register_debugfs and mlx5_debugfs_get_dev_root; main.c
// mlx5_mdev_init makes it with dev_name). mlx5_ib makes cc_params in it
// for each port's native mlx5 device (drivers/infiniband/hw/mlx5/cong.c
// mlx5_ib_init_cong_debugfs), so there is one per PCI function, and only
// when the firmware grants cc_query_allowed and cc_modify_allowed. The
// NAMEs (cong.c mlx5_ib_dbg_cc_name) are rp_clamp_tgt_rate,
// rp_clamp_tgt_rate_ati, rp_time_reset, rp_byte_reset, rp_threshold,
// rp_ai_rate, rp_max_rate, rp_hai_rate, rp_min_dec_fac, rp_min_rate,
// rp_rate_to_set_on_first_cnp, rp_dce_tcp_g, rp_dce_tcp_rtt,
// rp_rate_reduce_monitor_period, rp_initial_alpha_value, rp_gd,
// np_min_time_between_cnps, np_cnp_dscp, np_cnp_prio_mode, np_cnp_prio,
// and, with the roce_cc_general capability, rtt_resp_dscp_valid and
// rtt_resp_dscp. Reading one queries the firmware (QUERY_CONG_PARAMS)
// and prints the u32 with "%u\n" (cong.c get_param). The files are mode
// 0600 and debugfs itself is root-only and often not mounted; a missing
// or unreadable step on the way (kernel/debug, kernel/debug/mlx5, the
// PCI directory, cc_params) makes the settings unknown, and Why names
// the step.
//
// This directory has no per-priority enable: NotificationPoint and
// ReactionPoint stay Unknown, never Off.
//
// 3. Otherwise the settings are unknown and Why says why (no such
// interface, a virtual interface without a device link, no driver, a
// driver without a known source, debugfs missing or root-only). For
// mlx5_core, Hint is the firmware query that shows the power-on values,
// `mlxconfig -d PCI q ROCE_CC_PRIO_MASK_P1 CNP_DSCP_P1 CNP_802P_PRIO_P1`
// (the second port of a dual-port card has _P2 parameters); it is also
// given when a source was read but left the NP priorities, the CNP DSCP
// or the CNP priority unknown. For bnxt_en, Hint points at upstream
// bnxt_re's debugfs directory, kernel/debug/bnxt_re/PCI/cc_config/
// (drivers/infiniband/hw/bnxt_re/debugfs.c bnxt_re_debugfs_add_pdev);
// its files are not modelled here, because the kernel source does not
// say which of them is the CNP marking. The configfs tree under
// kernel/config/bnxt_re/ is made only by Broadcom's out-of-tree driver
// (upstream drivers/infiniband/hw/bnxt_re/ has no configfs.c) and is not
// read either. For ice and i40e (irdma) Hint says no file is known.
// Other drivers (virtio_net, ...) get no hint.
//
// # The CNP priority mode
//
// np_cnp_prio_mode shows the one-bit cnp_prio_mode field of the NP
// congestion parameters (include/linux/mlx5/mlx5_ifc.h,
// cong_control_r_roce_ecn_np, next to the 3-bit cnp_802p_prio and 6-bit
// cnp_dscp). cong.c ties the two together: writing np_cnp_prio sets
// cnp_802p_prio and clears cnp_prio_mode in the same command
// (mlx5_ib_set_cc_param_mask_val), so mode 0 means the CNP is sent with
// the configured priority. Mode 1 is the other choice, the CNP taking the
// priority of the received packet that triggered it. That reading is not
// in the kernel source, which only passes the bit between the file and
// the firmware; it rests on the field's name and NVIDIA's description of
// cnp_prio_mode, and was not checked against the PRM's own text. Read
// models it so: with mode 1, CNPPriorityFromPacket is true and
// CNPPriority nil (the parameter is not used); with mode 0 or an unknown
// mode, CNPPriority is np_cnp_prio. The MLNX_OFED tree shows no mode at
// all, so its cnp_802p_prio is reported as CNPPriority with
// CNPPriorityFromPacket nil.
//
// # Values
//
// Each file is read once, at most 64 bytes (a FIFO or a directory where
// a file should be is refused without blocking). A value must be decimal
// digits and at most one newline, and fit its field (mlx5_ifc.h widths:
// enable and mode bits 0..1, DSCP 0..63, priority 0..7, the rest u32). A
// file that is empty, not a number, out of range, too long, a directory
// or unreadable leaves its value unknown and adds "path: problem" to
// Problems; a missing file leaves it unknown silently. Nothing is a zero
// by accident, and no input panics.
//
// # Why not prometheus/procfs
//
// github.com/prometheus/procfs v0.22.0 parses the MLNX_OFED tree
// (sysfs.FS.EcnByIface), but cannot be trusted with it: a missing
// cnp_dscp or rpg_* file comes back as 0, the same as a real 0; every
// value is parsed with base 0, so "0x30" is 48 and "010" is 8; and a
// non-numeric value dereferences a nil pointer (*vp.PUInt64() in
// ParseRoceNpEcnAttribute), panicking the caller. It also reads the
// whole class/net/IF tree first and fails outright when enable/ is
// missing. This package reads the few files itself.
package ecn
