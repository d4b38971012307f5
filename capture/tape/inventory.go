// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"context"
	"errors"
	"io"
	"math"
	"os"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// An Inventory is what a recording holds (dcbtop bundle says it).
type Inventory struct {
	// Frames counts the LLDPDU frames of each interface, by direction.
	Frames map[string]*FrameCount
	// Rounds counts the rounds of reads, by what they are for.
	Rounds map[Round]int
	// Netlink, Files and Ethtool count the inputs in the rounds: netlink
	// exchanges, file operations, ethtool answers.
	Netlink, Files, Ethtool int
	// Observed and Links count the host's observations and link changes;
	// Locals what the run learnt of other dcbtop agents' local
	// parameters (their answers and withdrawals).
	Observed, Links, Locals int
	// Unknown counts the host records of kinds this version does not
	// know.
	Unknown int
	// Bytes is the file's size.
	Bytes int64
}

// A FrameCount is an interface's frames by direction.
type FrameCount struct{ In, Out, Unknown int }

// ReadInventory reads the recording at path to its end and says what it
// holds. A recording that is not whole is an error naming the record.
func ReadInventory(path string) (Inventory, error) {
	inv := Inventory{Frames: map[string]*FrameCount{}, Rounds: map[Round]int{}}
	if fi, err := os.Stat(path); err == nil {
		inv.Bytes = fi.Size()
	}
	src, err := pcap.Open(path)
	if err != nil {
		return inv, err
	}
	defer src.Close()
	var rd Reader
	frames := 0
	take := func(limit int) error {
		for p, ok := src.NextHost(limit); ok; p, ok = src.NextHost(limit) {
			it, done, err := rd.Add(p)
			if err != nil {
				return err
			}
			if done {
				inv.count(it)
			}
		}
		return nil
	}
	for {
		f, err := src.ReadFrame(context.Background())
		if herr := take(frames); herr != nil {
			return inv, herr
		}
		if errors.Is(err, pcap.ErrHostPending) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if err := take(math.MaxInt); err != nil {
				return inv, err
			}
			inv.Unknown = rd.Unknown
			return inv, rd.End()
		}
		if err != nil {
			return inv, err
		}
		frames++
		c := inv.Frames[f.Interface]
		if c == nil {
			c = &FrameCount{}
			inv.Frames[f.Interface] = c
		}
		switch f.Dir {
		case capture.DirectionIncoming:
			c.In++
		case capture.DirectionOutgoing:
			c.Out++
		default:
			c.Unknown++
		}
	}
}

// count adds an Item.
func (inv *Inventory) count(it Item) {
	if it.Round == nil {
		switch it.Rec.(type) {
		case Observed:
			inv.Observed++
		case Link:
			inv.Links++
		case Local:
			inv.Locals++
		}
		return
	}
	inv.Rounds[it.Round.Round]++
	for _, r := range it.Recs {
		switch r.(type) {
		case Netlink:
			inv.Netlink++
		case File:
			inv.Files++
		case Ethtool, Tunable:
			inv.Ethtool++
		}
	}
}
