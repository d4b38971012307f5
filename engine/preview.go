package engine

// PreviewOperational returns the operational parameters and their
// resolution that in would have with the given local Willing state and
// local parameters (nil: the current ones), all else unchanged. It is pure
// and works on a Snapshot's Interface, so a UI can show what a change would
// do before it is made.
func PreviewOperational(in Interface, willing bool, local *Params) (*Params, Resolution) {
	if local == nil {
		local = in.Local
	}
	ri := resolveInput{local: local, willing: willing, remote: in.Remote, dialect: in.Dialect}
	if in.MAC != nil {
		m := *in.MAC
		ri.localMAC = &m
	}
	if p := in.PeerInForce(); in.RemoteValid && p != nil {
		ri.remoteMAC = p.SourceMAC
	} else if !in.RemoteValid || in.RemotePeer == nil {
		ri.remote = nil
	}
	return resolve(ri)
}
