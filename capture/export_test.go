// SPDX-License-Identifier: Apache-2.0

package capture

import "time"

// This file exports internals to the tests of package capture_test on
// every platform.

// RecordFrame returns the Frame a Replay makes of record, the first record
// of a file of link type linkType, captured at at on interface "pcap0",
// without direction flags.
func RecordFrame(linkType uint32, record []byte, at time.Time) (Frame, error) {
	r := &Replay{record: 1}
	return r.frame(24, linkType, record, at, pcapInterface, DirectionUnknown)
}
