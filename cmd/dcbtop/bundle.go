// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop bundle: one file for a ticket, as sosreport is for a host:
// every LLDPDU and every input dcbtop reads, for a while, optionally with
// MACs, names, GIDs and addresses replaced (capture/redact); dcbtop -r
// replays it on the screen.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/capture/anonfile"
	"github.com/dcbtop/dcbtop/capture/redact"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/capture/tape"
)

// bundleUsage is dcbtop bundle --help.
const bundleUsage = `usage: dcbtop bundle [-i IFACE]... [--duration D] [--redact] [-o FILE]

Records what dcbtop sees on this host into one file for a support ticket:
every LLDPDU in both directions and every input dcbtop reads (DCB,
ethtool and RDMA netlink replies, the RDMA sysfs tree and rdma_cm's
configfs, the driver's statistics, the LLDP agents running, link
changes), for --duration. dcbtop -r FILE replays it on the screen with
its counters, RoCE path and diagnostics, as they were. Read-only:
nothing is sent or written to the kernel.

A bundle holds this host's interface names and MAC addresses, its
switch's LLDP advertisement (system name and description, port, chassis
and management address), the RDMA devices' GIDs (which hold IP
addresses) and counters; --redact replaces the MACs, names, GIDs and
addresses with placeholders, the same input giving the same placeholder,
so that the replay still holds together, and blanks every LLDP TLV
dcbtop does not read or discards (LLDP-MED inventory, vendors' TLVs).
Kept as they are: RDMA device names, PCI addresses, driver and firmware
names, statistic names and values, DCB parameters, 1- and 2-byte
interface names in the host's records, IP addresses written as text.

  -i IFACE        an interface to record (repeatable; default every up
                  Ethernet interface)
  --duration D    how long to record (default 30s, LLDP's usual transmit
                  interval: at least one advertisement of each peer)
  --redact        replace MACs, names, GIDs and IP addresses with stable
                  placeholders
  -o FILE         the bundle (default dcbtop-bundle-HOST-TIME.pcapng in
                  the current directory, dcbtop-bundle-redacted-TIME.pcapng
                  with --redact; mode 0600, written whole or not at all)
  -h, --help      this help

Example:
  sudo dcbtop bundle -i ens1f0np0 --redact
`

// defaultBundleDuration is LLDP's usual transmit interval (IEEE Std
// 802.1AB-2016, 9.2.5.7: msgTxInterval 30 s): one advertisement of each
// peer at least.
const defaultBundleDuration = 30 * time.Second

// bundleOptions are dcbtop bundle's parsed arguments.
type bundleOptions struct {
	ifaces   []string
	duration time.Duration
	redact   bool
	out      string
}

// bundleFlags defines dcbtop bundle's flags on o.
func bundleFlags(o *bundleOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop bundle", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ifaceFlag(fs, &o.ifaces)
	documentDefault(fs, "i", "every up Ethernet interface")
	durationFlag(fs, &o.duration, "duration", defaultBundleDuration, "how long")
	documentDefault(fs, "duration", "30s, LLDP's usual transmit interval: at least one advertisement of each peer")
	fs.BoolVar(&o.redact, "redact", false, "placeholders")
	fs.StringVar(&o.out, "o", "", "the bundle")
	documentDefault(fs, "o", "dcbtop-bundle-HOST-TIME.pcapng in the current directory, dcbtop-bundle-redacted-TIME.pcapng with --redact")
	return fs
}

// parseBundle parses the arguments after "bundle".
func parseBundle(args []string) (*bundleOptions, error) {
	o := &bundleOptions{}
	if err := parseCommand(bundleFlags(o), args, &o.ifaces); err != nil {
		return nil, err
	}
	if o.duration < time.Second {
		return nil, errors.New("--duration must be at least 1s")
	}
	return o, nil
}

// runBundle is dcbtop bundle.
func runBundle(ctx context.Context, args []string, env Env) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprint(env.Stdout, bundleUsage)
			return ExitOK
		}
	}
	o, err := parseBundle(args)
	if err != nil {
		return usageError(env, err, "bundle", bundleUsage)
	}
	if err := bundle(ctx, o, env); err != nil {
		fmt.Fprintf(env.Stderr, "dcbtop bundle: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// bundle records, then redacts or renames the recording into place, and
// says what it holds.
func bundle(ctx context.Context, o *bundleOptions, env Env) error {
	out := o.out
	if out == "" {
		out = defaultBundleName(o.redact, time.Now())
	}
	// The recording has no name until it is whole (and, with --redact,
	// never has one: only its redacted copy is named): a kill -9 leaves
	// nothing behind that holds this host's names.
	tmp, err := anonfile.Create(filepath.Dir(out))
	if err != nil {
		return err
	}
	defer tmp.Close()
	tmpPath := tmp.Path()
	root, err := sysfsRoot()
	if err != nil {
		return err
	}
	eroot, err := ethtoolRoot()
	if err != nil {
		return err
	}
	what := "every up Ethernet interface"
	if len(o.ifaces) > 0 {
		what = strings.Join(o.ifaces, ", ")
	}
	fmt.Fprintf(env.Stderr, "dcbtop bundle: recording %s for %s ...\n", what, o.duration)
	rt, err := session.Start(session.Config{Interfaces: o.ifaces, Duration: o.duration, Record: tmpPath, Out: io.Discard,
		CountersInterval: session.DefaultCountersInterval, SysfsRoot: root, EthtoolRoot: eroot, NoControl: true,
		Version: version, Revision: revision})
	if err != nil {
		return err
	}
	err = rt.Loop(ctx)
	snap := rt.Snapshot()
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	if err == nil && ctx.Err() != nil {
		err = errInterrupted
	}
	if err != nil {
		return err
	}
	var red *redact.Summary
	if o.redact {
		s, err := redact.File(tmpPath, out)
		if err != nil {
			return fmt.Errorf("--redact: %w", err)
		}
		red = &s
	} else if err := tmp.Link(out); err != nil {
		return err
	}
	inv, err := tape.ReadInventory(out)
	if err != nil {
		return fmt.Errorf("%s: reading it back: %w", out, err)
	}
	peers := map[string][]string{}
	for _, in := range snap.Interfaces {
		for _, p := range in.Peers {
			name := p.ChassisID
			if p.SystemName != nil {
				name = *p.SystemName
			}
			peers[in.Name] = append(peers[in.Name], name)
		}
	}
	writeInventory(env.Stdout, out, inv, peers, red)
	return nil
}

// writeInventory says what a bundle holds and where it is.
func writeInventory(w io.Writer, path string, inv tape.Inventory, peers map[string][]string, red *redact.Summary) {
	fmt.Fprintf(w, "dcbtop bundle: wrote %s (%s)\n", path, humanBytes(inv.Bytes))
	names := make([]string, 0, len(inv.Frames))
	for n := range inv.Frames {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		fmt.Fprintln(w, "  LLDPDUs: none (no interface up, or none named by -i)")
	}
	for _, n := range names {
		c := inv.Frames[n]
		line := fmt.Sprintf("  %s: %d LLDPDUs received, %d sent", n, c.In, c.Out)
		if red == nil { // a redacted bundle's summary names no peer
			if p := peers[n]; len(p) > 0 {
				line += ", peer " + strings.Join(p, ", ")
			}
		}
		fmt.Fprintln(w, line)
	}
	others := ""
	if inv.Locals > 0 { // a dcbtop agent of another process ran beside the bundle
		others = fmt.Sprintf(", %d answers of other dcbtop agents", inv.Locals)
	}
	fmt.Fprintf(w, "  host inputs: %d counters samples, %d DCB readings, %d netlink exchanges, %d file reads, %d ethtool answers, %d LLDP agent scans, %d link changes%s\n",
		inv.Rounds[tape.RoundCounters], inv.Rounds[tape.RoundDCB], inv.Netlink, inv.Files, inv.Ethtool, inv.Observed, inv.Links, others)
	if red != nil {
		fmt.Fprintf(w, "  redacted: %d MACs, %d names, %d GIDs, %d addresses replaced with placeholders; %d TLVs dcbtop does not read blanked\n", red.MACs, red.Names, red.GIDs, red.Addresses, red.Blanked)
		fmt.Fprintln(w, "  kept as they are: RDMA device names, PCI addresses, driver and firmware names, statistic names and values, DCB parameters, 1- and 2-byte interface names in host records, IP addresses written as text")
	} else {
		fmt.Fprintln(w, "  not redacted: it holds MAC addresses, names, GIDs and addresses (--redact replaces them)")
	}
	fmt.Fprintf(w, "  replay: dcbtop -r %s\n", path)
}

// defaultBundleName is the bundle's name without -o: the host's name and
// the time, in the current directory; no host name under --redact, which
// hides it inside the file.
func defaultBundleName(redacted bool, now time.Time) string {
	at := now.UTC().Format("20060102T150405Z")
	if redacted {
		return "dcbtop-bundle-redacted-" + at + ".pcapng"
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("dcbtop-bundle-%s-%s.pcapng", cmp.Or(safeName(host), "host"), at)
}

// humanBytes is n in B, KB or MB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// safeName keeps the letters, digits, dots and dashes of a host name for a
// file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, s)
}
