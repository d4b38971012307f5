// SPDX-License-Identifier: Apache-2.0

// Package paramfile reads PARAMS files (docs/agent.md): the local DCB
// parameters an agent starts from (--local FILE), decoded by
// dcb.ParseParams and validated as received TLVs are.
package paramfile

import (
	"errors"
	"fmt"
	"os"

	"github.com/dcbtop/dcbtop/engine/dcb"
)

// Load reads the PARAMS file path. Its errors are one line naming the
// file: one it cannot open, one that does not decode (with the line and
// column), or parameters that are not valid (dcb.Params.Errors: beyond
// what the wire carries, such as more APP entries than one TLV holds).
func Load(path string) (*dcb.Params, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	p, err := dcb.ParseParams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("%s: invalid parameters: %w", path, err)
	}
	return p, nil
}
