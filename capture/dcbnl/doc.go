// SPDX-License-Identifier: Apache-2.0

// Package dcbnl is a client of the Linux DCB netlink interface (dcbnl:
// include/uapi/linux/dcbnl.h, net/dcb/dcbnl.c), the rtnetlink messages
// RTM_GETDCB and RTM_SETDCB through which drivers expose Data Center
// Bridging: IEEE 802.1Qaz ETS and APP, 802.1Qbb PFC, CEE, and the DCBX mode.
//
// A Client reads an interface's state (IEEE, CEE, DCBX), writes it (SetIEEE,
// DelApps, SetDCBX), and follows the RTNLGRP_DCB notifications (Watch). The
// package has its own types, which mirror the kernel's structures field for
// field; it imports no dcbtop engine package.
//
// # Messages
//
// Every request is a netlink header (type RTM_GETDCB or RTM_SETDCB, flag
// NLM_F_REQUEST), struct dcbmsg {family AF_UNSPEC, cmd, pad}, DCB_ATTR_IFNAME
// and the command's attributes. The kernel answers with one message of the
// command's reply type carrying the same cmd, or with a netlink error. The
// C structures (ieee_ets 59 bytes, ieee_pfc 136, dcb_app 4, ...) travel in
// host byte order and are encoded by hand, padding included.
//
// # What the kernel leaves out
//
// An attribute whose dcbnl_ops callback the driver lacks (or whose callback
// fails) is silently absent from a reply, and a SET of a feature without
// its callback is silently ignored and reported as a success. Fields of
// IEEE and CEE are therefore pointers or slices that are nil when absent,
// and a write should be followed by a read. The IEEE APP table is the
// kernel's list for the port, which also holds entries learned from the
// peer by lldpad or firmware-mode drivers.
//
// # Errors
//
// Failures are *Error values naming the command and interface, with
// messages that fit after "dcbtop: ". Use errors.Is with ErrNoDCB (the
// interface has no DCB support: veth, virtio_net, bonds, VLANs, most VFs),
// os.ErrNotExist (no such interface), os.ErrPermission (SET without
// CAP_NET_ADMIN), ErrMalformed, or an errno. A SET that reached the driver
// reports the driver's status inside the reply; it comes back with
// Error.Driver set.
//
// # Privileges
//
// Reading and watching need no privilege. IEEE_SET, IEEE_DEL and SDCBX need
// CAP_NET_ADMIN in the initial user namespace (netlink_capable in dcb_doit):
// root inside `unshare -rn` is not enough.
//
// # Network namespaces
//
// Dial opens its sockets in the network namespace of the calling thread;
// interface names are looked up there. To work in another namespace, call
// Dial on a goroutine locked (runtime.LockOSThread) to a thread that has
// entered it; the Client can then be used from any goroutine.
//
// # Notifications
//
// The kernel notifies RTNLGRP_DCB after every IEEE_SET and IEEE_DEL (even a
// failed one) and after the CEE commands SAPP and SET_ALL; i40e and ice also
// notify when their firmware agent changes the configuration, mlx5 never.
// A notification carries the whole state of the interface, but it is only a
// hint: keep polling, and re-read on a notification.
//
// Linux only: on other systems every Client method returns an error.
//
// Size: about 1,900 lines, most of them the byte-exact layouts of
// linux/dcbnl.h (struct ieee_ets, ieee_pfc, dcb_app and the attribute
// tables) that every request and reply shares.
package dcbnl
