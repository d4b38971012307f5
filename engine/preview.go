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
		if hw, err := net.ParseMAC(*in.MAC); err == nil && len(hw) == 6 {
			m := lldp.MAC(hw)
			ri.localMAC = &m
		}
	}
	if in.RemoteValid && in.RemotePeer != nil {
		for _, p := range in.Peers {
			if p.ChassisID+" / "+p.PortID == *in.RemotePeer {
				if hw, err := net.ParseMAC(p.SourceMAC); err == nil && len(hw) == 6 {
					ri.remoteMAC = lldp.MAC(hw)
				}
			}
		}
	} else {
		ri.remote = nil
	}
	return resolve(ri)
}
