// SPDX-License-Identifier: Apache-2.0

package counters

import "github.com/safchain/ethtool"

// OpenEthtool returns the system's Ethtool: github.com/safchain/ethtool
// over an AF_INET socket of the calling thread's network namespace. Close
// it when done.
func OpenEthtool() (EthtoolCloser, error) {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return nil, err
	}
	return e, nil
}
