package runtime

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startMetrics serves the endpoint on a loopback port with the given
// limits and returns its address.
func startMetrics(t *testing.T, maxConns int, idle time.Duration) string {
	t.Helper()
	oldMax, oldIdle := metricsMaxConns, metricsIdleTimeout
	metricsMaxConns, metricsIdleTimeout = maxConns, idle
	t.Cleanup(func() { metricsMaxConns, metricsIdleTimeout = oldMax, oldIdle })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, stop, err := serveMetrics(addr, NewFeed(), "test", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// scrapeOn sends one keep-alive GET /metrics on c and reads the response.
func scrapeOn(t *testing.T, c net.Conn, r *bufio.Reader) {
	t.Helper()
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// An idle keep-alive connection is closed by the server after the idle
// timeout: idle scrapers cannot hold descriptors forever.
func TestMetricsIdleConnectionClosed(t *testing.T) {
	addr := startMetrics(t, 4, 200*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	scrapeOn(t, c, r)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("read on an idle keep-alive connection: %v, want EOF (closed by the server)", err)
	}
}

// With the connection limit reached, another client waits (in the
// listen backlog) until one of them goes; the server never holds more.
func TestMetricsConnectionLimit(t *testing.T) {
	addr := startMetrics(t, 2, time.Minute)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		scrapeOn(t, c, bufio.NewReader(c)) // accepted and served, now idle
		held = append(held, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.Peek(1); err == nil {
		t.Fatal("a third connection was served while two were held with a limit of 2")
	}
	held[0].Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("after a held connection closed: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "dcbtop_build_info") {
		t.Errorf("no dcbtop_build_info in the scrape:\n%s", b)
	}
}
