// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package capture

import (
	"context"
	"errors"
	"runtime"
)

// liveSys is the OS-specific part of a Live; there is none here.
type liveSys struct{}

func openLive(string) (*liveSys, error) { return nil, unimplementedError{} }

func (*liveSys) readFrame(context.Context) (Frame, error) { return Frame{}, unimplementedError{} }

func (*liveSys) writeFrame([]byte) error { return unimplementedError{} }

func (*liveSys) stats() (LiveStats, error) { return LiveStats{}, unimplementedError{} }

func (*liveSys) close() error { return unimplementedError{} }

func (*liveSys) pending() bool { return false }

// unimplementedError is the error of the live capture functions on
// operating systems other than Linux. It satisfies
// errors.Is(err, errors.ErrUnsupported).
type unimplementedError struct{}

func (unimplementedError) Error() string {
	return "capture: live capture is not implemented on " + runtime.GOOS
}

func (unimplementedError) Is(target error) bool { return target == errors.ErrUnsupported }
