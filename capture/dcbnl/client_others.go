// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package dcbnl

import (
	"context"
	"fmt"
	"github.com/dcbtop/dcbtop/capture/nlclient"
	"runtime"

	"github.com/mdlayher/netlink"
)

// errUnimplemented is returned by every Client method on systems other than
// Linux.
var errUnimplemented = fmt.Errorf("dcbnl: not implemented on %s", runtime.GOOS)

// A client is the stub of Client on systems without dcbnl: every method
// returns an error saying so.
type client struct{}

func dial(nlclient.Recorder, bool) (*Client, error)                     { return nil, errUnimplemented }
func newClient(*netlink.Conn) *client                                   { return &client{} }
func (*client) close() error                                            { return errUnimplemented }
func (*client) ieee(string) (*IEEE, error)                              { return nil, errUnimplemented }
func (*client) setIEEE(string, *IEEESet) error                          { return errUnimplemented }
func (*client) delApps(string, uint16, []App) error                     { return errUnimplemented }
func (*client) dcbx(string) (Mode, error)                               { return 0, errUnimplemented }
func (*client) setDCBX(string, Mode) error                              { return errUnimplemented }
func (*client) cee(string) (*CEE, error)                                { return nil, errUnimplemented }
func (*client) watch(context.Context, func(), func(Notification)) error { return errUnimplemented }

func (*client) setRecorder(nlclient.Recorder) {}
