// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A Client reads link-wide PAUSE settings and statistics from the kernel's
// ethtool netlink interface (net/ethtool/pause.c) over NETLINK_GENERIC,
// falling back to the ETHTOOL_GPAUSEPARAM ioctl on kernels without it. Its
// methods may be called from several goroutines.
type Client struct{ c *client }

// Dial opens a Client on a NETLINK_GENERIC socket in the network namespace
// of the calling thread, and resolves the "ethtool" family there; when the
// kernel has none, it opens the ioctl's AF_INET socket instead, in the same
// namespace. Interface names are looked up in that namespace. Reading
// needs no privilege.
func Dial() (*Client, error) { return dial(nil) }

// SetRecorder makes r the recorder of every exchange of the Client's
// requests (a Client of NewClient recorded, capture/tape). Call it before
// the Client is used.
func (c *Client) SetRecorder(r nlclient.Recorder) { c.c.setRecorder(r) }

// DialRecorded is Dial, rec told of every exchange of the Client's
// requests, its first included (dcbtop -w, capture/tape).
func DialRecorded(rec nlclient.Recorder) (*Client, error) { return dial(rec) }

// NewClient returns a Client that sends its requests on conn, typically a
// fake from nltest.Dial; the family is resolved on the first Get. Should
// the kernel behind conn have no "ethtool" family, the ioctl's socket is
// opened then, in the network namespace of the calling thread. Closing the
// Client closes conn.
func NewClient(conn *netlink.Conn) *Client { return &Client{newClient(conn)} }

// Close closes the Client's sockets.
func (c *Client) Close() error { return c.c.close() }

// Get reads the link-wide PAUSE settings and PAUSE frame counters of
// ifname with ETHTOOL_MSG_PAUSE_GET and ETHTOOL_FLAG_STATS (`ethtool -I
// -a`). On Linux 5.6 to 5.9, which refuse the flag, it asks again without
// it; on kernels without ethtool netlink it reads the settings with the
// ETHTOOL_GPAUSEPARAM ioctl. A driver without pause operations is not an
// error: the Pause is then Unsupported, with every setting Unknown.
//
// Errors are *Error: see os.ErrNotExist (no such interface),
// os.ErrPermission and ErrMalformed.
func (c *Client) Get(ifname string) (*Pause, error) { return c.c.get(ifname) }
