// SPDX-License-Identifier: Apache-2.0

package capture_test

import (
	"time"

	"github.com/dcbtop/dcbtop/capture/capturetest"
)

// t0 is the capture time of the first frame of the fixtures.
var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// lldpFrame and lldpPayload are capturetest's minimal LLDP frame of the
// station whose MAC address ends in last, and its LLDPDU.
var (
	lldpFrame   = capturetest.LLDPFrame
	lldpPayload = capturetest.LLDPPayload
)
