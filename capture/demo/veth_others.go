// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package demo

import (
	"context"
	"errors"
)

var errNotLinux = errors.New("demo: the kernel demo link (network namespace and veth pair) needs Linux; use the in-memory link")

// A VethLink is the kernel-mode demo link; it exists on Linux only.
type VethLink struct{}

// NewVethLink fails: network namespaces and veth pairs are Linux only.
func NewVethLink(cfg VethConfig) (*VethLink, error) { return nil, errNotLinux }

// HostIf returns "".
func (v *VethLink) HostIf() string { return "" }

// ReadFrame fails.
func (v *VethLink) ReadFrame(ctx context.Context) ([]byte, error) { return nil, errNotLinux }

// WriteFrame fails.
func (v *VethLink) WriteFrame(b []byte) error { return errNotLinux }

// Cleanup does nothing.
func (v *VethLink) Cleanup() error { return nil }

// Leftovers finds nothing: older demos left things behind on Linux only.
func Leftovers() []Leftover { return nil }
