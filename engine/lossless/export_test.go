// SPDX-License-Identifier: Apache-2.0

package lossless

// SameRoCE is sameRoCE, for the external tests.
var SameRoCE = sameRoCE
