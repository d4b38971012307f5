// SPDX-License-Identifier: Apache-2.0

// Package realkernel holds the tests that run inside the guest testbed/vm
// boots (build tag realkernel): dcbtop against the real kernel's DCB
// netlink, ethtool and RDMA code on testbed/kmod's DCB test device, judged
// by tools nobody here wrote (iproute2's dcb, ethtool, lldpd). The host's
// TestRealKernel (testbed/vm) builds them with dcbtop and the module,
// boots the guest once and reports their results; docs/development.md
// says how to run one alone.
package realkernel
