// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"strconv"
	"strings"
)

// A Counter is one hardware counter of a port, as the driver names it
// (struct rdma_stat_desc .name: "out_of_buffer", "np_cnp_sent",
// "cc_rx_ce_pkts", ...).
type Counter struct {
	// Name is the driver's name of the counter: 1 to 64 bytes of
	// printable ASCII without spaces or commas.
	Name string
	// Value is the counter's value from RDMA_NLDEV_CMD_STAT_GET, or nil
	// when the reply had none: an optional counter that is disabled (the
	// kernel leaves those out), or a value attribute that was not a u64.
	// It is never a zero standing in for a missing value.
	Value *uint64
	// Optional is true for a counter the kernel reports with
	// RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC (IB_STAT_FLAG_OPTIONAL): it
	// counts only while enabled. Known only when Port.StatusKnown.
	Optional bool
	// Enabled is the state of an optional counter (false for the others).
	Enabled bool
}

// A Port is the hardware counters of one port of an RDMA device.
type Port struct {
	// Device is the RDMA device's name ("mlx5_0") and Port its port
	// number, from 1.
	Device string
	Port   int
	// Counters are the port's counters, sorted by name: every counter of
	// the STAT_GET reply, and with StatusKnown also the optional counters
	// that are disabled (with a nil Value).
	Counters []Counter
	// StatusKnown is true when the kernel answered
	// RDMA_NLDEV_CMD_STAT_GET_STATUS, so that Optional and Enabled are
	// known; kernels before Linux 5.16 refuse it.
	StatusKnown bool
	// StatusWhy says, in one line, why StatusKnown is false ("" when it
	// is true).
	StatusWhy string
	// Skipped has one line for each counter entry of the replies that
	// was left out or only partly used (a name that is missing, too long
	// or not printable; a value that is not a u64; a duplicate name), in
	// reply order. It is nil for a well-formed reply.
	Skipped []string
}

// Counter returns the counter named name and whether the port has it.
func (p Port) Counter(name string) (Counter, bool) {
	for _, c := range p.Counters {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

// Disabled returns the names of the optional counters that are disabled,
// sorted; nil when there are none or StatusKnown is false.
func (p Port) Disabled() []string {
	if !p.StatusKnown {
		return nil
	}
	var names []string
	for _, c := range p.Counters {
		if c.Optional && !c.Enabled {
			names = append(names, c.Name)
		}
	}
	return names
}

// EnableCommand returns the iproute2 command that would enable every
// disabled optional counter of the port while keeping the enabled ones
// enabled, such as
//
//	rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts
//
// or "" when no optional counter is disabled (or StatusKnown is false).
//
// The command lists the enabled optional counters as well as the disabled
// ones because `rdma statistic set link DEV/PORT optional-counters LIST`
// replaces the set of enabled counters rather than adding to it: iproute2
// (rdma/stat.c stat_one_set_link_opcounters) sends the indexes of the
// named counters in one RDMA_NLDEV_CMD_STAT_SET, and the kernel
// (nldev_stat_set_counter_dynamic_doit) disables every optional counter
// that is not in it. The package itself never changes a counter.
func (p Port) EnableCommand() string {
	if len(p.Disabled()) == 0 {
		return ""
	}
	var names []string
	for _, c := range p.Counters {
		if c.Optional {
			names = append(names, c.Name)
		}
	}
	link := p.Device + "/" + strconv.Itoa(p.Port)
	return "rdma statistic set link " + shellQuote(link) + " optional-counters " + shellQuote(strings.Join(names, ","))
}

// A Device is an RDMA device as RDMA_NLDEV_CMD_GET reports it.
type Device struct {
	// Name is the device's name ("mlx5_0", "rocep1s0f0", "rxe0").
	Name string
	// Index is the kernel's device index (struct ib_device .index), by
	// which requests name the device.
	Index uint32
	// Ports is the number of ports; they are numbered 1 to Ports.
	Ports int
}

// shellQuote returns s unchanged when it holds only characters that a
// POSIX shell takes literally, and otherwise s in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_-./:,=+@%", c) >= 0
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
