// SPDX-License-Identifier: Apache-2.0

package ecn

// A param is one numeric file of a source: its name, the largest value
// the hardware field it shows can hold, and where the name comes from.
type param struct {
	name string
	max  uint64
}

// Field widths, from the congestion-parameter layouts in
// include/linux/mlx5/mlx5_ifc.h (mlx5_ifc_cong_control_r_roce_ecn_np_bits,
// ..._ecn_rp_bits, ..._general_bits), which both the upstream debugfs
// files and the MLNX_OFED sysfs files show.
const (
	bit1  = 1
	bits3 = 1<<3 - 1
	bits6 = 1<<6 - 1
	u32   = 1<<32 - 1
)

// ofedNP and ofedRP are the numeric files of the MLNX_OFED tree
// class/net/IF/ecn/roce_np/ and .../roce_rp/, as mlx5e_fill_np_attributes
// and mlx5e_fill_rp_attributes name them in MLNX_OFED's
// drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c (mlnx-ofa_kernel);
// their show functions (en_ecn.c) print the field with "%d\n". The
// per-priority files enable/0..7 are read separately. cnp_dscp and
// cnp_802p_prio go to Settings.CNPDSCP and Settings.CNPPriority, the
// others to Settings.Params.
var (
	ofedNP = []param{
		{"min_time_between_cnps", u32},
		{ofedCNPDSCP, bits6},
		{ofedCNPPrio, bits3},
	}
	ofedRP = []param{
		{"clamp_tgt_rate", bit1},
		{"clamp_tgt_rate_after_time_inc", bit1},
		{"rpg_time_reset", u32},
		{"rpg_byte_reset", u32},
		{"rpg_threshold", u32},
		{"rpg_max_rate", u32},
		{"rpg_ai_rate", u32},
		{"rpg_hai_rate", u32},
		{"rpg_gd", u32},
		{"rpg_min_dec_fac", u32},
		{"rpg_min_rate", u32},
		{"rate_to_set_on_first_cnp", u32},
		{"dce_tcp_g", u32},
		{"dce_tcp_rtt", u32},
		{"rate_reduce_monitor_period", u32},
		{"initial_alpha_value", u32},
	}
)

const (
	ofedCNPDSCP = "cnp_dscp"
	ofedCNPPrio = "cnp_802p_prio"
)

// ccParams are the files of the upstream debugfs directory
// kernel/debug/mlx5/PCI/cc_params/, in the order of mlx5_ib_dbg_cc_name in
// drivers/infiniband/hw/mlx5/cong.c. get_param prints each as "%u\n" of a
// u32 read from the firmware (QUERY_CONG_PARAMS); mlx5_get_cc_param_val
// says which field each shows. rtt_resp_dscp_valid and rtt_resp_dscp
// exist only when the device has the roce_cc_general capability.
var ccParams = []param{
	{"rp_clamp_tgt_rate", bit1},     // clamp_tgt_rate
	{"rp_clamp_tgt_rate_ati", bit1}, // clamp_tgt_rate_after_time_inc
	{"rp_time_reset", u32},          // rpg_time_reset
	{"rp_byte_reset", u32},          // rpg_byte_reset
	{"rp_threshold", u32},           // rpg_threshold
	{"rp_ai_rate", u32},             // rpg_ai_rate
	{"rp_max_rate", u32},            // rpg_max_rate
	{"rp_hai_rate", u32},            // rpg_hai_rate
	{"rp_min_dec_fac", u32},         // rpg_min_dec_fac
	{"rp_min_rate", u32},            // rpg_min_rate
	{"rp_rate_to_set_on_first_cnp", u32},
	{"rp_dce_tcp_g", u32},
	{"rp_dce_tcp_rtt", u32},
	{"rp_rate_reduce_monitor_period", u32},
	{"rp_initial_alpha_value", u32},
	{"rp_gd", u32},                    // rpg_gd
	{"np_min_time_between_cnps", u32}, // min_time_between_cnps
	{ccCNPDSCP, bits6},                // cnp_dscp
	{ccCNPPrioMode, bit1},             // cnp_prio_mode
	{ccCNPPrio, bits3},                // cnp_802p_prio
	{"rtt_resp_dscp_valid", bit1},     // roce_general rtt_resp_dscp_valid
	{"rtt_resp_dscp", bits6},          // roce_general rtt_resp_dscp
}

const (
	ccCNPDSCP     = "np_cnp_dscp"
	ccCNPPrioMode = "np_cnp_prio_mode"
	ccCNPPrio     = "np_cnp_prio"
)
