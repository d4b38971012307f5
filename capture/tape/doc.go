// SPDX-License-Identifier: Apache-2.0

// Package tape is what a dcbtop recording holds besides LLDPDUs: every
// input a run reads from the host, recorded when it is read (`dcbtop -w`,
// `dcbtop bundle`), and served back to the same readers when the
// recording is replayed (`dcbtop -r`). The format is documented in
// docs/recording.md; in short, a recording stays one pcapng file:
//
//   - each DCB, ethtool and RDMA netlink exchange is two packets on an
//     interface of link type LINKTYPE_NETLINK (253) named "dcbtop:netlink":
//     the request (outgoing), then every message of the reply (incoming),
//     each behind the 16-byte Linux cooked header that Wireshark's netlink
//     dissector reads (as on an nlmon interface), so tshark decodes them;
//   - every other input is a record on an interface of link type
//     LINKTYPE_USER0 (147) named "dcbtop:host": a magic number, a format
//     version, a kind, then tagged fields. A reader skips a kind or a tag
//     it does not know, so a newer recording still replays in an older
//     dcbtop as far as that one can read it.
//
// Reads happen in rounds: the opening of the host's readers (RoundOpen),
// one counters sample of an interface (RoundCounters), one reading of an
// interface's local DCB parameters (RoundDCB). A round is a Begin record,
// the raw inputs read during it, and an End; a replay runs the same reader
// again at the round's time, with a Deck answering from the round's
// inputs. Single records stand for themselves: the host's LLDP agents
// observed (Observed), link changes (Link) and what the run learnt of
// another dcbtop agent's local parameters through its control socket
// (Local).
//
// Recording never changes what a run reads or decides: a Tap collects a
// round's inputs beside the readers (hostfs.Recording, the netlink
// clients' recorders, RecordingEthtool), and the run writes them to the
// file from the goroutine that writes frames.
package tape
