// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package capture

import "context"

func interfaces() ([]Link, error) { return nil, unimplementedError{} }

func watchLinks(context.Context, chan<- LinkEvent) error { return unimplementedError{} }
func linkByName(string) (Link, error)                    { return Link{}, unimplementedError{} }
