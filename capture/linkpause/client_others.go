// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package linkpause

import (
	"fmt"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"runtime"

	"github.com/mdlayher/netlink"
)

var errUnimplemented = fmt.Errorf("linkpause: ethtool pause settings are not implemented on %s", runtime.GOOS)

// A client is the stub of Client on systems without ethtool: every method
// returns an error saying so.
type client struct{}

func dial(nlclient.Recorder) (*Client, error) { return nil, errUnimplemented }
func newClient(*netlink.Conn) *client         { return &client{} }
func (*client) close() error                  { return errUnimplemented }
func (*client) get(string) (*Pause, error)    { return nil, errUnimplemented }

func (*client) setRecorder(nlclient.Recorder) {}
