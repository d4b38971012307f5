// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package main

// nonblock: there are no FIFOs to release elsewhere.
const nonblock = 0
