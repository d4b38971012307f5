// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package counters

import (
	"fmt"
	"runtime"
)

// OpenEthtool returns the system's Ethtool; there is none outside Linux.
func OpenEthtool() (EthtoolCloser, error) {
	return nil, fmt.Errorf("counters: ethtool is not implemented on %s", runtime.GOOS)
}
