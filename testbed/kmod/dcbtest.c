// SPDX-License-Identifier: GPL-2.0
/*
 * dcbtest: a DCB test device for dcbtop's real-kernel tests.
 *
 * Pairs of Ethernet netdevs joined like veth (a frame sent on one is
 * received on the other), each with what a real NIC driver offers to DCB
 * netlink and ethtool, so that dcbtop, iproute2's dcb, ethtool and lldpad
 * meet the kernel's own dcbnl.c and ethtool code instead of fakes:
 *
 *  - IEEE 802.1Qaz ops (include/net/dcbnl.h struct dcbnl_rtnl_ops): ETS,
 *    maxrate (struct ieee_maxrate, kbit/s), PFC with its delay and
 *    counters, APP through dcb_ieee_setapp/dcb_ieee_delapp (the kernel's
 *    APP table, as mlx5 and ice do), the peer's ETS and PFC;
 *  - CEE ops: the DCB state, priority groups (tx and rx), PFC per priority
 *    and its state, APP through dcb_setapp, numtcs, getcap, setall, the
 *    CEE peer's PG and PFC;
 *  - the DCBX mode (getdcbx/setdcbx, include/uapi/linux/dcbnl.h
 *    DCB_CAP_DCBX_*): host-managed IEEE and CEE by default, LLD-managed
 *    (the NIC firmware runs DCBX and refuses host writes, as mlx5 does
 *    when its firmware agent is on) when debugfs says so;
 *  - the receive buffer (dcbnl_getbuffer/setbuffer, struct dcbnl_buffer);
 *  - ethtool (include/linux/ethtool.h struct ethtool_ops): link PAUSE
 *    settings and statistics (get_pause_stats), and `ethtool -S` with
 *    mlx5's per-priority names (rx_prio{p}_pause, tx_prio{p}_pause,
 *    their _duration and _transition, rx/tx_prio{p}_bytes and _packets);
 *    the PFC storm prevention timeout (get_tunable/set_tunable of
 *    ETHTOOL_PFC_PREVENTION_TOUT, as mlx5's en_ethtool.c takes it: 0 off,
 *    80-8000 ms, PFC_STORM_PREVENTION_AUTO written as 100 ms);
 *  - egress classification: a frame's priority is its skb priority or,
 *    for IPv4 and IPv6, the priority the kernel's APP table gives its
 *    DSCP (dcb_ieee_getapp_mask), counted in tx_prio{p}_* here and
 *    rx_prio{p}_* on the peer.
 *
 * debugfs (dcbtest/<ifname>/) lets a test move what a switch or firmware
 * would: "fail_next" takes an errno that the next IEEE set (ETS, maxrate,
 * PFC, APP, buffer) returns, as a driver refuses what its hardware cannot
 * do; "pause" takes "rx|tx PRIO COUNT [DURATION_US]" and adds to that
 * priority's pause counters (and the link PAUSE statistics when PRIO is
 * "link"); "lld_managed" takes 0 or 1; "peer_pfc" takes "CAP MASK" and
 * "peer_ets" "TC0%,...,TC7% PRIO0TC,...,PRIO7TC" for the peer ops; and
 * "maxrate" reads the rate limits as the driver holds them.
 *
 * Module parameter pairs=N (default 2) makes dcbt0/dcbt1, dcbt2/dcbt3...
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>
#include <net/dsfield.h>

static int pairs = 2;
module_param(pairs, int, 0444);
MODULE_PARM_DESC(pairs, "number of dcbtest netdev pairs");

#define NPRIO IEEE_8021QAZ_MAX_TCS

struct prio_stats {
	u64 rx_pause, tx_pause, rx_pause_us, tx_pause_us, rx_pause_trans;
	u64 rx_bytes, rx_packets, tx_bytes, tx_packets;
};

struct dcbt_priv {
	struct net_device __rcu *peer;
	spinlock_t lock;	/* guards everything below */
	struct ieee_ets ets;
	struct ieee_maxrate maxrate;
	struct ieee_pfc pfc;
	struct ieee_ets peer_ets;
	struct ieee_pfc peer_pfc;
	struct dcbnl_buffer buffer;
	u8 dcbx;
	bool lld_managed;
	int fail_next;		/* errno the next IEEE set returns (debugfs) */
	/* CEE */
	u8 state, pfc_state, numtcs_pg, numtcs_pfc;
	u8 pg_tx[NPRIO][4], pg_rx[NPRIO][4];	/* prio type, pgid, bw%, up map */
	u8 pgbw_tx[NPRIO], pgbw_rx[NPRIO];
	u8 cee_pfc[NPRIO];
	/* ethtool */
	struct ethtool_pauseparam pause;
	struct ethtool_pause_stats pause_stats;
	struct prio_stats prio[NPRIO];
	u16 pfc_prevention_tout;	/* ms, 0 off */
	struct dentry *dir;
};

static struct net_device **devs;
static struct dentry *debug_root;

static struct dcbt_priv *priv(struct net_device *dev) { return netdev_priv(dev); }

/* A host-managed write is refused while the firmware runs DCBX, as mlx5e
 * refuses them when its DCBX mode is not host (en_dcbnl.c); and once with
 * the errno a test put in debugfs's fail_next, as a driver refuses what
 * its hardware cannot do (mlx5e_dbcnl_validate_ets's -EINVAL). Called
 * with p->lock held. */
static int host_may_write(struct dcbt_priv *p)
{
	int err = -p->fail_next;

	if (p->lld_managed)
		return -EPERM;
	p->fail_next = 0;
	return err;
}

/* IEEE 802.1Qaz: include/net/dcbnl.h ieee_getets/ieee_setets. */
static int dcbt_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*ets = p->ets;
	ets->ets_cap = NPRIO;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbt_priv *p = priv(dev);
	int i, sum = 0, err;

	for (i = 0; i < NPRIO; i++) {
		if (ets->prio_tc[i] >= NPRIO)
			return -EINVAL;
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS)
			sum += ets->tc_tx_bw[i];
	}
	/* Like mlx5e_dbcnl_validate_ets: the ETS classes' shares make 100%. */
	if (sum && sum != 100)
		return -EINVAL;
	spin_lock_bh(&p->lock);
	err = host_may_write(p);
	if (!err) {
		p->ets = *ets;
		p->ets.ets_cap = NPRIO;
	}
	spin_unlock_bh(&p->lock);
	return err;
}

/* ieee_getmaxrate/ieee_setmaxrate: struct ieee_maxrate tc_maxrate, kbit/s. */
static int dcbt_ieee_getmaxrate(struct net_device *dev, struct ieee_maxrate *m)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*m = p->maxrate;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_ieee_setmaxrate(struct net_device *dev, struct ieee_maxrate *m)
{
	struct dcbt_priv *p = priv(dev);
	int err;

	spin_lock_bh(&p->lock);
	err = host_may_write(p);
	if (!err)
		p->maxrate = *m;
	spin_unlock_bh(&p->lock);
	return err;
}

/* ieee_getpfc/ieee_setpfc: struct ieee_pfc, with the delay and the
 * per-priority pause counters (requests, indications) filled in. */
static int dcbt_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbt_priv *p = priv(dev);
	int i;

	spin_lock_bh(&p->lock);
	*pfc = p->pfc;
	pfc->pfc_cap = NPRIO;
	for (i = 0; i < NPRIO; i++) {
		pfc->requests[i] = p->prio[i].tx_pause;
		pfc->indications[i] = p->prio[i].rx_pause;
	}
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbt_priv *p = priv(dev);
	int err;

	spin_lock_bh(&p->lock);
	err = host_may_write(p);
	if (!err) {
		p->pfc.pfc_en = pfc->pfc_en;
		p->pfc.mbc = pfc->mbc;
		p->pfc.delay = pfc->delay;
	}
	spin_unlock_bh(&p->lock);
	return err;
}

/* ieee_setapp/ieee_delapp: the kernel's APP table (dcb_ieee_setapp), as
 * mlx5e_dcbnl_ieee_setapp keeps it beside its own DSCP table. */
static int dcbt_ieee_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct dcbt_priv *p = priv(dev);
	int err;

	spin_lock_bh(&p->lock);
	err = host_may_write(p);
	spin_unlock_bh(&p->lock);
	if (err)
		return err;
	if (app->priority >= NPRIO)
		return -EINVAL;
	if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol > 63)
		return -EINVAL;
	return dcb_ieee_setapp(dev, app);
}

static int dcbt_ieee_delapp(struct net_device *dev, struct dcb_app *app)
{
	if (priv(dev)->lld_managed)
		return -EPERM;
	return dcb_ieee_delapp(dev, app);
}

static int dcbt_ieee_peer_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*ets = p->peer_ets;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_ieee_peer_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*pfc = p->peer_pfc;
	spin_unlock_bh(&p->lock);
	return 0;
}

/* CEE: include/net/dcbnl.h getstate ... setall. */
static u8 dcbt_getstate(struct net_device *dev) { return priv(dev)->state; }

static u8 dcbt_setstate(struct net_device *dev, u8 state)
{
	struct dcbt_priv *p = priv(dev);

	if (p->lld_managed)
		return 1;
	p->state = !!state;
	return 0;
}

static void dcbt_getpermhwaddr(struct net_device *dev, u8 *addr)
{
	memset(addr, 0xff, MAX_ADDR_LEN);
	memcpy(addr, dev->perm_addr, ETH_ALEN);
}

static void dcbt_setpgtccfg(u8 pg[NPRIO][4], int tc, u8 type, u8 pgid, u8 bw, u8 up)
{
	if (tc < 0 || tc >= NPRIO)
		return;
	/* DCB_ATTR_VALUE_UNDEFINED (0xff) leaves a field as it is. */
	if (type != DCB_ATTR_VALUE_UNDEFINED)
		pg[tc][0] = type;
	if (pgid != DCB_ATTR_VALUE_UNDEFINED)
		pg[tc][1] = pgid;
	if (bw != DCB_ATTR_VALUE_UNDEFINED)
		pg[tc][2] = bw;
	if (up != DCB_ATTR_VALUE_UNDEFINED)
		pg[tc][3] = up;
}

static void dcbt_getpgtccfg(u8 pg[NPRIO][4], int tc, u8 *type, u8 *pgid, u8 *bw, u8 *up)
{
	if (tc < 0 || tc >= NPRIO)
		return;
	*type = pg[tc][0];
	*pgid = pg[tc][1];
	*bw = pg[tc][2];
	*up = pg[tc][3];
}

static void dcbt_setpgtccfgtx(struct net_device *dev, int tc, u8 type, u8 pgid, u8 bw, u8 up)
{
	dcbt_setpgtccfg(priv(dev)->pg_tx, tc, type, pgid, bw, up);
}

static void dcbt_setpgtccfgrx(struct net_device *dev, int tc, u8 type, u8 pgid, u8 bw, u8 up)
{
	dcbt_setpgtccfg(priv(dev)->pg_rx, tc, type, pgid, bw, up);
}

static void dcbt_getpgtccfgtx(struct net_device *dev, int tc, u8 *type, u8 *pgid, u8 *bw, u8 *up)
{
	dcbt_getpgtccfg(priv(dev)->pg_tx, tc, type, pgid, bw, up);
}

static void dcbt_getpgtccfgrx(struct net_device *dev, int tc, u8 *type, u8 *pgid, u8 *bw, u8 *up)
{
	dcbt_getpgtccfg(priv(dev)->pg_rx, tc, type, pgid, bw, up);
}

static void dcbt_setpgbwgcfgtx(struct net_device *dev, int pg, u8 bw)
{
	if (pg >= 0 && pg < NPRIO)
		priv(dev)->pgbw_tx[pg] = bw;
}

static void dcbt_setpgbwgcfgrx(struct net_device *dev, int pg, u8 bw)
{
	if (pg >= 0 && pg < NPRIO)
		priv(dev)->pgbw_rx[pg] = bw;
}

static void dcbt_getpgbwgcfgtx(struct net_device *dev, int pg, u8 *bw)
{
	if (pg >= 0 && pg < NPRIO)
		*bw = priv(dev)->pgbw_tx[pg];
}

static void dcbt_getpgbwgcfgrx(struct net_device *dev, int pg, u8 *bw)
{
	if (pg >= 0 && pg < NPRIO)
		*bw = priv(dev)->pgbw_rx[pg];
}

static void dcbt_setpfccfg(struct net_device *dev, int prio, u8 setting)
{
	if (prio >= 0 && prio < NPRIO)
		priv(dev)->cee_pfc[prio] = setting;
}

static void dcbt_getpfccfg(struct net_device *dev, int prio, u8 *setting)
{
	if (prio >= 0 && prio < NPRIO)
		*setting = priv(dev)->cee_pfc[prio];
}

/* setall commits the CEE configuration: the priority groups' PFC becomes
 * the IEEE PFC the hardware runs (a NIC has one PFC table). Returns 0
 * (DCB_HW_CHG_RST-free: applied). */
static u8 dcbt_setall(struct net_device *dev)
{
	struct dcbt_priv *p = priv(dev);
	u8 en = 0;
	int i;

	if (p->lld_managed)
		return 1;
	for (i = 0; i < NPRIO; i++)
		if (p->cee_pfc[i] != 0)	/* 0: disabled; 1-3: full, tx, rx (ixgbe_dcb.h) */
			en |= BIT(i);
	spin_lock_bh(&p->lock);
	p->pfc.pfc_en = p->pfc_state ? en : 0;
	spin_unlock_bh(&p->lock);
	return 0;
}

/* getcap: include/uapi/linux/dcbnl.h DCB_CAP_ATTR_*. */
static u8 dcbt_getcap(struct net_device *dev, int capid, u8 *cap)
{
	switch (capid) {
	case DCB_CAP_ATTR_PG:
	case DCB_CAP_ATTR_PFC:
	case DCB_CAP_ATTR_UP2TC:
	case DCB_CAP_ATTR_GSP:
		*cap = true;
		break;
	case DCB_CAP_ATTR_PG_TCS:
	case DCB_CAP_ATTR_PFC_TCS:
		*cap = 1 << (NPRIO - 1);	/* 8 TCs: bit (N-1) */
		break;
	case DCB_CAP_ATTR_BCN:
		*cap = false;
		break;
	case DCB_CAP_ATTR_DCBX:
		*cap = priv(dev)->dcbx;
		break;
	default:
		*cap = false;
		return 1;
	}
	return 0;
}

static int dcbt_getnumtcs(struct net_device *dev, int tcid, u8 *num)
{
	struct dcbt_priv *p = priv(dev);

	switch (tcid) {
	case DCB_NUMTCS_ATTR_PG:
		*num = p->numtcs_pg;
		return 0;
	case DCB_NUMTCS_ATTR_PFC:
		*num = p->numtcs_pfc;
		return 0;
	}
	return -EINVAL;
}

static int dcbt_setnumtcs(struct net_device *dev, int tcid, u8 num)
{
	struct dcbt_priv *p = priv(dev);

	if (num < 1 || num > NPRIO)
		return -EINVAL;
	switch (tcid) {
	case DCB_NUMTCS_ATTR_PG:
		p->numtcs_pg = num;
		return 0;
	case DCB_NUMTCS_ATTR_PFC:
		p->numtcs_pfc = num;
		return 0;
	}
	return -EINVAL;
}

static u8 dcbt_getpfcstate(struct net_device *dev) { return priv(dev)->pfc_state; }

static void dcbt_setpfcstate(struct net_device *dev, u8 state) { priv(dev)->pfc_state = !!state; }

/* CEE APP: the kernel's table (dcb_setapp), keyed by the CEE DCBX mode. */
static int dcbt_setapp(struct net_device *dev, u8 idtype, u16 id, u8 up)
{
	struct dcb_app app = { .selector = idtype, .protocol = id, .priority = up };

	if (priv(dev)->lld_managed)
		return -EPERM;
	return dcb_setapp(dev, &app);
}

static int dcbt_getapp(struct net_device *dev, u8 idtype, u16 id)
{
	struct dcb_app app = { .selector = idtype, .protocol = id };

	return dcb_getapp(dev, &app);
}

/* getdcbx/setdcbx: DCB_CAP_DCBX_HOST or DCB_CAP_DCBX_LLD_MANAGED with
 * the versions. Like mlx5e_dcbnl_setdcbx, a mode with both HOST and
 * LLD_MANAGED, or with neither, is refused (returns 1). */
static u8 dcbt_getdcbx(struct net_device *dev)
{
	struct dcbt_priv *p = priv(dev);

	return p->lld_managed ? (p->dcbx & ~DCB_CAP_DCBX_HOST) | DCB_CAP_DCBX_LLD_MANAGED : p->dcbx;
}

static u8 dcbt_setdcbx(struct net_device *dev, u8 mode)
{
	struct dcbt_priv *p = priv(dev);
	bool host = mode & DCB_CAP_DCBX_HOST, lld = mode & DCB_CAP_DCBX_LLD_MANAGED;

	if (host == lld)
		return 1;
	if ((mode & DCB_CAP_DCBX_VER_IEEE) && (mode & DCB_CAP_DCBX_VER_CEE))
		return 1;
	spin_lock_bh(&p->lock);
	p->lld_managed = lld;
	p->dcbx = mode;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_cee_peer_getpg(struct net_device *dev, struct cee_pg *pg)
{
	struct dcbt_priv *p = priv(dev);
	int i;

	memset(pg, 0, sizeof(*pg));
	spin_lock_bh(&p->lock);
	pg->willing = p->peer_ets.willing;
	pg->tcs_supported = NPRIO;
	for (i = 0; i < NPRIO; i++) {
		pg->pg_en |= BIT(i);
		pg->pg_bw[i] = p->peer_ets.tc_tx_bw[i];
		pg->prio_pg[i] = p->peer_ets.prio_tc[i];
	}
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_cee_peer_getpfc(struct net_device *dev, struct cee_pfc *pfc)
{
	struct dcbt_priv *p = priv(dev);

	memset(pfc, 0, sizeof(*pfc));
	spin_lock_bh(&p->lock);
	pfc->pfc_en = p->peer_pfc.pfc_en;
	pfc->tcs_supported = p->peer_pfc.pfc_cap;
	spin_unlock_bh(&p->lock);
	return 0;
}

/* dcbnl_getbuffer/dcbnl_setbuffer: struct dcbnl_buffer, as mlx5's
 * port_buffer.c: priorities to buffers, each buffer's size within the
 * total. */
static int dcbt_getbuffer(struct net_device *dev, struct dcbnl_buffer *b)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*b = p->buffer;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_setbuffer(struct net_device *dev, struct dcbnl_buffer *b)
{
	struct dcbt_priv *p = priv(dev);
	u64 sum = 0;
	int i, err;

	for (i = 0; i < NPRIO; i++)
		if (b->prio2buffer[i] >= DCBX_MAX_BUFFERS)
			return -EINVAL;
	for (i = 0; i < DCBX_MAX_BUFFERS; i++)
		sum += b->buffer_size[i];
	if (sum > p->buffer.total_size)
		return -EINVAL;
	spin_lock_bh(&p->lock);
	err = host_may_write(p);
	if (!err) {
		memcpy(p->buffer.prio2buffer, b->prio2buffer, sizeof(b->prio2buffer));
		memcpy(p->buffer.buffer_size, b->buffer_size, sizeof(b->buffer_size));
	}
	spin_unlock_bh(&p->lock);
	return err;
}

static const struct dcbnl_rtnl_ops dcbt_dcbnl_ops = {
	.ieee_getets = dcbt_ieee_getets,
	.ieee_setets = dcbt_ieee_setets,
	.ieee_getmaxrate = dcbt_ieee_getmaxrate,
	.ieee_setmaxrate = dcbt_ieee_setmaxrate,
	.ieee_getpfc = dcbt_ieee_getpfc,
	.ieee_setpfc = dcbt_ieee_setpfc,
	.ieee_setapp = dcbt_ieee_setapp,
	.ieee_delapp = dcbt_ieee_delapp,
	.ieee_peer_getets = dcbt_ieee_peer_getets,
	.ieee_peer_getpfc = dcbt_ieee_peer_getpfc,
	.getstate = dcbt_getstate,
	.setstate = dcbt_setstate,
	.getpermhwaddr = dcbt_getpermhwaddr,
	.setpgtccfgtx = dcbt_setpgtccfgtx,
	.setpgbwgcfgtx = dcbt_setpgbwgcfgtx,
	.setpgtccfgrx = dcbt_setpgtccfgrx,
	.setpgbwgcfgrx = dcbt_setpgbwgcfgrx,
	.getpgtccfgtx = dcbt_getpgtccfgtx,
	.getpgbwgcfgtx = dcbt_getpgbwgcfgtx,
	.getpgtccfgrx = dcbt_getpgtccfgrx,
	.getpgbwgcfgrx = dcbt_getpgbwgcfgrx,
	.setpfccfg = dcbt_setpfccfg,
	.getpfccfg = dcbt_getpfccfg,
	.setall = dcbt_setall,
	.getcap = dcbt_getcap,
	.getnumtcs = dcbt_getnumtcs,
	.setnumtcs = dcbt_setnumtcs,
	.getpfcstate = dcbt_getpfcstate,
	.setpfcstate = dcbt_setpfcstate,
	.setapp = dcbt_setapp,
	.getapp = dcbt_getapp,
	.getdcbx = dcbt_getdcbx,
	.setdcbx = dcbt_setdcbx,
	.cee_peer_getpg = dcbt_cee_peer_getpg,
	.cee_peer_getpfc = dcbt_cee_peer_getpfc,
	.dcbnl_getbuffer = dcbt_getbuffer,
	.dcbnl_setbuffer = dcbt_setbuffer,
};

/* ethtool: include/linux/ethtool.h. */
static void dcbt_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "dcbtest", sizeof(info->driver));
	strscpy(info->version, "1", sizeof(info->version));
	strscpy(info->bus_info, "dcbtest", sizeof(info->bus_info));
}

static void dcbt_get_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pp)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	*pp = p->pause;
	spin_unlock_bh(&p->lock);
}

static int dcbt_set_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pp)
{
	struct dcbt_priv *p = priv(dev);

	if (pp->autoneg)
		return -EOPNOTSUPP;	/* no autonegotiation on this link */
	spin_lock_bh(&p->lock);
	p->pause.rx_pause = pp->rx_pause;
	p->pause.tx_pause = pp->tx_pause;
	spin_unlock_bh(&p->lock);
	return 0;
}

static void dcbt_get_pause_stats(struct net_device *dev, struct ethtool_pause_stats *st)
{
	struct dcbt_priv *p = priv(dev);

	spin_lock_bh(&p->lock);
	st->tx_pause_frames = p->pause_stats.tx_pause_frames;
	st->rx_pause_frames = p->pause_stats.rx_pause_frames;
	spin_unlock_bh(&p->lock);
}

/* The per-priority statistics, named as mlx5's en_stats.c names them. */
static const char *const prio_stat_fmt[] = {
	"rx_prio%d_pause", "tx_prio%d_pause",
	"rx_prio%d_pause_duration", "tx_prio%d_pause_duration",
	"rx_prio%d_pause_transition",
	"rx_prio%d_bytes", "rx_prio%d_packets",
	"tx_prio%d_bytes", "tx_prio%d_packets",
};
#define NSTATS_PER_PRIO ARRAY_SIZE(prio_stat_fmt)

static int dcbt_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? NPRIO * NSTATS_PER_PRIO : -EOPNOTSUPP;
}

static void dcbt_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	int p, i;

	if (sset != ETH_SS_STATS)
		return;
	for (p = 0; p < NPRIO; p++)
		for (i = 0; i < NSTATS_PER_PRIO; i++) {
			snprintf(buf, ETH_GSTRING_LEN, prio_stat_fmt[i], p);
			buf += ETH_GSTRING_LEN;
		}
}

static void dcbt_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats, u64 *data)
{
	struct dcbt_priv *p = priv(dev);
	int i;

	spin_lock_bh(&p->lock);
	for (i = 0; i < NPRIO; i++) {
		struct prio_stats *s = &p->prio[i];

		*data++ = s->rx_pause;
		*data++ = s->tx_pause;
		*data++ = s->rx_pause_us;
		*data++ = s->tx_pause_us;
		*data++ = s->rx_pause_trans;
		*data++ = s->rx_bytes;
		*data++ = s->rx_packets;
		*data++ = s->tx_bytes;
		*data++ = s->tx_packets;
	}
	spin_unlock_bh(&p->lock);
}

/* The PFC storm prevention timeout, as mlx5e_get_pfc_prevention_tout
 * and mlx5e_set_pfc_prevention_tout (en_ethtool.c) take it: auto is
 * MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC (100), and a timeout other than 0 (off)
 * outside 80-8000 ms is refused with EINVAL. Other tunables are not
 * supported. */
#define DCBT_PFC_PREVEN_AUTO_TOUT_MSEC	100
#define DCBT_PFC_PREVEN_TOUT_MIN_MSEC	80
#define DCBT_PFC_PREVEN_TOUT_MAX_MSEC	8000

static int dcbt_get_tunable(struct net_device *dev, const struct ethtool_tunable *t, void *data)
{
	struct dcbt_priv *p = priv(dev);

	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	spin_lock_bh(&p->lock);
	*(u16 *)data = p->pfc_prevention_tout;
	spin_unlock_bh(&p->lock);
	return 0;
}

static int dcbt_set_tunable(struct net_device *dev, const struct ethtool_tunable *t, const void *data)
{
	struct dcbt_priv *p = priv(dev);
	u16 tout;

	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	tout = *(const u16 *)data;
	if (tout == PFC_STORM_PREVENTION_AUTO)
		tout = DCBT_PFC_PREVEN_AUTO_TOUT_MSEC;
	if (tout != PFC_STORM_PREVENTION_DISABLE &&
	    (tout < DCBT_PFC_PREVEN_TOUT_MIN_MSEC || tout > DCBT_PFC_PREVEN_TOUT_MAX_MSEC))
		return -EINVAL;
	spin_lock_bh(&p->lock);
	p->pfc_prevention_tout = tout;
	spin_unlock_bh(&p->lock);
	return 0;
}

static const struct ethtool_ops dcbt_ethtool_ops = {
	.get_drvinfo = dcbt_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_pauseparam = dcbt_get_pauseparam,
	.set_pauseparam = dcbt_set_pauseparam,
	.get_pause_stats = dcbt_get_pause_stats,
	.get_sset_count = dcbt_get_sset_count,
	.get_strings = dcbt_get_strings,
	.get_ethtool_stats = dcbt_get_ethtool_stats,
	.get_tunable = dcbt_get_tunable,
	.set_tunable = dcbt_set_tunable,
};

/* classify returns a frame's priority: its DSCP's in the kernel's APP
 * table for IPv4 and IPv6 (the highest priority of dcb_ieee_getapp_mask,
 * as a NIC trusting DSCP would), else its VLAN PCP, else skb->priority. */
static int classify(struct net_device *dev, struct sk_buff *skb)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	u8 mask;
	int dscp = -1;

	if (skb->protocol == htons(ETH_P_IP) && pskb_may_pull(skb, ETH_HLEN + sizeof(struct iphdr)))
		dscp = ipv4_get_dsfield((struct iphdr *)(skb->data + ETH_HLEN)) >> 2;
	else if (skb->protocol == htons(ETH_P_IPV6) && pskb_may_pull(skb, ETH_HLEN + sizeof(struct ipv6hdr)))
		dscp = ipv6_get_dsfield((struct ipv6hdr *)(skb->data + ETH_HLEN)) >> 2;
	if (dscp >= 0) {
		app.protocol = dscp;
		mask = dcb_ieee_getapp_mask(dev, &app);
		if (mask)
			return fls(mask) - 1;
	}
	if (skb_vlan_tag_present(skb))
		return skb_vlan_tag_get_prio(skb);
	return skb->priority < NPRIO ? skb->priority : 0;
}

static netdev_tx_t dcbt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct dcbt_priv *p = priv(dev);
	struct net_device *peer;
	unsigned int len = skb->len;
	int prio = classify(dev, skb);

	spin_lock(&p->lock);
	p->prio[prio].tx_packets++;
	p->prio[prio].tx_bytes += len;
	spin_unlock(&p->lock);
	dev_sw_netstats_tx_add(dev, 1, len);

	rcu_read_lock();
	peer = rcu_dereference(p->peer);
	if (!peer || !netif_running(peer)) {
		rcu_read_unlock();
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	skb_scrub_packet(skb, false);
	skb->dev = peer;
	skb->protocol = eth_type_trans(skb, peer);
	{
		struct dcbt_priv *q = priv(peer);

		spin_lock(&q->lock);
		q->prio[prio].rx_packets++;
		q->prio[prio].rx_bytes += len;
		spin_unlock(&q->lock);
	}
	dev_sw_netstats_rx_add(peer, len);
	netif_rx(skb);
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

static int dcbt_open(struct net_device *dev)
{
	struct net_device *peer = rtnl_dereference(priv(dev)->peer);

	if (peer && (peer->flags & IFF_UP)) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	}
	return 0;
}

static int dcbt_stop(struct net_device *dev)
{
	struct net_device *peer = rtnl_dereference(priv(dev)->peer);

	netif_carrier_off(dev);
	if (peer)
		netif_carrier_off(peer);
	return 0;
}

static const struct net_device_ops dcbt_netdev_ops = {
	.ndo_open = dcbt_open,
	.ndo_stop = dcbt_stop,
	.ndo_start_xmit = dcbt_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* debugfs: what a switch or the firmware would change. */
static ssize_t pause_write(struct file *f, const char __user *ubuf, size_t n, loff_t *off)
{
	struct net_device *dev = f->private_data;
	struct dcbt_priv *p = priv(dev);
	char buf[64], dir[4], prio[8];
	unsigned long long count, us = 0;
	int pr, got;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	got = sscanf(buf, "%3s %7s %llu %llu", dir, prio, &count, &us);
	if (got < 3 || (strcmp(dir, "rx") && strcmp(dir, "tx")))
		return -EINVAL;
	spin_lock_bh(&p->lock);
	if (!strcmp(prio, "link")) {
		if (dir[0] == 'r')
			p->pause_stats.rx_pause_frames += count;
		else
			p->pause_stats.tx_pause_frames += count;
	} else if (!kstrtoint(prio, 10, &pr) && pr >= 0 && pr < NPRIO) {
		if (dir[0] == 'r') {
			p->prio[pr].rx_pause += count;
			p->prio[pr].rx_pause_us += us;
			p->prio[pr].rx_pause_trans += count ? 1 : 0;
		} else {
			p->prio[pr].tx_pause += count;
			p->prio[pr].tx_pause_us += us;
		}
	} else {
		spin_unlock_bh(&p->lock);
		return -EINVAL;
	}
	spin_unlock_bh(&p->lock);
	return n;
}

static ssize_t lld_write(struct file *f, const char __user *ubuf, size_t n, loff_t *off)
{
	struct net_device *dev = f->private_data;
	struct dcbt_priv *p = priv(dev);
	bool on;
	int err = kstrtobool_from_user(ubuf, n, &on);

	if (err)
		return err;
	spin_lock_bh(&p->lock);
	p->lld_managed = on;
	p->dcbx = on ? (p->dcbx & ~DCB_CAP_DCBX_HOST) | DCB_CAP_DCBX_LLD_MANAGED
		     : (p->dcbx & ~DCB_CAP_DCBX_LLD_MANAGED) | DCB_CAP_DCBX_HOST;
	spin_unlock_bh(&p->lock);
	return n;
}

static ssize_t fail_next_write(struct file *f, const char __user *ubuf, size_t n, loff_t *off)
{
	struct net_device *dev = f->private_data;
	struct dcbt_priv *p = priv(dev);
	int errno_, err = kstrtoint_from_user(ubuf, n, 10, &errno_);

	if (err)
		return err;
	if (errno_ < 0 || errno_ > MAX_ERRNO)
		return -EINVAL;
	spin_lock_bh(&p->lock);
	p->fail_next = errno_;
	spin_unlock_bh(&p->lock);
	return n;
}

static ssize_t peer_pfc_write(struct file *f, const char __user *ubuf, size_t n, loff_t *off)
{
	struct net_device *dev = f->private_data;
	struct dcbt_priv *p = priv(dev);
	char buf[32];
	unsigned int cap, mask;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	if (sscanf(buf, "%u %u", &cap, &mask) != 2 || cap > NPRIO || mask > 0xff)
		return -EINVAL;
	spin_lock_bh(&p->lock);
	p->peer_pfc.pfc_cap = cap;
	p->peer_pfc.pfc_en = mask;
	spin_unlock_bh(&p->lock);
	return n;
}

static ssize_t peer_ets_write(struct file *f, const char __user *ubuf, size_t n, loff_t *off)
{
	struct net_device *dev = f->private_data;
	struct dcbt_priv *p = priv(dev);
	char buf[96];
	unsigned int bw[NPRIO], tc[NPRIO];
	int i;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	if (sscanf(buf, "%u,%u,%u,%u,%u,%u,%u,%u %u,%u,%u,%u,%u,%u,%u,%u",
		   &bw[0], &bw[1], &bw[2], &bw[3], &bw[4], &bw[5], &bw[6], &bw[7],
		   &tc[0], &tc[1], &tc[2], &tc[3], &tc[4], &tc[5], &tc[6], &tc[7]) != 16)
		return -EINVAL;
	spin_lock_bh(&p->lock);
	p->peer_ets.ets_cap = NPRIO;
	for (i = 0; i < NPRIO; i++) {
		p->peer_ets.tc_tx_bw[i] = bw[i] > 100 ? 100 : bw[i];
		p->peer_ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		p->peer_ets.prio_tc[i] = tc[i] % NPRIO;
	}
	spin_unlock_bh(&p->lock);
	return n;
}

/* maxrate reads the rate limits as the driver holds them (struct
 * ieee_maxrate's u64s, unconverted), the bytes a tool's unit conversion
 * is judged against. */
static int maxrate_show(struct seq_file *m, void *v)
{
	struct net_device *dev = m->private;
	struct dcbt_priv *p = priv(dev);
	int i;

	spin_lock_bh(&p->lock);
	for (i = 0; i < NPRIO; i++)
		seq_printf(m, "%llu%c", p->maxrate.tc_maxrate[i], i == NPRIO - 1 ? '\n' : ' ');
	spin_unlock_bh(&p->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(maxrate);

#define WO_FOPS(name, fn) \
	static const struct file_operations name = { .owner = THIS_MODULE, .open = simple_open, .write = fn, .llseek = noop_llseek }
WO_FOPS(pause_fops, pause_write);
WO_FOPS(lld_fops, lld_write);
WO_FOPS(fail_next_fops, fail_next_write);
WO_FOPS(peer_pfc_fops, peer_pfc_write);
WO_FOPS(peer_ets_fops, peer_ets_write);

static void dcbt_setup(struct net_device *dev)
{
	struct dcbt_priv *p = priv(dev);
	int i;

	ether_setup(dev);
	dev->netdev_ops = &dcbt_netdev_ops;
	dev->ethtool_ops = &dcbt_ethtool_ops;
	dev->dcbnl_ops = &dcbt_dcbnl_ops;
	dev->needs_free_netdev = true;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9000;
	dev->priv_flags |= IFF_NO_QUEUE;
	spin_lock_init(&p->lock);
	p->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE | DCB_CAP_DCBX_VER_CEE;
	p->ets.ets_cap = NPRIO;
	p->ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	p->ets.tc_tx_bw[0] = 100;
	p->pfc.pfc_cap = NPRIO;
	p->numtcs_pg = p->numtcs_pfc = NPRIO;
	p->buffer.total_size = 262144;
	for (i = 0; i < DCBX_MAX_BUFFERS; i++)
		p->buffer.buffer_size[i] = i == 0 ? p->buffer.total_size : 0;
	p->pause.autoneg = 0;
	p->pfc_prevention_tout = DCBT_PFC_PREVEN_AUTO_TOUT_MSEC;
}

static void dcbt_teardown(void)
{
	int i;

	if (!devs)
		return;
	rtnl_lock();
	for (i = 0; i < 2 * pairs; i++) {
		if (!devs[i])
			continue;
		RCU_INIT_POINTER(priv(devs[i])->peer, NULL);
	}
	for (i = 0; i < 2 * pairs; i++)
		if (devs[i] && devs[i]->reg_state == NETREG_REGISTERED)
			unregister_netdevice(devs[i]);
		else if (devs[i])
			free_netdev(devs[i]);
	rtnl_unlock();
	kfree(devs);
	devs = NULL;
}

static int __init dcbt_init(void)
{
	int i, err;

	if (pairs < 1 || pairs > 16)
		return -EINVAL;
	devs = kcalloc(2 * pairs, sizeof(*devs), GFP_KERNEL);
	if (!devs)
		return -ENOMEM;
	debug_root = debugfs_create_dir("dcbtest", NULL);
	for (i = 0; i < 2 * pairs; i++) {
		char name[IFNAMSIZ];

		snprintf(name, sizeof(name), "dcbt%d", i);
		devs[i] = alloc_netdev(sizeof(struct dcbt_priv), name, NET_NAME_USER, dcbt_setup);
		if (!devs[i]) {
			err = -ENOMEM;
			goto fail;
		}
		eth_hw_addr_random(devs[i]);
		memcpy(devs[i]->perm_addr, devs[i]->dev_addr, ETH_ALEN);
	}
	rtnl_lock();
	for (i = 0; i < 2 * pairs; i++) {
		RCU_INIT_POINTER(priv(devs[i])->peer, devs[i ^ 1]);
		netif_carrier_off(devs[i]);
		err = register_netdevice(devs[i]);
		if (err) {
			rtnl_unlock();
			goto fail;
		}
	}
	rtnl_unlock();
	for (i = 0; i < 2 * pairs; i++) {
		struct dentry *d = debugfs_create_dir(devs[i]->name, debug_root);

		priv(devs[i])->dir = d;
		debugfs_create_file("pause", 0200, d, devs[i], &pause_fops);
		debugfs_create_file("lld_managed", 0200, d, devs[i], &lld_fops);
		debugfs_create_file("fail_next", 0200, d, devs[i], &fail_next_fops);
		debugfs_create_file("maxrate", 0400, d, devs[i], &maxrate_fops);
		debugfs_create_file("peer_pfc", 0200, d, devs[i], &peer_pfc_fops);
		debugfs_create_file("peer_ets", 0200, d, devs[i], &peer_ets_fops);
	}
	return 0;
fail:
	dcbt_teardown();
	debugfs_remove_recursive(debug_root);
	return err;
}

static void __exit dcbt_exit(void)
{
	debugfs_remove_recursive(debug_root);
	dcbt_teardown();
}

module_init(dcbt_init);
module_exit(dcbt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("DCB test device for dcbtop's real-kernel tests");
