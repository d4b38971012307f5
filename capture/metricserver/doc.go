// SPDX-License-Identifier: Apache-2.0

// Package metricserver serves a Prometheus registry over HTTP for
// dcbtop --metrics, so that slow or idle clients can neither pile up
// descriptors nor keep a scrape from being answered.
//
// A scrape is one small request whose header comes whole right after its
// connection, answered from memory; a slow client is one whose header
// does not come. The server tells them apart by what it has read from
// each connection (it wraps the listener's connections), and holds two
// budgets: connections that have not completed a request header (64,
// the oldest partial or silent one closed to make room for a new one) and
// connections that have (64, the one idle the longest closed). Beyond
// them, timeouts close idle keep-alive connections (30 s) and headers
// not complete in 2 s. Issue 22 (a slowloris of 200 trickling clients
// made every scrape miss its timeout) is what the budgets answer.
//
// The metrics themselves are engine/metrics' Collector's (and whatever
// else the registry holds): this package is the I/O only.
package metricserver
