// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"github.com/mdlayher/netlink"
)

// Request names of the CEE writes, as errors show them.
const (
	opSState    = "SSTATE"
	opPFCSState = "PFC_SSTATE"
	opPFCSCfg   = "PFC_SCFG"
	opSetAll    = "SET_ALL"
)

// SetCEEPFC programs the CEE PFC configuration of ifname as lldpad does
// for a CEE peer (lldp_dcbx_nl.c: set_hw_state, set_pfc_state,
// set_pfc_cfg, set_hw_all): DCB_CMD_SSTATE on (the driver's DCB state),
// DCB_CMD_PFC_SSTATE on, DCB_CMD_PFC_SCFG with one u8 per priority
// (DCB_PFC_UP_ATTR_0..7: 1 on, 0 off; mlx5e_dcbnl_setpfccfg takes no
// other value), then DCB_CMD_SET_ALL, which commits (net/dcb/dcbnl.c
// dcbnl_setall, followed by a CEE notification). It returns SET_ALL's
// status, which is not an error: 0 changed with a reset, 1 nothing
// changed, 2 changed without a reset (ixgbe_dcb_nl.c, mlx4 en_dcb_nl.c,
// DCB_HW_CHG_RST, DCB_NO_HW_CHG, DCB_HW_CHG); what the NIC holds is to be
// read back. A driver without the CEE ops answers EOPNOTSUPP (an *Error
// whose Err is unix.EOPNOTSUPP).
func (c *Client) SetCEEPFC(ifname string, enabled uint8) (uint8, error) {
	u8 := func(op string, cmd uint8, attr uint16, v uint8, name string) error {
		return c.c.set(op, ifname, cmd, func() ([]byte, error) {
			return request(cmd, ifname, func(ae *netlink.AttributeEncoder) { ae.Uint8(attr, v) })
		}, attr, name)
	}
	if err := u8(opSState, DCB_CMD_SSTATE, DCB_ATTR_STATE, 1, "DCB_ATTR_STATE"); err != nil {
		return 0, err
	}
	if err := u8(opPFCSState, DCB_CMD_PFC_SSTATE, DCB_ATTR_PFC_STATE, 1, "DCB_ATTR_PFC_STATE"); err != nil {
		return 0, err
	}
	err := c.c.set(opPFCSCfg, ifname, DCB_CMD_PFC_SCFG, func() ([]byte, error) { return pfcCfgRequest(ifname, enabled) },
		DCB_ATTR_PFC_CFG, "DCB_ATTR_PFC_CFG")
	if err != nil {
		return 0, err
	}
	return c.c.setAll(ifname)
}

// pfcCfgRequest returns the payload of DCB_CMD_PFC_SCFG: DCB_ATTR_PFC_CFG
// holding DCB_PFC_UP_ATTR_0..7, 1 for the priorities in enabled.
func pfcCfgRequest(ifname string, enabled uint8) ([]byte, error) {
	return request(DCB_CMD_PFC_SCFG, ifname, func(ae *netlink.AttributeEncoder) {
		ae.Nested(DCB_ATTR_PFC_CFG, func(nae *netlink.AttributeEncoder) error {
			for prio := range uint16(8) {
				nae.Uint8(DCB_PFC_UP_ATTR_0+prio, enabled>>prio&1)
			}
			return nil
		})
	})
}

// setAll sends DCB_CMD_SET_ALL and returns the driver's status.
func (c *client) setAll(ifname string) (uint8, error) {
	if err := checkIfname(opSetAll, ifname); err != nil {
		return 0, err
	}
	req, err := request(DCB_CMD_SET_ALL, ifname, func(ae *netlink.AttributeEncoder) { ae.Uint8(DCB_ATTR_SET_ALL, 1) })
	if err != nil {
		return 0, &Error{Op: opSetAll, Ifname: ifname, Err: err}
	}
	attrs, err := c.execute(opSetAll, ifname, RTM_SETDCB, DCB_CMD_SET_ALL, req)
	if err != nil {
		return 0, err
	}
	v, err := decodeStatus(attrs, DCB_ATTR_SET_ALL, "DCB_ATTR_SET_ALL")
	if err != nil {
		return 0, &Error{Op: opSetAll, Ifname: ifname, Err: err}
	}
	return v, nil
}
