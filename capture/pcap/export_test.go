// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"time"

	"github.com/dcbtop/dcbtop/capture"
)

// This file exports internals to the tests of package pcap_test on
// every platform.

// RecordFrame returns the capture.Frame a Reader makes of record, the first record
// of a file of link type linkType, captured at at on interface "pcap0",
// without direction flags.
func RecordFrame(linkType uint32, record []byte, at time.Time) (capture.Frame, error) {
	r := &Reader{record: 1}
	return r.frame(24, linkType, record, at, pcapInterface, capture.DirectionUnknown)
}
