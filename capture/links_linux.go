// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// linkListAttempts is how many times interfaces lists the links when the
// kernel reports that the list changed while it was being read.
const linkListAttempts = 5

func interfaces() ([]Link, error) {
	var (
		all []netlink.Link
		err error
	)
	for range linkListAttempts {
		if all, err = netlink.LinkList(); !errors.Is(err, netlink.ErrDumpInterrupted) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("list links: %w", errnoOf(err))
	}
	var links []Link
	for _, l := range all {
		if k, ok := linkOf(l); ok && k.Up {
			links = append(links, k)
		}
	}
	slices.SortFunc(links, func(a, b Link) int { return strings.Compare(a.Name, b.Name) })
	return links, nil
}

// linkOf returns the Link of l, or false if l is not an Ethernet link with
// a 6-byte MAC address or is a loopback.
func linkOf(l netlink.Link) (Link, bool) {
	a := l.Attrs()
	if a == nil || a.EncapType != "ether" || len(a.HardwareAddr) != 6 || a.RawFlags&unix.IFF_LOOPBACK != 0 {
		return Link{}, false
	}
	k := Link{
		Name:  a.Name,
		Index: a.Index,
		Up:    a.RawFlags&unix.IFF_UP != 0 && a.RawFlags&unix.IFF_RUNNING != 0,
		MTU:   a.MTU,
	}
	if v, ok := l.(*netlink.Vlan); ok {
		k.VLAN, k.Parent = v.VlanId, a.ParentIndex
	}
	copy(k.MAC[:], a.HardwareAddr)
	if len(a.PermHWAddr) == 6 {
		copy(k.PermMAC[:], a.PermHWAddr)
	}
	return k, true
}

func watchLinks(ctx context.Context, out chan<- LinkEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}

	// The subscription's goroutine reports errors through the callback.
	// The last one before it closes updates is why it stopped; those it
	// survives (a message it could not decode) are dropped.
	var (
		mu       sync.Mutex
		lastErr  error
		stopping bool // errors are those of closing the socket
	)
	onError := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if !stopping {
			lastErr = err
		}
	}
	updates := make(chan netlink.LinkUpdate, 16)
	done := make(chan struct{})
	err := netlink.LinkSubscribeWithOptions(updates, done, netlink.LinkSubscribeOptions{
		ListExisting:  true,
		ErrorCallback: onError,
	})
	if err != nil {
		close(done)
		return fmt.Errorf("watch links: %w", errnoOf(err))
	}
	defer func() {
		mu.Lock()
		stopping = true
		mu.Unlock()
		close(done) // closes the socket
		for range updates {
			// Drain until the subscription's goroutine exits: it may be
			// blocked sending.
		}
	}()

	known := make(map[int]Link)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case u, ok := <-updates:
			if !ok {
				mu.Lock()
				err := lastErr
				mu.Unlock()
				return watchError(err)
			}
			ev, ok := linkEvent(known, u, time.Now())
			if !ok {
				continue
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// linkEvent returns the event of u, or false if u is about a link that is
// not a Link or changes nothing a Link shows. known holds the last state
// sent of each link by index; linkEvent updates it.
func linkEvent(known map[int]Link, u netlink.LinkUpdate, at time.Time) (LinkEvent, bool) {
	index := int(u.Index)
	if u.Header.Type == unix.RTM_DELLINK {
		k, ok := known[index]
		if !ok {
			return LinkEvent{}, false
		}
		delete(known, index)
		return LinkEvent{Link: k, Removed: true, At: at}, true
	}
	k, ok := linkOf(u.Link)
	if !ok {
		return LinkEvent{}, false
	}
	if prev, ok := known[index]; ok && prev == k {
		return LinkEvent{}, false
	}
	known[index] = k
	return LinkEvent{Link: k, At: at}, true
}

// watchError returns the error of WatchLinks for the error that ended the
// subscription. vishvananda/netlink formats it as "Receive failed: <errno
// text>", without wrapping.
func watchError(err error) error {
	if err == nil {
		return errors.New("watch links: the kernel closed the notification socket")
	}
	if rest, ok := strings.CutPrefix(err.Error(), "Receive failed: "); ok {
		return fmt.Errorf("watch links: receive: %s", rest)
	}
	return fmt.Errorf("watch links: %w", err)
}

func linkByName(name string) (Link, error) {
	l, err := netlink.LinkByName(name)
	if err != nil {
		if _, ok := errors.AsType[netlink.LinkNotFoundError](err); ok {
			ifis, _ := net.Interfaces()
			return Link{}, noInterface(ifis)
		}
		return Link{}, fmt.Errorf("look up link: %w", errnoOf(err))
	}
	k, ok := linkOf(l)
	if !ok {
		return Link{}, errors.New("not an Ethernet interface (LLDP needs one)")
	}
	return k, nil
}
