package engine

import "github.com/dcbtop/dcbtop/engine/dcb"

// PreviewOperational returns the operational parameters and their
// resolution that in would have with the given local Willing state and
// local parameters (nil: the current ones), all else unchanged. It is pure
// and works on a Snapshot's Interface, so a UI can show what a change would
// do before it is made.
func PreviewOperational(in Interface, willing bool, local *dcb.Params) (*dcb.Params, dcb.Resolution) {
	if local == nil {
		local = in.Local
	}
	ri := dcb.ResolveInput{Local: local, Willing: willing, Remote: in.Remote, Dialect: in.Dialect}
	if in.MAC != nil {
		m := *in.MAC
		ri.LocalMAC = &m
	}
	if p := in.PeerInForce(); in.RemoteValid && p != nil {
		ri.RemoteMAC = p.SourceMAC
	} else if !in.RemoteValid || in.RemotePeer == nil {
		ri.Remote = nil
	}
	return dcb.Resolve(ri)
}
