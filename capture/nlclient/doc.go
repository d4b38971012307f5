// SPDX-License-Identifier: Apache-2.0

// Package nlclient is the plumbing that dcbtop's netlink clients share:
// capture/dcbnl (rtnetlink DCB), capture/linkpause (the ethtool generic
// netlink family) and capture/rdmastat (RDMA netlink). It holds what those
// clients did alike, written once:
//
//   - Dial opens a request socket that asks for extended acknowledgements;
//     a Conn sends one request on it and picks the reply of the expected
//     message type, and remembers that it was closed.
//   - Error tells a failed request about a network interface in the words
//     the clients share (an unknown interface, a name that cannot be one,
//     the kernel's extended acknowledgement), and Cause and Detail find the
//     errno and that acknowledgement in what github.com/mdlayher/netlink
//     returns.
//   - MalformedError, made through a Family, is a reply that cannot be
//     decoded; it matches the ErrMalformed sentinel of the package that
//     made it.
//   - ValidIfname and CString are the kernel's rules for interface names
//     and NUL-terminated strings.
//
// It is not a netlink library and knows no family's messages: it neither
// builds a request nor decodes the attributes of a reply, it does not
// resolve generic netlink families, and it does not join multicast groups.
// Each client keeps its requests, its decoders, its exported Error type
// (whose messages and errors.Is targets are its family's), and its
// exported Client. The numbers of each family stay in that family's
// package.
//
// The test support of those packages, a fake kernel behind an nltest
// connection and the checks of constants against the installed UAPI
// headers, is in nlclient/nlfixture, for _test.go files only.
package nlclient
