#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# record-fixtures.sh - record REAL LLDP/DCBX packet captures from lldpd as test
# fixtures for dcbtop. Self-contained: needs root, lldpd/lldpcli (>= 1.0.x),
# tcpdump, tshark and iproute2. Run from anywhere (it cd's to the repo root):
#
#   sudo testbed/record-fixtures.sh            # all captures
#   sudo testbed/record-fixtures.sh ieee-full ttl   # a subset; names: ieee-full cee
#        plain hostile grow multipeer ttl willing demo
#   sudo testbed/record-fixtures.sh --verify   # only re-check existing files
#
# Every lldpd runs in its own network namespace with its own control socket
# (-u) and talks only to veths inside namespaces this script creates. The
# capture is taken on the host end of a veth with
#   tcpdump -i IF -U -w FILE ether proto 0x88cc
# (classic pcap, link type EN10MB). Everything created here (namespaces,
# veths, lldpd and tcpdump processes, the temp dir) is removed on EXIT.
#
# lldpd configuration: every lldpd is started with -O CONF, where CONF holds
# the lldpcli commands (system hostname, tx-interval 1, custom TLVs). lldpd
# starts "paused", runs `lldpcli -u SOCK -C CONF resume` itself and only then
# transmits, so even the very first frame carries the final hostname and TLVs.
# Later changes are made with `lldpcli -u SOCK configure ...` while running.
#
# TTL: lldpd advertises TTL = tx-interval x tx-hold (no +1). With
# `configure lldp tx-interval 1` and the default tx-hold 4, every frame says
# TTL = 4 s (observed with lldpd 1.0.16, the Debian 12 package), and frames
# are sent every ~1.0 s. "2 x TTL" below therefore means 8 s; we wait 10 s.
# Stopping lldpd with SIGTERM makes it send a shutdown LLDPDU (Chassis ID,
# Port ID, TTL=0, End; 38 bytes, not padded to 60 on a veth). Cutting the link
# (ip link set ... down) stops transmission without any shutdown LLDPDU.
#
# Determinism: MAC addresses, the peer-side ifindex (2), hostnames, system
# descriptions (-S) and IPv4 management addresses (192.0.2.0/24, TEST-NET-1)
# are fixed, IPv6 is disabled in the namespaces, so the LLDPDU bytes are the
# same on every run; only timestamps (and exact frame counts of the scenarios,
# +-1 per phase) vary.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
LLDP_TD=engine/lldp/testdata
ENG_TD=engine/testdata
ASSETS=assets

# ----------------------------------------------------------------------------
# DCBX TLV payloads. Each value is the lldpcli "oui-info": the TLV information
# string AFTER the 3-byte OUI and the 1-byte subtype (lldpd adds TLV header,
# OUI and subtype itself). Layouts: IEEE Std 802.1Q-2018 Annex D (D.2.9-D.2.12)
# and CEE DCBX v1.01 (Control, PG, PFC and APP sub-TLVs).
# ----------------------------------------------------------------------------

# ETS Configuration, OUI 00-80-C2 subtype 9, info length 25 (TLV hdr FE 19).
#   00                     willing=0 (b7), CBS=0 (b6), reserved, MaxTCs=0 -> 8
#   00 01 02 00            prio->TC nibbles: p0=0 p1=0 | p2=0 p3=1 | p4=0 p5=2 | p6=0 p7=0
#   28 32 0a 00 00 00 00 00  TC bandwidth %: TC0=40 TC1=50 TC2=10 TC3..7=0 (sum 100)
#   02 02 02 00 00 00 00 00  TSA: TC0..2 = 2 (ETS), TC3..7 = 0 (strict priority)
ETS_CFG=00,00,01,02,00,28,32,0a,00,00,00,00,00,02,02,02,00,00,00,00,00

# Same as ETS_CFG with only the bandwidths changed: TC0=30 TC1=60 TC2=10.
#   00 | 00 01 02 00 | 1e 3c 0a 00 00 00 00 00 | 02 02 02 00 00 00 00 00
ETS_CFG_BW2=00,00,01,02,00,1e,3c,0a,00,00,00,00,00,02,02,02,00,00,00,00,00

# ETS Recommendation, subtype 10, info length 25. Byte 4 is reserved (0).
#   00                     reserved
#   00 01 10 20            p0=0 p1=0 | p2=0 p3=1 | p4=1 p5=0 | p6=2 p7=0
#   1e 46 00 00 00 00 00 00  TC0=30 TC1=70 TC2..7=0 (sum 100)
#   02 02 00 00 00 00 00 00  TSA: TC0,TC1 = ETS; TC2..7 = strict
ETS_RECO=00,00,01,10,20,1e,46,00,00,00,00,00,00,02,02,00,00,00,00,00,00

# ETS Recommendation, second version (demo "recommendation change").
#   00 | 00 01 20 00       p3=1, p4=2, others 0
#   32 28 0a 00 00 00 00 00  TC0=50 TC1=40 TC2=10
#   02 02 02 00 00 00 00 00  TSA: TC0..2 = ETS, TC3..7 = strict
ETS_RECO2=00,00,01,20,00,32,28,0a,00,00,00,00,00,02,02,02,00,00,00,00,00

# ETS Configuration of the second peer in the multi-peer captures.
#   00                     willing=0, CBS=0, MaxTCs 8
#   00 03 00 00            p3=3, others 0
#   3c 00 00 28 00 00 00 00  TC0=60 TC3=40
#   02 00 00 02 00 00 00 00  TSA: TC0,TC3 = ETS; others strict
ETS_CFG_P2=00,00,03,00,00,3c,00,00,28,00,00,00,00,02,00,00,02,00,00,00,00

# PFC Configuration, subtype 11, info length 6 (TLV hdr FE 06).
#   08 = willing=0 (b7), MBC=0 (b6), reserved, PFC cap = 8 (b3..0)
#   second byte = enable bitmap, bit n = priority n
PFC_3=08,08      # prio 3
PFC_34=08,18     # prio 3 and 4
PFC_W34=88,18    # willing=1, cap 8, prio 3 and 4

# Application Priority, subtype 12, info length 5 + 3*N.
#   00                     reserved
#   per entry: [prio<<5 | sel] [protocol hi] [protocol lo]
#   61 89 06   prio 3, sel 1 (EtherType)       0x8906 (FCoE)
#   63 12 b7   prio 3, sel 3 (UDP/DCCP port)   4791   (RoCEv2)
#   82 0c bc   prio 4, sel 2 (TCP/SCTP port)   3260   (iSCSI)
#   44 11 44   prio 2, sel 4 (TCP/SCTP/UDP/DCCP port) 4420 (NVMe/TCP)
#   65 00 1a   prio 3, sel 5 (DSCP)            26     (AF31)
#   a5 00 2e   prio 5, sel 5 (DSCP)            46     (EF)
APP_FULL=00,61,89,06,63,12,b7,82,0c,bc,44,11,44,65,00,1a,a5,00,2e
APP_ROCE=00,63,12,b7                    # udp 4791 -> prio 3
APP_ROCE_DSCP=00,63,12,b7,65,00,1a      # + dscp 26 -> prio 3

# CEE DCBX TLV, OUI 00-1B-21 subtype 2, info length 67 (TLV hdr FE 43):
# Control, PG, PFC and APP sub-TLVs (the fixture's system description still
# names the section of the team's notes it was laid out from).
#   02 0a  00 00  00 00 00 03  00 00 00 02     Control: type 1 len 10, oper 0 max 0, SeqNo 3, AckNo 2
#   04 11  00 00 c0 00                         PG: type 2 len 17, ver 0/0, E=1 W=1 Err=0, subtype 0
#          00 00 11 1f                         PGID p0..p3=0, p4..p6=1, p7=15 (strict)
#          19 4b 00 00 00 00 00 00             PG%: PG0=25 PG1=75
#          08                                  NumTCs 8
#   06 06  00 00 c0 00  08  08                 PFC: type 3 len 6, E=1 W=1, enable prio3, NumTCs 8
#   08 16  00 00 e0 00                         APP: type 4 len 22, E=1 W=1 Err=1
#          89 06  00 1b 21  08                 FCoE 0x8906, sel 0 (EtherType), up-map 0x08 (prio 3)
#          0c bc  01 1b 21  08                 iSCSI 3260, sel 1 (port), prio 3
#          89 14  00 1b 21  08                 FIP 0x8914, sel 0, prio 3
CEE=02,0a,00,00,00,00,00,03,00,00,00,02,\
04,11,00,00,c0,00,00,00,11,1f,19,4b,00,00,00,00,00,00,08,\
06,06,00,00,c0,00,08,08,\
08,16,00,00,e0,00,89,06,00,1b,21,08,0c,bc,01,1b,21,08,89,14,00,1b,21,08

# Fixed addresses.
MAC_HOST=02:dc:b0:00:00:fe   # host end of the capture veth
MAC_P1=02:dc:b0:00:00:01     # peer 1 (p0)
MAC_P2=02:dc:b0:00:00:02     # peer 2 (p0)
MAC_EVIL=02:dc:b0:00:00:66   # hostile peer
IP_P1=192.0.2.1/24
IP_P2=192.0.2.2/24
IP_EVIL=192.0.2.66/24
TTL=4                        # what lldpd advertises with tx-interval 1 (checked below)

# ----------------------------------------------------------------------------
# Plumbing
# ----------------------------------------------------------------------------
die() { echo "record-fixtures: $*" >&2; exit 1; }
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

TAG=dfx$$                    # unique per run: names never collide with others
RUN=""
NSES=()                      # namespaces we created
HOSTIFS=()                   # host-side interfaces we created
declare -A LLDPD_PID=()      # ns -> lldpd pid
TD_PID=""                    # running tcpdump
PHASES=""                    # phase log of the current capture

cleanup() {
	local rc=$? ns pid
	set +e
	[ -n "$TD_PID" ] && kill -INT "$TD_PID" 2>/dev/null && wait "$TD_PID" 2>/dev/null
	for ns in "${!LLDPD_PID[@]}"; do
		pid=${LLDPD_PID[$ns]}
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null; done
	for i in "${HOSTIFS[@]}"; do ip link del "$i" 2>/dev/null; done
	[ -n "$RUN" ] && rm -rf "$RUN"
	exit $rc
}

# teardown: end of one capture; stop lldpds, remove namespaces and veths.
teardown() {
	local ns pid
	for ns in "${!LLDPD_PID[@]}"; do
		pid=${LLDPD_PID[$ns]}
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	LLDPD_PID=()
	for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
	for i in "${HOSTIFS[@]}"; do ip link del "$i" 2>/dev/null || true; done
	NSES=() HOSTIFS=()
}

# mk_ns NS: namespace with lo up and IPv6 off (no link-local mgmt addresses,
# no RS/MLD noise).
mk_ns() {
	ip netns add "$1"
	NSES+=("$1")
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set lo up
}

# host_veth HOSTIF NS PEERIF PEERMAC: veth HOSTIF (host ns) <-> PEERIF in NS.
# The peer end is created directly inside NS with ifindex 2, so the
# Management Address TLV's interface number is stable.
host_veth() {
	local hif=$1 ns=$2 pif=$3 pmac=$4
	ip link add "$hif" address "$MAC_HOST" type veth peer name "$pif" netns "$ns" index 2 address "$pmac"
	HOSTIFS+=("$hif")
	sysctl -qw "net.ipv6.conf.$hif.disable_ipv6=1" 2>/dev/null || true
	ip link set "$hif" up
	ip -n "$ns" link set "$pif" up
}

# direct_peer NS HOSTIF MAC IP: peer namespace NS with p0 <-> HOSTIF.
direct_peer() {
	local ns=$1 hif=$2 mac=$3 ip=$4
	mk_ns "$ns"
	host_veth "$hif" "$ns" p0 "$mac"
	ip -n "$ns" addr add "$ip" dev p0
}

# bridge_ns BR HOSTIF: namespace BR with bridge br0, port "bh" <-> HOSTIF.
# group_fwd_mask bit 14 makes br0 forward 01:80:c2:00:00:0e (LLDP nearest
# bridge), which a Linux bridge otherwise never forwards.
bridge_ns() {
	local br=$1 hif=$2
	mk_ns "$br"
	ip -n "$br" link add br0 address 02:dc:b0:00:01:00 type bridge stp_state 0 forward_delay 0
	ip netns exec "$br" sh -c 'echo 16384 > /sys/class/net/br0/bridge/group_fwd_mask'
	[ "$(ip netns exec "$br" cat /sys/class/net/br0/bridge/group_fwd_mask)" = 0x4000 ] ||
		die "could not set group_fwd_mask"
	host_veth "$hif" "$br" bh 02:dc:b0:00:01:fe
	ip -n "$br" link set bh master br0
	ip -n "$br" link set br0 up
}

# bridge_peer BR PORT NS MAC IP: peer namespace NS, its p0 <-> PORT on br0.
bridge_peer() {
	local br=$1 port=$2 ns=$3 mac=$4 ip=$5
	mk_ns "$ns"
	ip -n "$br" link add "$port" address "02:dc:b0:00:01:${mac##*:}" type veth \
		peer name p0 netns "$ns" index 2 address "$mac"
	ip -n "$br" link set "$port" master br0
	ip -n "$br" link set "$port" up
	ip -n "$ns" addr add "$ip" dev p0
	ip -n "$ns" link set p0 up
}

# lldpd_start NS HOSTNAME DESCR [lldpcli config lines...]
# Writes the startup config (hostname, tx-interval 1, extra lines) and runs
# lldpd on p0 with its own control socket. Returns once lldpd has applied the
# config and resumed (i.e. is about to send its first LLDPDU).
lldpd_start() {
	local ns=$1 name=$2 descr=$3 conf=$RUN/$1.conf line i
	shift 3
	{
		printf 'configure system hostname "%s"\n' "$name"
		echo "configure lldp tx-interval 1"
		for line in "$@"; do echo "$line"; done
	} >"$conf"
	ip netns exec "$ns" lldpd -d -u "$RUN/$ns.sock" -I p0 -S "$descr" -O "$conf" \
		>"$RUN/$ns.log" 2>&1 &
	LLDPD_PID[$ns]=$!
	for i in $(seq 100); do
		grep -q 'lldpd should resume operations' "$RUN/$ns.log" && return 0
		kill -0 "${LLDPD_PID[$ns]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$RUN/$ns.log" >&2
	die "lldpd in $ns did not start"
}

# cli NS lldpcli-args...
cli() { local ns=$1; shift; ip netns exec "$ns" lldpcli -u "$RUN/$ns.sock" "$@" >/dev/null; }
# tlv NS add|replace SUBTYPE HEX [OUI]
tlv() { cli "$1" configure lldp custom-tlv "$2" oui "${5:-00,80,c2}" subtype "$3" oui-info "$4"; }

# lldpd_stop NS: SIGTERM -> lldpd sends a shutdown LLDPDU (TTL 0) and exits.
lldpd_stop() {
	local pid=${LLDPD_PID[$1]}
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	unset "LLDPD_PID[$1]"
}

# cap_start IF FILE [COUNT]: tcpdump in the background; returns once it is
# listening. With COUNT, tcpdump exits by itself after COUNT frames.
cap_start() {
	local ifc=$1 file=$2 i
	: >"$RUN/tcpdump.err"
	tcpdump -i "$ifc" -U ${3:+-c "$3"} -w "$file" ether proto 0x88cc 2>"$RUN/tcpdump.err" &
	TD_PID=$!
	for i in $(seq 100); do
		grep -q 'listening on' "$RUN/tcpdump.err" && { PHASES=$RUN/phases; : >"$PHASES"; return 0; }
		sleep 0.05
	done
	die "tcpdump did not start: $(cat "$RUN/tcpdump.err")"
}
# cap_stop: SIGINT and wait (tcpdump flushes and closes the file).
cap_stop() { kill -INT "$TD_PID" 2>/dev/null || true; wait "$TD_PID" 2>/dev/null || true; TD_PID=""; }
# cap_wait SECONDS: wait for a counted tcpdump to finish.
cap_wait() {
	local i
	for i in $(seq $(($1 * 10))); do
		kill -0 "$TD_PID" 2>/dev/null || { wait "$TD_PID" || true; TD_PID=""; return 0; }
		sleep 0.1
	done
	die "tcpdump did not see enough frames in $1 s"
}

# phase NAME DESCRIPTION...: note the wall-clock start of a scenario phase.
phase() {
	local name=$1; shift
	printf '%s\t%s\t%s\n' "$(date +%s.%N)" "$name" "$*" >>"$PHASES"
	log "  phase $name: $*"
}

# ----------------------------------------------------------------------------
# Independent pcap/LLDP reader (awk, no tshark) used for the sidecars and to
# check the exact DCBX bytes on the wire.
# ----------------------------------------------------------------------------

# pcap_dump FILE: one line per frame: "NO TS_EPOCH HEXBYTES" (classic pcap,
# little-endian, microsecond timestamps - what tcpdump -w writes here).
pcap_dump() {
	od -An -v -tx1 "$1" | awk '
	function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	function le(o) { return h(b[o+3]) * 16777216 + h(b[o+2]) * 65536 + h(b[o+1]) * 256 + h(b[o]) }
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	END {
		if (b[0] b[1] b[2] b[3] != "d4c3b2a1") { print "not a little-endian usec pcap" > "/dev/stderr"; exit 1 }
		o = 24; f = 0
		while (o + 16 <= n) {
			ts = le(o) + le(o + 4) / 1e6; len = le(o + 8); o += 16
			s = ""; for (i = 0; i < len; i++) s = s b[o + i]
			printf "%d %.6f %s\n", ++f, ts, s; o += len
		}
	}'
}

# lldp_tlvs: reads pcap_dump lines, prints per frame
#   "NO TS SRC TTL NAME ORG1 ORG2 ..." where ORGi = OUI/SUBTYPE=HEX (info after OUI+subtype)
lldp_tlvs() {
	awk '
	function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	function B(i) { return substr(x, 2 * i + 1, 2) }
	{
		x = $3; src = B(6) ":" B(7) ":" B(8) ":" B(9) ":" B(10) ":" B(11)
		o = 14; if (B(12) B(13) == "8100") o = 18
		ttl = "-"; name = "-"; orgs = ""
		while (2 * (o + 2) <= length(x)) {
			hd = h(B(o) B(o + 1)); t = int(hd / 512); l = hd % 512; o += 2
			if (t == 0) break
			v = substr(x, 2 * o + 1, 2 * l)
			if (t == 3) ttl = h(v)
			if (t == 5) { name = ""; for (i = 0; i < l; i++) { c = h(substr(v, 2 * i + 1, 2)); name = name ((c >= 33 && c < 127) ? sprintf("%c", c) : "?") } }
			if (t == 127) orgs = orgs " " substr(v, 1, 6) "/" h(substr(v, 7, 2)) "=" substr(v, 9)
			o += l
		}
		print $1, $2, src, ttl, name orgs
	}'
}

# ----------------------------------------------------------------------------
# Sidecar: phases (offset from the first frame) + per-frame table.
# ----------------------------------------------------------------------------
sidecar() {
	local pcap=$1 out=$2 title=$3 t0
	pcap_dump "$pcap" >"$RUN/dump"
	lldp_tlvs <"$RUN/dump" >"$RUN/tlvs"
	# per frame: "TS FLAG", FLAG 2 = first frame of this sender, 1 = bytes differ
	# from the sender's previous frame, 0 = identical (a pure TTL refresh)
	awk '{ k = substr($3, 13, 12); f = (k in prev) ? (prev[k] != $3) : 2; prev[k] = $3; print $2, f }' \
		"$RUN/dump" >"$RUN/ts"
	t0=$(awk 'NR == 1 { print $2 }' "$RUN/tlvs")
	{
		echo "# $(basename "$pcap"): $title"
		echo "# Recorded $(date -u +%Y-%m-%dT%H:%MZ) by testbed/record-fixtures.sh with lldpd $(lldpd -v) (TTL $TTL s, tx every ~1 s)."
		echo "# Offsets are seconds relative to frame 1. first_frame: first frame captured at or after the"
		echo "# phase start (may be a periodic frame sent just before a change took effect; after a link"
		echo "# cut it is the first frame once the link is back). new_content: first frame within the phase"
		echo "# whose bytes differ from the previous frame of the same sender, or the first frame of a new"
		echo "# sender ('-' if none). Timing is approximate (+-0.2 s); frame numbers can shift when re-recorded."
		echo "#"
		echo "# phase          offset_s first_frame new_content  what happens"
		awk -F'\t' -v t0="$t0" 'NR == FNR { split($0, a, " "); ts[FNR] = a[1]; ch[FNR] = a[2]; nf = FNR; next }
			{ st[++np] = $1; nm[np] = $2; ds[np] = $3 }
			END { for (p = 1; p <= np; p++) {
				ff = "-"; fc = "-"; end = (p < np) ? st[p + 1] : 1e18
				for (i = 1; i <= nf; i++) if (ts[i] >= st[p] - 0.0005) { ff = i; break }
				for (i = 1; i <= nf; i++) if (ts[i] >= st[p] - 0.0005 && ts[i] < end && ch[i]) { fc = i; break }
				printf "%-16s %7.2f %11s %11s  %s\n", nm[p], st[p] - t0, ff, fc, ds[p] } }' "$RUN/ts" "$PHASES"
		echo "#"
		echo "# Frames. ttl 0 = shutdown LLDPDU. DCBX = org TLVs as OUI/subtype (00-80-C2: 9 ETS, 10 RECO,"
		echo "# 11 PFC, 12 APP; 00-1B-21/2 CEE); '*' marks a frame whose bytes differ from the previous"
		echo "# frame of the same sender."
		echo "# no   offset_s  src                ttl  sysname        DCBX"
		awk -v t0="$t0" 'NR == FNR { fl[FNR] = $2; next } {
			orgs = ""; for (i = 6; i <= NF; i++) { split($i, a, "="); if (a[1] !~ /^00120f/) orgs = orgs " " a[1] }
			printf "%-4d %8.3f  %s  %3s  %-14s%s%s\n", $1, $2 - t0, $3, $4, $5, (fl[FNR] == 1) ? "*" : " ", orgs
		}' "$RUN/ts" "$RUN/tlvs"
		echo "#"
		echo "# DCBX TLV values (information after OUI+subtype, hex) and the frame where each"
		echo "# value first appears for that sender; a TLV absent from a later frame was removed."
		echo "# frame src                OUI/subtype value"
		awk '{ for (i = 6; i <= NF; i++) { split($i, a, "="); if (a[1] ~ /^00120f/) continue
			k = $3 " " a[1]; if (seen[k] != a[2]) { seen[k] = a[2]; printf "%-5d %s %-10s %s\n", $1, $3, a[1], a[2] } } }' "$RUN/tlvs"
	} >"$out"
}

# ----------------------------------------------------------------------------
# Captures
# ----------------------------------------------------------------------------
H=${TAG}h                    # host-side capture interface name (<= 15 chars)
P1=$TAG-p1 P2=$TAG-p2 BR=$TAG-br

# final FILE: move the freshly recorded $RUN/FILE into place.
# (tcpdump writes its file as user "tcpdump"; give it the repo's owner.)
final() {
	mkdir -p "$(dirname "$1")"
	mv -f "$RUN/$(basename "$1")" "$1"
	chown --reference=. "$1"; chmod 644 "$1"
}

rec_ieee_full() {
	log "lldpd-ieee-full.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/lldpd-ieee-full.pcap" 3
	lldpd_start "$P1" sw-ieee "dcbtop fixture: IEEE 802.1Qaz ETS+RECO+PFC+APP" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 10 oui-info $ETS_RECO" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_34" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info $APP_FULL"
	cap_wait 15
	teardown
	final "$LLDP_TD/lldpd-ieee-full.pcap"
}

rec_cee() {
	log "lldpd-cee.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/lldpd-cee.pcap" 3
	lldpd_start "$P1" sw-cee "dcbtop fixture: CEE DCBX (dcbx-reference 4.5)" \
		"configure lldp custom-tlv add oui 00,1b,21 subtype 2 oui-info $CEE"
	cap_wait 15
	teardown
	final "$LLDP_TD/lldpd-cee.pcap"
}

rec_plain() {
	log "lldpd-plain.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/lldpd-plain.pcap" 3
	lldpd_start "$P1" sw-plain "dcbtop fixture: plain LLDP, no DCBX"
	cap_wait 15
	teardown
	final "$LLDP_TD/lldpd-plain.pcap"
}

# Hostile strings: the system description (-S) carries "clear screen",
# an OSC set-title sequence terminated by BEL, another BEL, CR and LF; the
# hostname (set through lldpcli) carries an SGR colour sequence.
EVIL_DESCR=$'\e[2J\e]0;owned\a\x07evil\r\n'
EVIL_NAME=$'evil\e[31mhost\e[0m'
rec_hostile() {
	log "lldpd-hostile.pcap"
	direct_peer "$P1" "$H" "$MAC_EVIL" "$IP_EVIL"
	cap_start "$H" "$RUN/lldpd-hostile.pcap" 2
	lldpd_start "$P1" "$EVIL_NAME" "$EVIL_DESCR" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG"
	cap_wait 15
	teardown
	final "$LLDP_TD/lldpd-hostile.pcap"
}

rec_grow() {
	log "scenario-grow.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/scenario-grow.pcap"
	phase 1-ets "lldpd starts: ETS Configuration only (first receipt)"
	lldpd_start "$P1" sw-grow "dcbtop fixture: scenario grow" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG"
	sleep 3
	phase 2-pfc "add PFC (willing 0, cap 8, prio 3)"
	tlv "$P1" add 11 "$PFC_3"; sleep 3
	phase 3-app "add APP (udp 4791 -> prio 3)"
	tlv "$P1" add 12 "$APP_ROCE"; sleep 3
	phase 4-ets-bw "change only ETS bandwidths: 40/50/10 -> 30/60/10"
	tlv "$P1" replace 9 "$ETS_CFG_BW2"; sleep 3
	phase 5-pfc-chg "change only PFC: prio 3 -> prio 3+4"
	tlv "$P1" replace 11 "$PFC_34"; sleep 3
	phase 6-app-chg "change only APP: add dscp 26 -> prio 3"
	tlv "$P1" replace 12 "$APP_ROCE_DSCP"; sleep 3
	phase 7-reco "add ETS Recommendation"
	tlv "$P1" add 10 "$ETS_RECO"; sleep 3
	phase 8-shutdown "lldpd stopped with SIGTERM: shutdown LLDPDU (TTL 0)"
	lldpd_stop "$P1"; sleep 1
	cap_stop
	sidecar "$RUN/scenario-grow.pcap" "$RUN/scenario-grow.txt" "one peer whose DCBX TLVs grow and change one at a time"
	teardown
	final "$ENG_TD/scenario-grow.pcap"; final "$ENG_TD/scenario-grow.txt"
}

rec_multipeer() {
	log "scenario-multipeer.pcap"
	bridge_ns "$BR" "$H"
	bridge_peer "$BR" b1 "$P1" "$MAC_P1" "$IP_P1"
	bridge_peer "$BR" b2 "$P2" "$MAC_P2" "$IP_P2"
	cap_start "$H" "$RUN/scenario-multipeer.pcap"
	phase 1-peer1 "peer1 (sw-one) starts alone: ETS+PFC(prio 3)"
	lldpd_start "$P1" sw-one "dcbtop fixture: multipeer peer 1" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_3"
	sleep 4
	phase 2-peer2 "peer2 (sw-two) starts behind the same bridge: ETS(p3->TC3 60/40)+PFC(prio 3+4); multi-peer"
	lldpd_start "$P2" sw-two "dcbtop fixture: multipeer peer 2" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG_P2" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_34"
	sleep 4
	phase 3-cut-peer2 "peer2's bridge port b2 set down (no shutdown LLDPDU); peer1 continues alone for 2.5 x TTL"
	ip -n "$BR" link set b2 down
	sleep 10
	phase 4-shutdown "peer1 stopped with SIGTERM: shutdown LLDPDU (TTL 0)"
	lldpd_stop "$P1"; sleep 1
	cap_stop
	sidecar "$RUN/scenario-multipeer.pcap" "$RUN/scenario-multipeer.txt" "two peers behind a bridge (multi-peer), peer2 vanishes, peer1 shuts down"
	teardown
	final "$ENG_TD/scenario-multipeer.pcap"; final "$ENG_TD/scenario-multipeer.txt"
}

rec_ttl() {
	log "scenario-ttl.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/scenario-ttl.pcap"
	phase 1-up "lldpd starts: ETS+PFC(prio 3)"
	lldpd_start "$P1" sw-ttl "dcbtop fixture: scenario ttl" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_3"
	sleep 4
	phase 2-cut "p0 set down in the peer ns for 2 x TTL + 2 s (no frames, no shutdown LLDPDU)"
	ip -n "$P1" link set p0 down
	sleep $((2 * TTL + 2))
	phase 3-back "p0 up again: lldpd resumes sending (a new first receipt)"
	ip -n "$P1" link set p0 up
	sleep 4
	phase 4-shutdown "lldpd stopped with SIGTERM: shutdown LLDPDU (TTL 0)"
	lldpd_stop "$P1"; sleep 1
	cap_stop
	sidecar "$RUN/scenario-ttl.pcap" "$RUN/scenario-ttl.txt" "one peer, link cut until its TTL expires, peer returns, clean shutdown"
	teardown
	final "$ENG_TD/scenario-ttl.pcap"; final "$ENG_TD/scenario-ttl.txt"
}

rec_willing() {
	log "scenario-willing.pcap"
	direct_peer "$P1" "$H" "$MAC_P1" "$IP_P1"
	cap_start "$H" "$RUN/scenario-willing.pcap"
	phase 1-notwilling "lldpd starts: ETS (willing 0) + PFC willing 0, prio 3"
	lldpd_start "$P1" sw-willing "dcbtop fixture: scenario willing" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_3"
	sleep 3
	phase 2-willing "PFC becomes willing 1, prio 3+4 (ETS unchanged)"
	tlv "$P1" replace 11 "$PFC_W34"; sleep 3
	phase 3-end "capture stopped (lldpd still running; no shutdown LLDPDU)"
	cap_stop
	sidecar "$RUN/scenario-willing.pcap" "$RUN/scenario-willing.txt" "PFC willing bit flips from 0 to 1 together with a PFC change"
	teardown
	final "$ENG_TD/scenario-willing.pcap"; final "$ENG_TD/scenario-willing.txt"
}

rec_demo() {
	log "demo.pcap (~60 s)"
	bridge_ns "$BR" "$H"
	bridge_peer "$BR" b1 "$P1" "$MAC_P1" "$IP_P1"
	bridge_peer "$BR" b2 "$P2" "$MAC_P2" "$IP_P2"
	cap_start "$H" "$RUN/demo.pcap"
	phase 1-first "leaf-1 starts: ETS+RECO+PFC(prio 3)+APP (first receipt)"
	lldpd_start "$P1" leaf-1 "dcbtop demo: leaf-1 (RoCE fabric)" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 10 oui-info $ETS_RECO" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_3" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info $APP_FULL"
	sleep 8
	phase 2-pfc "leaf-1 PFC prio 3 -> prio 3+4"
	tlv "$P1" replace 11 "$PFC_34"; sleep 7
	phase 3-reco "leaf-1 ETS Recommendation changes"
	tlv "$P1" replace 10 "$ETS_RECO2"; sleep 7
	phase 4-peer2 "leaf-2 appears through the bridge: multi-peer"
	lldpd_start "$P2" leaf-2 "dcbtop demo: leaf-2 (misplugged)" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS_CFG_P2" \
		"configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC_34"
	sleep 8
	phase 5-peer2-gone "leaf-2's bridge port cut (no shutdown); its TTL runs out while leaf-1 continues"
	ip -n "$BR" link set b2 down
	sleep 10
	phase 6-cut "leaf-1's bridge port cut: nothing arrives until its TTL runs out (host link stays up)"
	ip -n "$BR" link set b1 down
	sleep 10
	phase 7-back "leaf-1's bridge port back up: leaf-1 returns (new first receipt)"
	ip -n "$BR" link set b1 up
	sleep 8
	phase 8-shutdown "leaf-1 stopped with SIGTERM: shutdown LLDPDU (TTL 0)"
	lldpd_stop "$P1"; sleep 1
	cap_stop
	sidecar "$RUN/demo.pcap" "$RUN/demo.txt" "lively ~60 s demo session"
	teardown
	final "$ASSETS/demo.pcap"; final "$ASSETS/demo.txt"
}

# ----------------------------------------------------------------------------
# Verification (tshark decode + raw bytes)
# ----------------------------------------------------------------------------
FAIL=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then log "  ok   $1"; else log "  FAIL $1"; FAIL=1; fi
}
# fields FILE FRAME FIELD...: tshark field values of one frame, ';'-separated
# (a field occurring several times gives a ','-separated list).
fields() {
	local f=$1 n=$2 e=() x; shift 2
	for x in "$@"; do e+=(-e "$x"); done
	tshark -r "$f" -Y "frame.number == $n" -T fields -E separator=';' "${e[@]}" 2>/dev/null
}
want() { [ "$1" = "$2" ] || { log "       got  $1"; log "       want $2"; return 1; }; }
# org_hex FILE FRAME OUI SUBTYPE: raw info bytes after OUI+subtype.
org_hex() { pcap_dump "$1" | lldp_tlvs | awk -v f="$2" -v k="$3/$4=" '$1 == f { for (i = 6; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }'; }
same_bytes() { [ "$(org_hex "$1" "$2" "$3" "$4")" = "$(tr -d , <<<"$5")" ] || { log "       got $(org_hex "$1" "$2" "$3" "$4"), want $(tr -d , <<<"$5")"; return 1; }; }
ttls() { tshark -r "$1" -T fields -e lldp.time_to_live 2>/dev/null | sort -u | tr '\n' ' '; }
nframes() { tshark -r "$1" 2>/dev/null | wc -l; }
shutdowns() { tshark -r "$1" -Y 'lldp.time_to_live == 0' -T fields -e frame.number 2>/dev/null | tr '\n' ' '; }
only_from() { # all frames come from the given MACs, to the nearest-bridge address
	local f=$1 bad; shift
	bad=$(tshark -r "$f" -T fields -e eth.src -e eth.dst 2>/dev/null | awk -v ok=" $* " 'index(ok, " " $1 " ") == 0 || $2 != "01:80:c2:00:00:0e"')
	[ -z "$bad" ] || { log "       unexpected frames: $bad"; return 1; }
}

# present FILE: exists and is a classic pcap with Ethernet link type.
present() {
	[ -f "$1" ] || { log " $1: not present, skipped"; return 1; }
	log " $1"
	check "classic pcap, Ethernet" test "$(capinfos -t -E "$1" 2>/dev/null | awk -F': *' '/File type|encapsulation/ { printf "%s;", $2 }')" = "Wireshark/tcpdump/... - pcap;Ethernet;"
}

verify() {
	local f t
	log "verifying"

	f=$LLDP_TD/lldpd-ieee-full.pcap
	if present "$f"; then
		check "3 frames, TTL $TTL" test "$(nframes "$f") $(ttls "$f")" = "3 $TTL "
		check "ETS cfg bytes" same_bytes "$f" 1 0080c2 9 "$ETS_CFG"
		check "ETS reco bytes" same_bytes "$f" 1 0080c2 10 "$ETS_RECO"
		check "PFC bytes" same_bytes "$f" 1 0080c2 11 "$PFC_34"
		check "APP bytes" same_bytes "$f" 1 0080c2 12 "$APP_FULL"
		# tshark 4.0 reuses the CEE field names for the IEEE ETS tables
		# (pgid_prioN = priority -> TC, perN = TC bandwidth); each field
		# lists the ETS Configuration value first, then the Recommendation.
		# Note: it labels APP selector 5 (DSCP) "Reserved".
		t=$(fields "$f" 1 lldp.dcbx.ieee.willing lldp.dcbx.ieee.ets.cbs lldp.dcbx.ieee.ets.maxtcs \
			lldp.dcbx.feature.pg.pgid_prio{0..7} lldp.dcbx.feature.pg.per{0..7} lldp.dcbx.ieee.ets.tsa{0..7})
		check "tshark ETS cfg+reco" want "$t" "0,0;0;0;0,0;0,0;0,0;1,1;0,1;2,0;0,2;0,0;40,30;50,70;10,0;0,0;0,0;0,0;0,0;0,0;2,2;2,2;2,0;0,0;0,0;0,0;0,0;0,0"
		t=$(fields "$f" 1 lldp.dcbx.ieee.pfc.mbc lldp.dcbx.ieee.pfc.numtcs lldp.dcbx.feature.pfc.prio{0..7})
		check "tshark PFC" want "$t" "0;8;0;0;0;1;1;0;0;0"
		t=$(fields "$f" 1 lldp.dcbx.ieee.app.prio lldp.dcbx.iee.app.sf lldp.dcbx.feature.app.proto)
		check "tshark APP" want "$t" "3,3,4,2,3,5;1,3,2,4,5,5;0x8906,0x12b7,0x0cbc,0x1144,0x001a,0x002e"
		t=$(fields "$f" 1 lldp.tlv.system.name lldp.time_to_live lldp.chassis.id.mac lldp.port.id.mac)
		check "tshark identity" want "$t" "sw-ieee;$TTL;$MAC_P1;$MAC_P1"
		check "only peer frames" only_from "$f" "$MAC_P1"
	fi

	f=$LLDP_TD/lldpd-cee.pcap
	if present "$f"; then
		check "3 frames, TTL $TTL" test "$(nframes "$f") $(ttls "$f")" = "3 $TTL "
		check "CEE bytes" same_bytes "$f" 1 001b21 2 "$CEE"
		t=$(fields "$f" 1 lldp.dcbx.control.seq lldp.dcbx.control.ack lldp.dcbx.version lldp.dcbx.max_version \
			lldp.dcbx.feature.enabled lldp.dcbx.feature.willing lldp.dcbx.feature.error lldp.dcbx.feature.subtype)
		check "tshark CEE control+flags" want "$t" "3;2;0x00,0x00,0x00,0x00;0x00,0x00,0x00,0x00;1,1,1;1,1,1;0,0,1;0x00,0x00,0x00"
		t=$(fields "$f" 1 lldp.dcbx.feature.pg.pgid_prio{0..7} lldp.dcbx.feature.pg.per{0..7} lldp.dcbx.feature.pg.numtcs)
		check "tshark CEE PG" want "$t" "0;0;0;0;1;1;1;15;25;75;0;0;0;0;0;0;0x08"
		t=$(fields "$f" 1 lldp.dcbx.feature.pfc.prio{0..7} lldp.dcbx.feature.pfc.numtcs)
		check "tshark CEE PFC" want "$t" "0;0;0;1;0;0;0;0;0x08"
		t=$(fields "$f" 1 lldp.dcbx.feature.app.proto lldp.dcbx.feature.app.sf lldp.dcbx.feature.app.prio)
		check "tshark CEE APP" want "$t" "0x8906,0x0cbc,0x8914;0,1,0;3,3,3"
		check "only peer frames" only_from "$f" "$MAC_P1"
	fi

	f=$LLDP_TD/lldpd-plain.pcap
	if present "$f"; then
		check "3 frames, TTL $TTL" test "$(nframes "$f") $(ttls "$f")" = "3 $TTL "
		check "no 00-80-C2 / 00-1B-21 TLVs" test -z "$(pcap_dump "$f" | lldp_tlvs | grep -E ' (0080c2|001b21)/')"
		check "sysname sw-plain" test "$(tshark -r "$f" -T fields -e lldp.tlv.system.name 2>/dev/null | sort -u)" = sw-plain
	fi

	f=$LLDP_TD/lldpd-hostile.pcap
	if present "$f"; then
		check "2 frames, TTL $TTL" test "$(nframes "$f") $(ttls "$f")" = "2 $TTL "
		check "raw ESC/BEL/CR/LF in sysdescr" bash -c "od -An -tx1 -v '$f' | tr -d ' \n' | grep -q '1b5b324a1b5d303b6f776e656407076576696c0d0a'"
		check "raw ESC in sysname" bash -c "od -An -tx1 -v '$f' | tr -d ' \n' | grep -q '6576696c1b5b33316d686f73741b5b306d'"
		check "ETS cfg bytes" same_bytes "$f" 1 0080c2 9 "$ETS_CFG"
	fi

	f=$ENG_TD/scenario-grow.pcap
	if present "$f"; then
		check "shutdown LLDPDU is the last frame" test "$(shutdowns "$f")" = "$(nframes "$f" | tr -d ' ') "
		check "TTLs $TTL and 0" test "$(ttls "$f")" = "0 $TTL "
		check "final bytes ETS" same_bytes "$f" "$(($(nframes "$f") - 1))" 0080c2 9 "$ETS_CFG_BW2"
		check "final bytes PFC" same_bytes "$f" "$(($(nframes "$f") - 1))" 0080c2 11 "$PFC_34"
		check "final bytes APP" same_bytes "$f" "$(($(nframes "$f") - 1))" 0080c2 12 "$APP_ROCE_DSCP"
		check "final bytes RECO" same_bytes "$f" "$(($(nframes "$f") - 1))" 0080c2 10 "$ETS_RECO"
		check "first frame ETS only" test "$(pcap_dump "$f" | lldp_tlvs | awk '$1 == 1' | grep -o ' 0080c2/[0-9]*' | tr -d '\n')" = " 0080c2/9"
		check "only peer frames" only_from "$f" "$MAC_P1"
	fi

	f=$ENG_TD/scenario-multipeer.pcap
	if present "$f"; then
		check "one shutdown LLDPDU (last frame, from peer1)" test "$(tshark -r "$f" -Y 'lldp.time_to_live == 0' -T fields -e frame.number -e eth.src 2>/dev/null | tr '\t\n' '  ')" = "$(nframes "$f" | tr -d ' ') $MAC_P1 "
		check "both peers present" test "$(tshark -r "$f" -T fields -e lldp.tlv.system.name 2>/dev/null | grep . | sort -u | tr '\n' ' ')" = "sw-one sw-two "
		check "only peer frames" only_from "$f" "$MAC_P1" "$MAC_P2"
	fi

	f=$ENG_TD/scenario-ttl.pcap
	if present "$f"; then
		check "one shutdown LLDPDU (last frame)" test "$(shutdowns "$f")" = "$(nframes "$f" | tr -d ' ') "
		check "gap > 2 x TTL" test "$(tshark -r "$f" -T fields -e frame.time_delta 2>/dev/null | awk -v m=$((2 * TTL)) '$1 > m { n++ } END { print n + 0 }')" = 1
		check "only peer frames" only_from "$f" "$MAC_P1"
	fi

	f=$ENG_TD/scenario-willing.pcap
	if present "$f"; then
		check "no shutdown" test -z "$(shutdowns "$f")"
		check "first PFC not willing" same_bytes "$f" 1 0080c2 11 "$PFC_3"
		check "last PFC willing 3+4" same_bytes "$f" "$(nframes "$f" | tr -d ' ')" 0080c2 11 "$PFC_W34"
		check "tshark: willing No then Yes" test "$(tshark -r "$f" -T fields -e lldp.dcbx.ieee.willing 2>/dev/null | awk -F, '{ print $NF }' | uniq | tr '\n' ' ')" = "0 1 "
		check "only peer frames" only_from "$f" "$MAC_P1"
	fi

	f=$ASSETS/demo.pcap
	if present "$f"; then
		check "one shutdown LLDPDU (last frame, leaf-1)" test "$(tshark -r "$f" -Y 'lldp.time_to_live == 0' -T fields -e frame.number -e eth.src 2>/dev/null | tr '\t\n' '  ')" = "$(nframes "$f" | tr -d ' ') $MAC_P1 "
		check "both peers present" test "$(tshark -r "$f" -T fields -e lldp.tlv.system.name 2>/dev/null | grep . | sort -u | tr '\n' ' ')" = "leaf-1 leaf-2 "
		check "duration 50-65 s" test "$(capinfos -u "$f" 2>/dev/null | awk '/duration/ { print ($3 >= 50 && $3 <= 65) }')" = 1
		check "only peer frames" only_from "$f" "$MAC_P1" "$MAC_P2"
	fi

	[ "$FAIL" = 0 ] || die "verification failed"
	log "all checks passed"
}

tshark_json() {
	local f
	for f in lldpd-ieee-full lldpd-cee lldpd-plain lldpd-hostile; do
		[ -f "$LLDP_TD/$f.pcap" ] || continue
		tshark -r "$LLDP_TD/$f.pcap" -T json 2>/dev/null >"$LLDP_TD/$f.tshark.json"
		chown --reference=. "$LLDP_TD/$f.tshark.json"; chmod 644 "$LLDP_TD/$f.tshark.json"
	done
}

# ----------------------------------------------------------------------------
main() {
	local all="ieee-full cee plain hostile grow multipeer ttl willing demo" what c
	[ "$(id -u)" = 0 ] || die "must run as root"
	for c in lldpd lldpcli tcpdump tshark capinfos ip od awk; do
		command -v "$c" >/dev/null || die "missing $c (apt-get install lldpd tcpdump tshark iproute2)"
	done
	if [ "${1:-}" = --verify ]; then verify; exit; fi
	what=${*:-$all}
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	RUN=$(mktemp -d /tmp/dcbtop-fixtures.XXXXXX)
	chmod 755 "$RUN"   # lldpd runs lldpcli unprivileged; it must reach the socket and config
	for c in $what; do
		case $c in
		ieee-full) rec_ieee_full ;; cee) rec_cee ;; plain) rec_plain ;; hostile) rec_hostile ;;
		grow) rec_grow ;; multipeer) rec_multipeer ;; ttl) rec_ttl ;; willing) rec_willing ;;
		demo) rec_demo ;;
		*) die "unknown capture '$c' (known: $all)" ;;
		esac
	done
	# Check the TTL assumption used for the scenario timings.
	local f; for f in "$LLDP_TD"/lldpd-*.pcap; do
		[ -f "$f" ] || continue
		[ "$(ttls "$f")" = "$TTL " ] || die "lldpd advertised TTL $(ttls "$f") in $f, expected $TTL; adjust TTL"
	done
	tshark_json
	verify
}

main "$@"
