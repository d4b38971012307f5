// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"github.com/safchain/ethtool"

	"github.com/dcbtop/dcbtop/capture/tunable"
)

// OpenEthtool returns the system's Ethtool: github.com/safchain/ethtool
// over an AF_INET socket of the calling thread's network namespace, and
// capture/tunable over another for the PFC storm prevention timeout (a
// StormTimeoutReader). Close it when done.
func OpenEthtool() (EthtoolCloser, error) {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return nil, err
	}
	t, err := tunable.Open()
	if err != nil {
		e.Close()
		return nil, err
	}
	return systemEthtool{e, t}, nil
}

// systemEthtool is the system's Ethtool with its tunables.
type systemEthtool struct {
	*ethtool.Ethtool
	tun *tunable.Client
}

// PFCStormTimeout reads the driver's ETHTOOL_PFC_PREVENTION_TOUT.
func (e systemEthtool) PFCStormTimeout(ifname string) (uint16, error) {
	return e.tun.PFCStormTimeout(ifname)
}

// Close closes both sockets.
func (e systemEthtool) Close() {
	e.Ethtool.Close()
	e.tun.Close()
}
