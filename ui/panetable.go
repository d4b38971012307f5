// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
)

// A pane is one of the screen's areas; Tab cycles through them.
type pane int

// Panes, in Tab order.
const (
	paneETS pane = iota
	panePFC
	paneApp
	paneLog
	paneDiag
	panePeers
	// paneLossless shows the lossless-Ethernet counters (PFC pauses, NDK,
	// congestion) in the log's place when focused.
	paneLossless
	numPanes
)

// A paneKind is one pane of the screen, everything the frame, the keys
// and the mouse need of it: its title, its content, its summary in a
// slot's tabs, the key that focuses it, what Enter opens on it and where
// the layouts may put it. A new pane is its constant above (in Tab
// order) and its entry in paneTable, its content function (a pane*.go of
// its own), and its box in the layouts' plan (render.go); body, regions,
// slotTabs, paneCount, openDetail and the focus keys iterate the table.
type paneKind struct {
	// name is the title; tab its name among a slot's tabs ("" : name).
	name, tab string
	// build returns the pane's lines for a width (renderer.content keeps
	// them for the frame).
	build func(r *renderer, w int) paneContent
	// count summarises the content in a few cells for the slot's tabs.
	count func(r *renderer) string
	// focusKey, when set, is the key that focuses the pane, and focuses
	// the log again when it has the focus.
	focusKey func(k *KeyMap) key.Binding
	// detail, when set, opens what Enter shows on the focused pane.
	detail func(m *Model)
	// noIface: the pane has content without an interface (the log).
	noIface bool
	// top: the stacked layouts (compact, short) keep it above the slot
	// rather than in it; logPlace: the medium and wide layouts may put it
	// in the log's place.
	top, logPlace bool
}

// paneTable holds every pane, in Tab order.
var paneTable = [numPanes]paneKind{
	paneETS: {name: "ETS", build: (*renderer).etsContent, top: true},
	panePFC: {name: "PFC", build: (*renderer).pfcContent, top: true},
	paneApp: {name: "APP", build: (*renderer).appContent,
		count: func(r *renderer) string { return fmt.Sprint(len(r.appRows())) }},
	paneLog: {name: "Log", build: (*renderer).logContent, noIface: true, logPlace: true,
		count:  func(r *renderer) string { return fmt.Sprint(len(r.snap.Indications)) },
		detail: (*Model).openLogDetail},
	paneDiag: {name: "Diagnostics", tab: "Diag", build: (*renderer).diagContent,
		count: (*renderer).diagCount, detail: (*Model).openDiagDetail},
	panePeers: {name: "Peers", build: (*renderer).peersContent,
		count:  func(r *renderer) string { return fmt.Sprint(len(r.in.Peers)) },
		detail: (*Model).openPeersDetail},
	paneLossless: {name: "Lossless", build: (*renderer).losslessContent, logPlace: true,
		count:    (*renderer).pauseRate,
		focusKey: func(k *KeyMap) key.Binding { return k.Lossless }},
}

// paneNames are the panes' titles.
var paneNames = func() (n [numPanes]string) {
	for p, k := range paneTable {
		n[p] = k.name
	}
	return n
}()

// tabName is pane p's name among a slot's tabs.
func tabName(p pane) string {
	if t := paneTable[p].tab; t != "" {
		return t
	}
	return paneTable[p].name
}

// slotPanes are the panes a slot's tabs name, the log first: in the
// stacked layouts every pane the slot can hold, else those of the log's
// place.
func slotPanes(stacked bool) []pane {
	out := []pane{paneLog}
	for p, k := range paneTable {
		if pane(p) != paneLog && (stacked && !k.top || !stacked && k.logPlace) {
			out = append(out, pane(p))
		}
	}
	return out
}

// detailHint is what Enter says on a pane without details; it names
// every pane of paneTable with a detail (TestPaneTable).
const detailHint = "enter shows details in the Log, Peers and Diagnostics panes (tab to focus one)"
