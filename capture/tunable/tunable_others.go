// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package tunable

import "syscall"

// A Client does nothing off Linux: every interface has no tunable.
type Client struct{}

// Open returns a Client.
func Open() (*Client, error) { return &Client{}, nil }

// Close does nothing.
func (c *Client) Close() {}

// PFCStormTimeout answers EOPNOTSUPP.
func (c *Client) PFCStormTimeout(ifname string) (uint16, error) {
	return 0, &Error{Op: "ETHTOOL_GTUNABLE", Ifname: ifname, Err: syscall.EOPNOTSUPP}
}

// SetPFCStormTimeout answers EOPNOTSUPP.
func (c *Client) SetPFCStormTimeout(ifname string, ms uint16) error {
	return &Error{Op: "ETHTOOL_STUNABLE", Ifname: ifname, Err: syscall.EOPNOTSUPP}
}
