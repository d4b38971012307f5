// SPDX-License-Identifier: Apache-2.0

package session

import (
	"time"

	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// runEffects carries out a host result's effects, in order: the one place
// where what the host layer asks of the system is done. LLDPDUs are sent
// and control sockets released at once; a write to the kernel (an agent
// programming its NIC, an operator's write, a host QoS write) runs off
// the engine goroutine (a PFC write resets the link on mlx5, and a driver
// may be slow) through the run's kernel.Writer, and its result is handed
// back to the host layer on the engine goroutine, so that the host learns
// of every write. An operator's write waiting for its answer (Write,
// WriteQoS) has left its channel in r.answer: the first write effect
// takes it.
func (r *liveRun) runEffects(effects []host.Effect, now time.Time) {
	for _, e := range effects {
		switch e := e.(type) {
		case host.Transmit:
			if li := r.byName[e.Interface]; li != nil {
				r.send(li, e.Frame, now)
			}
		case host.Release:
			if li := r.byName[e.Interface]; li != nil {
				li.seat.Close()
				li.seat = nil
			}
		case host.ProgramNIC:
			// The Willing bit is left alone: what is advertised is the
			// agent's.
			r.offLoop(nil, func() written { return written{kernel: r.writeKernel(e.Interface, e.Params, nil)} },
				func(w written) host.Result { return r.h.NICProgrammed(e, w.kernel, r.now()) })
		case host.WriteKernel:
			r.offLoop(r.takeAnswer(), func() written { return written{kernel: r.writeKernel(e.Interface, e.Params, e.Willing)} },
				func(w written) host.Result { return r.h.KernelWritten(e, w.kernel, r.now()) })
		case host.Keep:
			if li := r.byName[e.Interface]; li != nil {
				r.keep(li, e.State, now)
			}
		case host.WriteQoS:
			r.offLoop(r.takeAnswer(), func() written { return written{qos: r.writeQoS(e.Interface, e.Change)} },
				func(w written) host.Result { return r.h.QoSWritten(e, w.qos, r.now()) })
		}
	}
}

// written is what a write to the kernel did: the typed result of a DCBX
// write (kernel) or of a host QoS write (qos).
type written struct {
	kernel engine.WriteResult
	qos    qos.WriteResult
}

// takeAnswer returns the channel an operator's write waits on, once.
func (r *liveRun) takeAnswer() chan<- written {
	a := r.answer
	r.answer = nil
	return a
}

// offLoop runs write off the engine goroutine, hands its result to the
// host layer (report, on the engine goroutine) and then to ans, if any.
// The host asks for one write at a time per interface; the Writer holds
// each interface's lock besides.
func (r *liveRun) offLoop(ans chan<- written, write func() written, report func(written) host.Result) {
	r.writes.Go(func() {
		w := write()
		_ = r.do(func() { r.carryOut(report(w), false) })
		if ans != nil {
			ans <- w
		}
	})
}

// newWriter returns the run's kernel writer (built once, with the run:
// the write goroutines share it): DCB netlink on a request socket of each
// write's own (not the -w recorder's: a write is no reading round),
// rdma_cm's configfs under the sysfs root or the simulated NIC's.
func newWriter(cfg *Config) *kernel.Writer {
	var dial func() (kernel.Client, func(), error)
	if d := cfg.Dialers.DCB; d != nil {
		dial = func() (kernel.Client, func(), error) {
			c, err := d(nil)
			if err != nil {
				return nil, nil, err
			}
			return c, func() { c.Close() }, nil
		}
	}
	fs := cfg.ConfigFS
	if fs == nil {
		root := cfg.SysfsRoot
		if root == "" {
			root = "/sys"
		}
		fs = rdma.DirWriter(root)
	}
	return kernel.NewWriter(dial, fs)
}

// writeKernel writes p and willing to iface's NIC through DCB netlink
// (kernel.Apply: one read, only the features that differ written with
// DCB_CMD_IEEE_SET, one read back) and returns what happened.
func (r *liveRun) writeKernel(iface string, p *dcb.Params, willing *bool) engine.WriteResult {
	res, err := r.kw.Apply(iface, p, willing)
	if err != nil {
		return kernel.Failed(iface, err)
	}
	return res
}

// writeQoS writes a host QoS change on iface (kernel.ApplyQoS: read
// back) and returns what happened.
func (r *liveRun) writeQoS(iface string, c qos.Change) qos.WriteResult {
	res, err := r.kw.ApplyQoS(iface, c)
	if err != nil {
		return kernel.QoSFailed(iface, err)
	}
	return res
}
