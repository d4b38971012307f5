// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"encoding/binary"

	"github.com/dcbtop/dcbtop/capture"
)

// Linux cooked captures (LINKTYPE_LINUX_SLL and _SLL2, tcpdump -i any):
// each record made an Ethernet frame again, its direction from the
// packet type.

// cookedToEthernet builds the Ethernet frame of a Linux cooked capture
// record of packet type pktType: a destination the record does not carry,
// assumed by assumedDst, the source addr if it is 6 bytes long (zero
// otherwise), then the protocol as EtherType and the payload. Protocols
// below 0x0600 are Linux pseudo-protocols (ETH_P_802_2 and the like) for
// payloads that start with an 802.2 LLC header, which get an 802.3 length
// field (capped at 1500) instead.
func cookedToEthernet(pktType uint16, addr []byte, addrLen int, proto uint16, payload []byte) []byte {
	b := make([]byte, 14+len(payload))
	dst := assumedDst(pktType, proto, payload)
	copy(b[0:6], dst[:])
	if addrLen == 6 {
		copy(b[6:12], addr)
	}
	if proto < 0x0600 {
		proto = uint16(min(len(payload), 1500))
	}
	binary.BigEndian.PutUint16(b[12:14], proto)
	copy(b[14:], payload)
	return b
}

// assumedDst returns the destination address of a Linux cooked capture
// record of packet type pktType and protocol proto, which the record does
// not carry: nearestBridge for an LLDP frame sent by this host
// (PACKET_OUTGOING) or received for a multicast group (PACKET_MULTICAST),
// else 00:00:00:00:00:00 for "unknown".
//
// An LLDPDU is always sent to one of the three LLDP group addresses (IEEE
// Std 802.1AB-2016, Table 7-1), all multicast, so a received one is
// PACKET_MULTICAST unless its destination was none of them: PACKET_HOST
// (this interface's unicast address), PACKET_BROADCAST and PACKET_OTHERHOST
// say it was not an LLDP group, and the packet types above
// PACKET_OUTGOING (loopback, user, kernel) are not frames off a link. Of
// the three groups, the nearest bridge's is the one lldpd and lldpad send
// to by default and the only one that carries DCBX; the record cannot
// tell it from the other two, hence the Frame's DstAssumed.
func assumedDst(pktType, proto uint16, payload []byte) [6]byte {
	if (pktType == packetMulticast || pktType == packetOutgoing) && cookedLLDP(proto, payload) {
		return nearestBridge
	}
	return [6]byte{}
}

// cookedLLDP reports whether a Linux cooked record of protocol proto and
// the payload carries LLDP: proto is the LLDP EtherType, or that of an
// 802.1Q or 802.1ad tag and the EtherType after at most maxCookedVLANs tags
// is LLDP's. (In LINKTYPE_LINUX_SLL records, libpcap puts back the tag the
// kernel took off a received frame, as the record's protocol.)
func cookedLLDP(proto uint16, payload []byte) bool {
	for tags := 0; proto != etherTypeLLDP; tags++ {
		if (proto != etherTypeVLAN && proto != etherTypeQinQ) || tags == maxCookedVLANs || len(payload) < 4*tags+4 {
			return false
		}
		proto = binary.BigEndian.Uint16(payload[4*tags+2:])
	}
	return true
}

// cookedDirection maps a Linux cooked capture packet type to a Direction:
// PACKET_OUTGOING is outgoing, everything else (to us, broadcast,
// multicast, to another host) incoming.
func cookedDirection(pktType uint16) capture.Direction {
	if pktType == packetOutgoing {
		return capture.DirectionOutgoing
	}
	return capture.DirectionIncoming
}
