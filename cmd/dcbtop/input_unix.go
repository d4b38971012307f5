// SPDX-License-Identifier: Apache-2.0

//go:build unix

package main

import "syscall"

// nonblock opens a FIFO for writing without waiting for a reader.
const nonblock = syscall.O_NONBLOCK
