// SPDX-License-Identifier: Apache-2.0

// Command gen makes the inputs of bench/run: classic pcap files of LLDPDUs,
// a trafgen configuration for a flood of non-LLDP frames, and LLDPDUs sent
// live on an interface through an AF_PACKET socket.
//
//	gen pcap -o FILE -n FRAMES [-peers P] [-shutdown]
//	gen trafgen -o FILE
//	gen send -i IFACE -mode peer|msap [-rate R] [-duration D] [-count N] [-ttl T] [-vary]
//
// gen send prints the number of LLDPDUs it sent on stdout when it ends
// (after -count frames, after -duration, or on SIGINT/SIGTERM).
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "pcap":
		err = cmdPcap(os.Args[2:])
	case "trafgen":
		err = cmdTrafgen(os.Args[2:])
	case "send":
		err = cmdSend(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gen pcap -o FILE -n FRAMES [-peers P] | gen trafgen -o FILE | gen send -i IFACE -mode peer|msap [...]")
	os.Exit(2)
}

// peerMAC is the source MAC (and MAC chassis ID) of peer p.
func peerMAC(p int) lldp.MAC {
	return lldp.MAC{0x02, 0xbe, 0x00, 0x00, byte(p >> 8), byte(p)}
}

// bandwidths are the ETS configurations a peer alternates between.
var bandwidths = [][8]uint8{{50, 50}, {40, 60}, {30, 60, 10}, {60, 30, 10}}

// du is a DCBX LLDPDU: IEEE ETS configuration (bandwidth bw), ETS
// recommendation, PFC and APP, from the given chassis ID.
func du(chassis lldp.ChassisID, name string, ttl uint16, bw [8]uint8) *lldp.DU {
	tsa := [8]lldp.TSA{}
	for i := range tsa {
		tsa[i] = lldp.TSAStrict
		if bw[i] != 0 {
			tsa[i] = lldp.TSAETS
		}
	}
	return &lldp.DU{
		ChassisID: chassis,
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs: []lldp.TLV{
			&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: name},
			&lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 2}, Bandwidth: bw, TSA: tsa},
			&lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 1, 2}, Bandwidth: [8]uint8{30, 60, 10}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict}},
			&lldp.PFC{Cap: 8, Enabled: 1 << 3},
			&lldp.AppPriority{Entries: []lldp.AppEntry{
				{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791},
				{Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26},
				{Priority: 4, Selector: lldp.AppSelTCP, Protocol: 3260},
			}},
		},
	}
}

func peerFrame(p int, ttl uint16, bw [8]uint8) ([]byte, error) {
	src := peerMAC(p)
	d := du(lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]}, fmt.Sprintf("leaf-%d", p), ttl, bw)
	return lldp.AppendFrame(nil, lldp.NearestBridge, src, d)
}

// cmdPcap writes n LLDPDUs, 1 s apart in capture time, from peers peers in
// round robin; the ETS bandwidth changes every 100th frame. With -shutdown
// each peer then sends a shutdown LLDPDU (TTL 0), so that nothing is left
// to count down when a replay ends.
func cmdPcap(args []string) error {
	fs := flag.NewFlagSet("pcap", flag.ExitOnError)
	out := fs.String("o", "", "output file")
	n := fs.Int("n", 100000, "LLDPDUs")
	peers := fs.Int("peers", 1, "peers (round robin)")
	shutdown := fs.Bool("shutdown", false, "end with a shutdown LLDPDU from each peer")
	fs.Parse(args)
	if *out == "" || *n <= 0 || *peers <= 0 || *peers > 65535 {
		return fmt.Errorf("pcap: need -o, -n > 0, 0 < -peers < 65536")
	}
	frames := make(map[[2]int][]byte) // (peer, bandwidth variant)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [24]byte
	le := binary.LittleEndian
	le.PutUint32(hdr[0:], 0xa1b2c3d4)
	le.PutUint16(hdr[4:], 2)
	le.PutUint16(hdr[6:], 4)
	le.PutUint32(hdr[16:], 65535)
	le.PutUint32(hdr[20:], 1) // LINKTYPE_ETHERNET
	w.Write(hdr[:])
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Unix()
	var rec [16]byte
	write := func(i int, b []byte) {
		le.PutUint32(rec[0:], uint32(start+int64(i)))
		le.PutUint32(rec[4:], 0)
		le.PutUint32(rec[8:], uint32(len(b)))
		le.PutUint32(rec[12:], uint32(len(b)))
		w.Write(rec[:])
		w.Write(b)
	}
	for i := range *n {
		p, v := i%*peers, (i/100)%len(bandwidths)
		b, ok := frames[[2]int{p, v}]
		if !ok {
			if b, err = peerFrame(p, 120, bandwidths[v]); err != nil {
				return err
			}
			frames[[2]int{p, v}] = b
		}
		write(i, b)
	}
	if *shutdown {
		for p := range *peers {
			b, err := peerFrame(p, 0, bandwidths[0])
			if err != nil {
				return err
			}
			write(*n+p, b)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// cmdTrafgen writes a trafgen configuration of three IPv4/UDP broadcast
// frames of 64, 96 and 128 bytes (FCS excluded), which trafgen cycles through.
func cmdTrafgen(args []string) error {
	fs := flag.NewFlagSet("trafgen", flag.ExitOnError)
	out := fs.String("o", "", "output file")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("trafgen: need -o")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "/* dcbtop bench: IPv4/UDP broadcast frames (generated by bench/gen) */")
	for _, size := range []int{64, 96, 128} {
		fr := udpBroadcast(size)
		fmt.Fprintln(w, "{")
		for i, c := range fr {
			fmt.Fprintf(w, "0x%02x,", c)
			if i%16 == 15 {
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintln(w, "\n}")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func udpBroadcast(size int) []byte {
	b := make([]byte, size)
	copy(b[0:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	copy(b[6:], []byte{0x02, 0xbe, 0xff, 0x00, 0x00, 0x01})
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[14:34]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(size-14))
	ip[8] = 64                                // TTL
	ip[9] = 17                                // UDP
	copy(ip[12:], []byte{192, 0, 2, 1})       // TEST-NET-1 source, never routed
	copy(ip[16:], []byte{255, 255, 255, 255}) // limited broadcast
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	udp := b[34:]
	binary.BigEndian.PutUint16(udp[0:], 40000)
	binary.BigEndian.PutUint16(udp[2:], 9) // discard
	binary.BigEndian.PutUint16(udp[4:], uint16(size-34))
	// checksum 0: none (IPv4)
	return b
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// cmdSend sends LLDPDUs on an interface.
//
//	-mode peer: one peer (MAC chassis ID) at -rate LLDPDUs/s; with -vary
//	  each LLDPDU's ETS bandwidth differs from the previous one, so each
//	  yields an indication.
//	-mode msap: a new chassis ID (MSAP) for every LLDPDU, at -rate/s.
func cmdSend(args []string) error {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	ifname := fs.String("i", "", "interface")
	mode := fs.String("mode", "peer", "peer or msap")
	rate := fs.Float64("rate", 1, "LLDPDUs per second")
	duration := fs.Duration("duration", 0, "stop after this long (0: -count or a signal)")
	count := fs.Int("count", 0, "stop after this many LLDPDUs (0: no limit)")
	ttl := fs.Uint("ttl", 120, "TTL of the LLDPDUs")
	vary := fs.Bool("vary", false, "peer: change the ETS bandwidth in every LLDPDU")
	fs.Parse(args)
	if *ifname == "" || *rate <= 0 {
		return fmt.Errorf("send: need -i and -rate > 0")
	}
	ifi, err := net.InterfaceByName(*ifname)
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, 0)
	if err != nil {
		return fmt.Errorf("AF_PACKET socket: %w", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(lldp.EtherType), Ifindex: ifi.Index}); err != nil {
		return fmt.Errorf("bind %s: %w", *ifname, err)
	}

	var next func(i int) []byte
	switch *mode {
	case "peer":
		// Every frame it may send, made before sending starts.
		var variants [][]byte
		for x := range 101 {
			bw := bandwidths[0]
			if *vary {
				bw = [8]uint8{uint8(x), 100 - uint8(x)}
			}
			b, err := peerFrame(0, uint16(*ttl), bw)
			if err != nil {
				return err
			}
			variants = append(variants, b)
			if !*vary {
				break
			}
		}
		next = func(i int) []byte { return variants[i%len(variants)] }
	case "msap":
		// Locally assigned chassis ID "msap" + 8 hex digits, patched in place.
		d := du(lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeLocallyAssigned, ID: []byte("msap00000000")}, "hostile", uint16(*ttl), bandwidths[0])
		tmpl, err := lldp.AppendFrame(nil, lldp.NearestBridge, peerMAC(0xffff), d)
		if err != nil {
			return err
		}
		const off = 14 + 2 + 1 + 4 // Ethernet, TLV header, subtype, "msap"
		if string(tmpl[off-4:off]) != "msap" {
			return fmt.Errorf("msap: template layout unexpected")
		}
		const hexd = "0123456789abcdef"
		next = func(i int) []byte {
			for k := range 8 {
				tmpl[off+k] = hexd[(uint32(i)>>(28-4*k))&0xf]
			}
			return tmpl
		}
	default:
		return fmt.Errorf("send: unknown -mode %q", *mode)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	var deadline time.Time
	if *duration > 0 {
		deadline = start.Add(*duration)
	}
	sent, failed := 0, 0
	defer func() { fmt.Println(sent) }()
	interval := time.Duration(float64(time.Second) / *rate)
	tick := max(interval, time.Millisecond)
	for {
		now := time.Now()
		if !deadline.IsZero() && !now.Before(deadline) {
			break
		}
		// Everything due by now (a batch at high rates, one at low ones).
		due := int(now.Sub(start)/interval) + 1
		for sent < due && (*count == 0 || sent < *count) {
			if _, err := syscall.Write(fd, next(sent)); err != nil {
				if err == syscall.ENOBUFS || err == syscall.EAGAIN {
					failed++
					break
				}
				return fmt.Errorf("send: %w", err)
			}
			sent++
		}
		if *count > 0 && sent >= *count {
			break
		}
		select {
		case <-sig:
			return nil
		case <-time.After(min(tick, time.Until(start.Add(time.Duration(due)*interval)))):
		}
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "gen send: %d sends refused (ENOBUFS/EAGAIN), retried\n", failed)
	}
	return nil
}
