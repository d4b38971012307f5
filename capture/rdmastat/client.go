// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A Client reads RDMA port statistics over a NETLINK_RDMA socket. Its
// methods may be called from several goroutines; requests are serialised.
type Client struct{ c *client }

// Dial opens a Client on a NETLINK_RDMA socket in the network namespace of
// the calling thread. Without the RDMA subsystem (ib_core not loaded) it
// fails with an *Error matching ErrNoRDMA; a host with ib_core but no RDMA
// device dials fine and has an empty Devices list. Reading needs no
// privilege.
func Dial() (*Client, error) { return dial(nil) }

// SetRecorder makes r the recorder of every exchange of the Client's
// requests (a Client of NewClient recorded, capture/tape). Call it before
// the Client is used.
func (c *Client) SetRecorder(r nlclient.Recorder) { c.c.setRecorder(r) }

// DialRecorded is Dial, rec told of every exchange of the Client's
// requests, its first included (dcbtop -w, capture/tape).
func DialRecorded(rec nlclient.Recorder) (*Client, error) { return dial(rec) }

// NewClient returns a Client that sends its requests on conn, typically a
// fake from nltest.Dial. Closing the Client closes conn.
func NewClient(conn *netlink.Conn) *Client { return &Client{newClient(conn)} }

// Close closes the Client's socket.
func (c *Client) Close() error { return c.c.close() }

// Devices lists the RDMA devices of the kernel with RDMA_NLDEV_CMD_GET,
// sorted by name, and refreshes the Client's map of device names to
// indexes. A host without RDMA devices gives an empty list and no error.
func (c *Client) Devices() ([]Device, error) { return c.c.devices() }

// Port reads the hardware counters of port (numbered from 1) of the RDMA
// device named device, as `rdma statistic show link DEV/PORT` and
// `rdma statistic mode supported link DEV/PORT` do:
// RDMA_NLDEV_CMD_STAT_GET for the values, then
// RDMA_NLDEV_CMD_STAT_GET_STATUS for which counters are optional and
// enabled. The device's index comes from a RDMA_NLDEV_CMD_GET dump that
// the Client keeps, and dumps again when the name is not in it or the
// kernel no longer knows the index.
//
// A kernel that refuses STAT_GET_STATUS is not an error: the Port then has
// StatusKnown false and StatusWhy set. Errors are *Error; an unknown
// device or port matches os.ErrNotExist.
func (c *Client) Port(device string, port int) (Port, error) { return c.c.port(device, port) }
