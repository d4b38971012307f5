package cli

import (
	"context"
	"errors"
	"time"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// dcbPollEvery is how often local parameters are re-read from the kernel:
// an RTNLGRP_DCB notification is only a hint (mlx5 sends none).
const dcbPollEvery = 10 * time.Second

// paramsFromIEEE maps what DCB_CMD_IEEE_GET reports into PARAMS: ETS from
// struct ieee_ets (tc_tx_bw as the bandwidth; the recommendation fields
// when the driver fills any), PFC from struct ieee_pfc, and the IEEE
// entries (selectors 1-5) of the kernel's APP table. ieee_pfc has no
// Willing bit: PFC willing is reported as the ETS one, the port's only
// Willing state in dcbnl. The APP table can include entries an agent
// learned from the peer (dcbx-reference.md §7.12).
func paramsFromIEEE(in *dcbnl.IEEE) (p *engine.Params, willing bool) {
	p = &engine.Params{}
	if e := in.ETS; e != nil {
		willing = e.Willing
		maxTCs := e.ETSCap
		if maxTCs == 0 || maxTCs > 8 {
			maxTCs = 8
		}
		p.ETS = &engine.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: maxTCs, PrioTC: e.PrioTC, TCBandwidth: e.TCTxBW, TSA: tsas(e.TCTSA)}
		if e.TCRecoBW != ([8]uint8{}) || e.RecoPrioTC != ([8]uint8{}) || e.TCRecoTSA != ([8]uint8{}) {
			p.ETSReco = &engine.ETSReco{PrioTC: e.RecoPrioTC, TCBandwidth: e.TCRecoBW, TSA: tsas(e.TCRecoTSA)}
		}
	}
	if f := in.PFC; f != nil {
		p.PFC = &engine.PFC{Willing: willing, MBC: f.MBC != 0, Cap: f.Cap, Enabled: engine.PrioSet(f.Enabled)}
	}
	for _, a := range in.App {
		if isIEEEApp(a) {
			p.App = append(p.App, engine.App{Selector: lldp.AppSelector(a.Selector), Protocol: a.Protocol, Priority: a.Priority})
		}
	}
	return p, willing
}

func tsas(b [8]uint8) (t [8]lldp.TSA) {
	for i, v := range b {
		t[i] = lldp.TSA(v)
	}
	return t
}

// dcbLocal reads an interface's local parameters and DCBX mode from the
// kernel. ok is false when the device has no dcbnl support (veth, virtio,
// bonds...), in which case another local source applies.
func dcbLocal(c dcbClient, ifname string, now time.Time) (engine.LocalChanged, bool) {
	ieee, err := c.IEEE(ifname)
	if err != nil {
		return engine.LocalChanged{}, false
	}
	p, willing := paramsFromIEEE(ieee)
	ev := engine.LocalChanged{Interface: ifname, At: now, Source: engine.SourceDCBNL, Willing: willing, Params: p}
	mode := ieee.DCBX
	if mode == nil {
		if m, err := c.DCBX(ifname); err == nil {
			mode = &m
		}
	}
	if mode != nil {
		ev.Mode, ev.FirmwareManaged = mode.String(), mode.LLDManaged()
	}
	return ev, true
}

// startDCB reads the local parameters of the interfaces from DCB netlink
// now, then again on every RTNLGRP_DCB notification for them and every
// dcbPollEvery, feeding the engine through events. Where dcbtop's agent
// runs, the engine goroutine keeps the reading aside for when the agent
// stops (liveRun.apply). It returns a stop function; without DCB netlink
// (no socket) it does nothing.
func (r *liveRun) startDCB(ifaces []*liveIface) (stop func()) {
	var names []string
	for _, li := range ifaces {
		names = append(names, li.name)
	}
	if len(names) == 0 {
		return func() {}
	}
	c, err := dcbnl.Dial()
	if err != nil {
		return func() {}
	}
	now := r.now()
	var dcb []string
	for _, n := range names {
		if ev, ok := dcbLocal(c, n, now); ok {
			r.apply(ev)
			dcb = append(dcb, n)
		}
	}
	if len(dcb) == 0 {
		c.Close()
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	kick := make(chan struct{}, 1)
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		for ctx.Err() == nil {
			err := c.Watch(ctx, func(n dcbnl.Notification) {
				select {
				case kick <- struct{}{}:
				default:
				}
			})
			if err == nil || errors.Is(err, context.Canceled) {
				return
			}
			select { // a failed watch: fall back on polling, retry later
			case <-ctx.Done():
			case <-time.After(dcbPollEvery):
			}
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		t := time.NewTicker(dcbPollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-kick:
			}
			now := r.now()
			for _, n := range dcb {
				ev, ok := dcbLocal(c, n, now)
				if !ok {
					continue
				}
				select {
				case r.events <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
		<-done
		c.Close()
	}
}
