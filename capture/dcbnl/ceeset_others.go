// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package dcbnl

// SetCEEPFC is not implemented on systems other than Linux.
func (c *Client) SetCEEPFC(string, uint8) (uint8, error) { return 0, errUnimplemented }
