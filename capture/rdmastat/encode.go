// SPDX-License-Identifier: Apache-2.0

package rdmastat

import "github.com/mdlayher/netlink"

// The requests, as iproute2's rdma tool sends them (rdma/rdma.c rd_init for
// the device dump; rdma/stat.c stat_show_one_link and
// stat_one_link_get_status_req for the two statistics requests), except
// that NLM_F_ACK is never set: rdma_nl_rcv_skb acknowledges a successful
// doit with a second message after the reply, which a request/reply
// exchange would have to drain. RDMA netlink has no family header: the
// attributes follow the netlink header.

// devicesRequest is the RDMA_NLDEV_CMD_GET dump: NLM_F_REQUEST|NLM_F_DUMP
// and no attributes (nldev_get_dumpit reads none).
func devicesRequest() netlink.Message {
	return netlink.Message{Header: netlink.Header{Type: typeGet, Flags: netlink.Request | netlink.Dump}}
}

// portRequest is a STAT_GET or STAT_GET_STATUS request (typ) for port of
// the device of index dev: NLM_F_REQUEST, RDMA_NLDEV_ATTR_DEV_INDEX and
// RDMA_NLDEV_ATTR_PORT_INDEX, both u32 in host byte order. Without
// RDMA_NLDEV_ATTR_STAT_RES, nldev_stat_get_doit answers STAT_GET with the
// port's default (hardware) counters.
func portRequest(typ netlink.HeaderType, dev, port uint32) (netlink.Message, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(RDMA_NLDEV_ATTR_DEV_INDEX, dev)
	ae.Uint32(RDMA_NLDEV_ATTR_PORT_INDEX, port)
	b, err := ae.Encode()
	if err != nil {
		return netlink.Message{}, err
	}
	return netlink.Message{Header: netlink.Header{Type: typ, Flags: netlink.Request}, Data: b}, nil
}
