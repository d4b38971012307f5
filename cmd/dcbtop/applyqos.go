// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop apply's host QoS fields (--trust, --dscp, --dscp-delete,
// --pfc-delay, --buffer, --maxrate, --dcbx-mode, --pfc-storm-timeout,
// --rewr-dscp, --rewr-dscp-delete, --roce-tos): checked and previewed
// against the
// interface as it is now (qos.PreviewOf: the RoCE path, the
// diagnostics and dcbtop check judged again), then written through DCB
// netlink and configfs and read back (kernel.ApplyQoS), with the command
// that undoes it.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// trustValue is --trust: selector names, most trusted first.
type trustValue struct{ c *qos.Change }

func (v trustValue) String() string { return "" }
func (v trustValue) Set(s string) error {
	v.c.Trust = strings.Split(s, ",")
	return nil
}

// dscpValue is --dscp: DSCP=PRIORITY pairs, comma-separated.
type dscpValue struct{ c *qos.Change }

func (v dscpValue) String() string { return "" }
func (v dscpValue) Set(s string) error {
	for _, pair := range strings.Split(s, ",") {
		d, p, ok := strings.Cut(pair, "=")
		dv, err1 := strconv.ParseUint(d, 10, 8)
		pv, err2 := strconv.ParseUint(p, 10, 8)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("%q: want DSCP=PRIORITY, e.g. 26=3", pair)
		}
		v.c.DSCP = append(v.c.DSCP, qos.DSCPPriority{DSCP: uint8(dv), Priority: uint8(pv)})
	}
	return nil
}

// dscpDeleteValue is --dscp-delete: DSCP values, comma-separated.
type dscpDeleteValue struct{ c *qos.Change }

func (v dscpDeleteValue) String() string { return "" }
func (v dscpDeleteValue) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		d, err := strconv.ParseUint(x, 10, 8)
		if err != nil {
			return fmt.Errorf("%q: want a DSCP value 0-63", x)
		}
		v.c.DSCPDelete = append(v.c.DSCPDelete, uint8(d))
	}
	return nil
}

// pfcDelayValue is --pfc-delay: struct ieee_pfc's delay (bits; the cable
// length in metres on mlx5).
type pfcDelayValue struct{ c *qos.Change }

func (v pfcDelayValue) String() string { return "" }
func (v pfcDelayValue) Set(s string) error {
	d, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return fmt.Errorf("%q: want 0-65535", s)
	}
	x := uint16(d)
	v.c.PFCDelay = &x
	return nil
}

// bufferValue is --buffer: eight priority→buffer numbers, a colon, then
// up to eight buffer sizes in bytes ("0,0,0,1,0,0,0,0:131072,131072").
type bufferValue struct{ c *qos.Change }

func (v bufferValue) String() string { return "" }
func (v bufferValue) Set(s string) error {
	prios, sizes, ok := strings.Cut(s, ":")
	ps, ss := strings.Split(prios, ","), strings.Split(sizes, ",")
	if !ok || len(ps) != 8 || len(ss) == 0 || len(ss) > 8 {
		return fmt.Errorf("%q: want 8 priority→buffer numbers, a colon, then the buffers' sizes in bytes (0,0,0,1,0,0,0,0:131072,131072)", s)
	}
	var b lossless.PortBuffer
	for i, x := range ps {
		n, err := strconv.ParseUint(x, 10, 8)
		if err != nil {
			return fmt.Errorf("%q: buffer of priority %d: %q is not a number", s, i, x)
		}
		b.PrioBuffer[i] = uint8(n)
	}
	for i, x := range ss {
		n, err := strconv.ParseUint(x, 10, 32)
		if err != nil {
			return fmt.Errorf("%q: size of buffer %d: %q is not a number of bytes", s, i, x)
		}
		b.SizeBytes[i] = uint32(n)
	}
	v.c.Buffer = &b
	return nil
}

// maxRateValue is --maxrate: TC:RATE pairs (qos.ParseMaxRate), each
// replacing its TC's rate limit.
type maxRateValue struct{ c *qos.Change }

func (v maxRateValue) String() string { return "" }
func (v maxRateValue) Set(s string) error {
	rates, err := qos.ParseMaxRate(s)
	if err != nil {
		return err
	}
	v.c.MaxRate = append(v.c.MaxRate, rates...)
	return nil
}

// dcbxModeValue is --dcbx-mode: host or lld-managed, optionally with
// ,ieee or ,cee (qos.ParseDCBXMode).
type dcbxModeValue struct{ c *qos.Change }

func (v dcbxModeValue) String() string { return "" }
func (v dcbxModeValue) Set(s string) error {
	m, err := qos.ParseDCBXMode(s)
	if err != nil {
		return err
	}
	v.c.DCBXMode = &m
	return nil
}

// stormTimeoutValue is --pfc-storm-timeout: ms, off or auto
// (qos.ParseStormTimeout).
type stormTimeoutValue struct{ c *qos.Change }

func (v stormTimeoutValue) String() string { return "" }
func (v stormTimeoutValue) Set(s string) error {
	ms, err := qos.ParseStormTimeout(s)
	if err != nil {
		return err
	}
	v.c.PFCStormTimeout = &ms
	return nil
}

// rewrDSCPValue is --rewr-dscp: PRIO:DSCP pairs (qos.ParsePrioDSCP).
type rewrDSCPValue struct{ c *qos.Change }

func (v rewrDSCPValue) String() string { return "" }
func (v rewrDSCPValue) Set(s string) error {
	rs, err := qos.ParsePrioDSCP(s)
	if err != nil {
		return err
	}
	v.c.RewriteDSCP = append(v.c.RewriteDSCP, rs...)
	return nil
}

// rewrDSCPDeleteValue is --rewr-dscp-delete: priorities, comma-separated.
type rewrDSCPDeleteValue struct{ c *qos.Change }

func (v rewrDSCPDeleteValue) String() string { return "" }
func (v rewrDSCPDeleteValue) Set(s string) error {
	ps, err := qos.ParsePriorities(s)
	if err != nil {
		return err
	}
	v.c.RewriteDSCPDelete = append(v.c.RewriteDSCPDelete, ps...)
	return nil
}

// roceToSValue is --roce-tos: DEV/PORT=TOS.
type roceToSValue struct{ c *qos.Change }

func (v roceToSValue) String() string { return "" }
func (v roceToSValue) Set(s string) error {
	where, tos, ok := strings.Cut(s, "=")
	dev, port, ok2 := strings.Cut(where, "/")
	p, err1 := strconv.Atoi(port)
	t, err2 := strconv.ParseUint(tos, 10, 8)
	if !ok || !ok2 || dev == "" || err1 != nil || err2 != nil {
		return fmt.Errorf("%q: want DEVICE/PORT=TOS, e.g. mlx5_0/1=106 (DSCP 26, ECT(0))", s)
	}
	v.c.RoCEToS = append(v.c.RoCEToS, qos.RoCEToSChange{Device: dev, Port: p, ToS: uint8(t)})
	return nil
}

// qosEngine returns an engine holding iface as it is now: its link, its
// DCB state (DCB netlink) and one counters sample (the NIC's
// classification and buffers, its RDMA ports and their rdma_cm ToS),
// which a preview is judged from.
func qosEngine(iface string) (*engine.Engine, error) {
	l, err := capture.LinkByName(iface)
	if err != nil {
		return nil, err
	}
	root, err := sysfsRoot()
	if err != nil {
		return nil, err
	}
	eth, err := ethtoolRoot()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	e := engine.New(engine.Config{Judge: check.Judge, NameFixes: qos.NameFixes})
	e.Apply(engine.HostObserved{At: now, NetAdmin: capture.NetAdmin()})
	e.Apply(engine.LinkChanged{Interface: iface, At: now, Ifindex: l.Index, MAC: lldp.MAC(l.MAC), Up: l.Up})
	if ev, ok := kernel.NewWriter(nil, nil).Read(iface, now); ok {
		e.Apply(ev)
	}
	s := counters.Open(root, eth, nil, counters.Dialers{})
	defer s.Close()
	e.Apply(s.Sample(iface, now, time.Second))
	return e, nil
}

// applyQoS previews o.qos on o.iface, then (unless --dry-run) writes it
// and prints what was read back and how to undo it.
func applyQoS(o *applyOptions, env Env) error {
	e, err := qosEngine(o.iface)
	if err != nil {
		return fmt.Errorf("%s: %w", o.iface, err)
	}
	pv, err := qos.PreviewOf(e, o.iface, o.qos)
	if err != nil {
		return fmt.Errorf("%s: not applied: %w", o.iface, err)
	}
	if len(o.qos.DSCP)+len(o.qos.DSCPDelete) > 0 && pv.Before.LocalSource == engine.SourceAgent {
		return fmt.Errorf("%s: not applied: dcbtop's agent runs here and programs the APP table with what it advertises: give the DSCP entries in a PARAMS file's app (dcbtop apply -i %s FILE)", o.iface, o.iface)
	}
	if m := o.qos.DCBXMode; m != nil && m.Firmware() && pv.Before.LocalSource == engine.SourceAgent {
		return fmt.Errorf("%s: not applied: dcbtop's agent runs DCBX here: stop it before handing DCBX to the NIC firmware (--dcbx-mode lld-managed)", o.iface)
	}
	say := func(format string, a ...any) {
		fmt.Fprintf(env.Stdout, "%s: "+format+"\n", append([]any{o.iface}, a...)...)
	}
	for _, l := range pv.Lines {
		say("%s", l)
	}
	changes := append(pv.Changes(), check.Changes(&pv.Before, &pv.After, check.Options{})...)
	if len(changes) == 0 {
		say("after it: no verdict changes")
	}
	for _, c := range changes {
		say("after it: %s", c)
	}
	if o.dryRun {
		say("dry run: nothing written")
		return nil
	}
	root, _ := sysfsRoot()
	if root == "" {
		root = "/sys"
	}
	res, err := kernel.NewWriter(nil, rdma.DirWriter(root)).ApplyQoS(o.iface, o.qos)
	if err != nil {
		return fmt.Errorf("%s: %w", o.iface, err)
	}
	for _, n := range res.Notes {
		say("note: %s", n)
	}
	if undo, notes := res.Undo(o.qos); !undo.Empty() && len(res.Written) > 0 {
		say("to undo: dcbtop apply -i %s %s", o.iface, strings.Join(undo.Args(), " "))
		for _, n := range notes {
			say("undo: %s", n)
		}
	}
	if res.Err != nil {
		return fmt.Errorf("%s: %w", o.iface, res.Err)
	}
	say("%s", res.String())
	return nil
}

// errQoSWithAgentParams refuses PARAMS or --willing together with QoS
// fields: one is DCBX (the agent's or the kernel's), the other the host's
// classification; given alone each is previewed and undone on its own.
var errQoSWithAgentParams = errors.New("give the QoS fields (" + qosFlagList + ") without a PARAMS file or --willing: apply them in two commands")

// qosFlagList names the host QoS flags, for the errors that list them.
const qosFlagList = "--trust, --dscp, --dscp-delete, --pfc-delay, --buffer, --maxrate, --dcbx-mode, --pfc-storm-timeout, --rewr-dscp, --rewr-dscp-delete, --roce-tos"
