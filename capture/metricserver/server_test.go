// SPDX-License-Identifier: Apache-2.0

package metricserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// startMetrics serves the endpoint on a loopback port with the given
// limits and returns its address.
func startMetrics(t *testing.T, pre, served int, idle time.Duration) string {
	t.Helper()
	oldPre, oldServed, oldIdle := maxPreRequest, maxServed, idleTimeout
	maxPreRequest, maxServed, idleTimeout = pre, served, idle
	t.Cleanup(func() { maxPreRequest, maxServed, idleTimeout = oldPre, oldServed, oldIdle })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.New(func() engine.Snapshot { return engine.Snapshot{} }, metrics.WithBuildInfo("test", "")))
	s, err := Serve(Listen{Addrs: []string{addr}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return addr
}

const scrapeRequest = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"

// scrapeOn sends one keep-alive GET /metrics on c and reads the response,
// returning its body.
func scrapeOn(t *testing.T, c net.Conn, r *bufio.Reader) string {
	t.Helper()
	if _, err := io.WriteString(c, scrapeRequest); err != nil {
		t.Fatal(err)
	}
	return readScrape(t, c, r)
}

// readScrape reads the response to a GET /metrics sent on c, failing
// unless it is a 200 with dcbtop_build_info, and returns its body.
func readScrape(t *testing.T, c net.Conn, r *bufio.Reader) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !strings.Contains(string(b), "dcbtop_build_info") {
		t.Fatalf("no dcbtop_build_info in the scrape:\n%s", b)
	}
	return string(b)
}

// dial connects to addr, closing the connection when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer fails unless the server closes c within 5 s.
func closedByServer(t *testing.T, c net.Conn, r *bufio.Reader, what string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("read on %s: %v, want EOF (closed by the server)", what, err)
	}
}

// An idle keep-alive connection is closed by the server after the idle
// timeout: idle scrapers cannot hold descriptors forever.
func TestMetricsIdleConnectionClosed(t *testing.T) {
	addr := startMetrics(t, 4, 4, 200*time.Millisecond)
	c := dial(t, addr)
	r := bufio.NewReader(c)
	scrapeOn(t, c, r)
	closedByServer(t, c, r, "an idle keep-alive connection")
}

// With the limit of served connections reached, a connection that
// completes its first request is served and the one idle the longest is
// closed: the server never holds more than the limit, and the others stay
// usable.
func TestMetricsConnectionLimit(t *testing.T) {
	addr := startMetrics(t, 2, 2, time.Minute)
	var held []net.Conn
	var readers []*bufio.Reader
	for range 2 {
		c := dial(t, addr)
		r := bufio.NewReader(c)
		scrapeOn(t, c, r) // accepted and served, now idle
		held, readers = append(held, c), append(readers, r)
	}
	c := dial(t, addr)
	scrapeOn(t, c, bufio.NewReader(c)) // a third served connection
	closedByServer(t, held[0], readers[0], "the connection idle the longest, with a limit of 2")
	scrapeOn(t, held[1], readers[1]) // the other one is still served
}

// holdHeaderTimeout keeps the server from closing connections with an
// incomplete header on its own during the test.
func holdHeaderTimeout(t *testing.T) {
	old := readHeaderTimeout
	readHeaderTimeout = time.Minute
	t.Cleanup(func() { readHeaderTimeout = old })
}

// With the budget of connections that have not completed a request header
// full of clients that sent part of one, a scraper's connection closes one
// of them: the server never holds more than the budget, the scraper is
// answered, and the other one is still served when it completes its
// request.
func TestMetricsPreRequestLimit(t *testing.T) {
	holdHeaderTimeout(t)
	addr := startMetrics(t, 2, 2, time.Minute)
	var partial []net.Conn
	for range 2 {
		c := dial(t, addr)
		if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\n"); err != nil {
			t.Fatal(err)
		}
		partial = append(partial, c)
	}
	scraper := dial(t, addr)
	scrapeOn(t, scraper, bufio.NewReader(scraper))
	answered := 0
	for _, c := range partial {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "Host: x\r\n\r\n"); err != nil {
			continue // closed
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			continue // closed
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), "dcbtop_build_info") {
			t.Fatalf("status %d:\n%s", resp.StatusCode, b)
		}
		answered++
	}
	if answered != 1 {
		t.Errorf("%d of the 2 partial requests answered after a third connection, with a budget of 2: want 1", answered)
	}
}

// A connection that sends nothing is closed to make room once it has had
// firstByteGrace, and not before: the new one waits in the backlog
// meanwhile.
func TestMetricsSilentConnectionClosed(t *testing.T) {
	holdHeaderTimeout(t)
	addr := startMetrics(t, 1, 2, time.Minute)
	start := time.Now() // before the silent connection is accepted
	silent := dial(t, addr)
	r := bufio.NewReader(silent)
	scraper := dial(t, addr)
	scrapeOn(t, scraper, bufio.NewReader(scraper))
	if d := time.Since(start); d < firstByteGrace {
		t.Errorf("the scrape was answered after %v, before the silent connection had its grace of %v", d, firstByteGrace)
	}
	closedByServer(t, silent, r, "a silent connection, with a budget of 1")
}

// slowClients keeps n connections to addr open, each sending one byte of
// a request header that never ends every 100 ms and reopened as soon as
// the server closes it, until the test ends: the slowloris attack of
// issue 22. It returns once all n have connected and the server has closed
// one (so it holds as many as it will), with a function that tells how
// many the server has closed so far.
func slowClients(t *testing.T, addr string, n int) (closed func() int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var dialed, closes atomic.Int64
	const header = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d net.Dialer
			buf := make([]byte, 512)
			for ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					time.Sleep(10 * time.Millisecond) // the backlog is full or the test is over
					continue
				}
				dialed.Add(1)
				stop := context.AfterFunc(ctx, func() { c.Close() })
				for i := 0; ctx.Err() == nil; i++ {
					b := byte('a')
					if i < len(header) {
						b = header[i]
					}
					_ = c.SetWriteDeadline(time.Now().Add(time.Second))
					if _, err := c.Write([]byte{b}); err != nil {
						break
					}
					// Wait 100 ms for the server to close the connection:
					// the pace of the bytes and a prompt reconnection.
					_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
					if _, err := c.Read(buf); err != nil {
						if ne, ok := err.(net.Error); ok && ne.Timeout() {
							continue
						}
						break
					}
				}
				stop()
				c.Close()
				if ctx.Err() == nil {
					closes.Add(1)
				}
			}
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for (dialed.Load() < int64(n) || closes.Load() == 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if dialed.Load() < int64(n) || closes.Load() == 0 {
		t.Fatalf("after 30 s, %d of %d slow clients connected and %d closed by the server", dialed.Load(), n, closes.Load())
	}
	return closes.Load
}

// TestMetricsSlowClients: 200 connections trickling request headers, and
// reopened as soon as they are closed, do not keep a scrape from being
// answered (issue 22: 5 of 5 scrapes missed a 10 s timeout).
func TestMetricsSlowClients(t *testing.T) {
	addr := startMetrics(t, maxPreRequest, maxServed, idleTimeout)
	closed := slowClients(t, addr, 200)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	defer client.CloseIdleConnections()
	failed := 0
	for i := range 5 {
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			failed++
			t.Errorf("scrape %d: %v (after %v)", i+1, err, time.Since(start).Round(time.Millisecond))
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "dcbtop_build_info") {
			failed++
			t.Errorf("scrape %d: status %d, %v:\n%s", i+1, resp.StatusCode, err, b)
			continue
		}
		t.Logf("scrape %d answered in %v; %d slow connections closed by the server so far",
			i+1, time.Since(start).Round(time.Millisecond), closed())
	}
	if failed > 0 {
		t.Errorf("%d of 5 scrapes failed with 200 slow clients", failed)
	}
}
