package engine

import (
	"net"

	"dcbtop/engine/lldp"
)

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
		if m, ok := parseMAC(*in.MAC); ok {
			ri.localMAC = &m
		}
	}
	if in.RemoteValid && in.RemotePeer != nil {
		for _, p := range in.Peers {
			if p.MSAP() == *in.RemotePeer {
				ri.remoteMAC, _ = parseMAC(p.SourceMAC)
			}
		}
	} else {
		ri.remote = nil
	}
	return resolve(ri)
}

// parseMAC parses a MAC as lldp.MAC.String writes it.
func parseMAC(s string) (lldp.MAC, bool) {
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != len(lldp.MAC{}) {
		return lldp.MAC{}, false
	}
	return lldp.MAC(hw), true
}
