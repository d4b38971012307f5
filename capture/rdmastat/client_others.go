// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package rdmastat

import (
	"fmt"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"runtime"

	"github.com/mdlayher/netlink"
)

// errUnimplemented is returned by Dial and every Client method on systems
// other than Linux.
var errUnimplemented = fmt.Errorf("rdmastat: RDMA netlink is not implemented on %s", runtime.GOOS)

// A client is the stub of Client on systems without RDMA netlink.
type client struct{}

func dial(nlclient.Recorder) (*Client, error)  { return nil, errUnimplemented }
func newClient(*netlink.Conn) *client          { return &client{} }
func (*client) close() error                   { return errUnimplemented }
func (*client) devices() ([]Device, error)     { return nil, errUnimplemented }
func (*client) port(string, int) (Port, error) { return Port{}, errUnimplemented }

func (*client) setRecorder(nlclient.Recorder) {}
