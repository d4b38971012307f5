// SPDX-License-Identifier: Apache-2.0

package metricserver

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
	"github.com/dcbtop/dcbtop/testbed"
)

// WebFixture is a web configuration with TLS (a self-signed certificate
// for 127.0.0.1) and one basic-auth user, written to a directory.
type webFixture struct {
	config string         // the configuration file
	pool   *x509.CertPool // trusts the certificate
}

const (
	fixtureUser     = "prometheus"
	fixturePassword = "s3cret-scrape"
)

func newWebFixture(t *testing.T) webFixture {
	t.Helper()
	dir := t.TempDir()
	_, pool := testbed.WriteCert(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte(fixturePassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	// Relative paths: exporter-toolkit reads them from the file's
	// directory (what the packaged unit's credentials directory needs).
	config := filepath.Join(dir, "web-config.yml")
	if err := os.WriteFile(config, []byte("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\nbasic_auth_users:\n  "+fixtureUser+": "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return webFixture{config: config, pool: pool}
}

// serveWith serves an empty engine's metrics as l says, on a loopback
// port, and returns the address.
func serveWith(t *testing.T, l Listen) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	l.Addrs = []string{addr}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.New(func() engine.Snapshot { return engine.Snapshot{} }, metrics.WithBuildInfo("test", "")))
	s, err := Serve(l, reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return addr
}

// Only GET and HEAD are answered: a scrape changes nothing, and 7737732
// answered DELETE /metrics with 200.
func TestMethods(t *testing.T) {
	addr := serveWith(t, Listen{})
	for _, tc := range []struct {
		method string
		want   int
	}{
		{http.MethodGet, 200}, {http.MethodHead, 200},
		{http.MethodDelete, 405}, {http.MethodPost, 405}, {http.MethodPut, 405}, {http.MethodPatch, 405}, {http.MethodOptions, 405}, {"PROPFIND", 405},
	} {
		req, err := http.NewRequest(tc.method, "http://"+addr+"/metrics", strings.NewReader(""))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want || tc.want == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /metrics: %d, Allow %q; want %d", tc.method, resp.StatusCode, resp.Header.Get("Allow"), tc.want)
		}
	}
}

// With a web configuration: TLS only, and a scrape needs the user's
// password; the budgets still close silent TLS connections.
func TestTLSBasicAuth(t *testing.T) {
	fx := newWebFixture(t)
	addr := serveWith(t, Listen{ConfigFile: fx.config})
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: fx.pool}}}
	get := func(user, password string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && !strings.Contains(string(b), "dcbtop_build_info") {
			t.Errorf("200 without dcbtop_build_info:\n%s", b)
		}
		return resp.StatusCode
	}
	for _, tc := range []struct {
		user, password string
		want           int
	}{
		{"", "", 401}, {fixtureUser, "wrong", 401}, {"someone", fixturePassword, 401}, {fixtureUser, fixturePassword, 200},
	} {
		if got := get(tc.user, tc.password); got != tc.want {
			t.Errorf("user %q password %q: %d, want %d", tc.user, tc.password, got, tc.want)
		}
	}
	// Plain HTTP to the TLS port: never the metrics.
	if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 || strings.Contains(string(b), "dcbtop_") {
			t.Errorf("plain HTTP to the TLS port: %d %s", resp.StatusCode, b)
		}
	}
	// A certificate nobody trusts: the handshake fails.
	if _, err := (&http.Client{Timeout: 5 * time.Second}).Get("https://" + addr + "/metrics"); err == nil {
		t.Error("a client without the CA got an answer")
	}
	// A DELETE with the password is still refused.
	req, _ := http.NewRequest(http.MethodDelete, "https://"+addr+"/metrics", nil)
	req.SetBasicAuth(fixtureUser, fixturePassword)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 405 {
		t.Errorf("DELETE over TLS: %v %v, want 405", resp, err)
	} else {
		resp.Body.Close()
	}
}

// The connection budgets hold under TLS: silent connections (no
// ClientHello) beyond the pre-request budget are closed, and a scrape
// still gets through.
func TestTLSBudget(t *testing.T) {
	old, oldGrace := maxPreRequest, firstByteGrace
	maxPreRequest, firstByteGrace = 4, 100*time.Millisecond
	t.Cleanup(func() { maxPreRequest, firstByteGrace = old, oldGrace })
	fx := newWebFixture(t)
	addr := serveWith(t, Listen{ConfigFile: fx.config})
	var silent []*bufio.Reader
	var conns []net.Conn
	for range 12 {
		c := dial(t, addr)
		conns = append(conns, c)
		silent = append(silent, bufio.NewReader(c))
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: fx.pool}}}
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
	req.SetBasicAuth(fixtureUser, fixturePassword)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a scrape behind 12 silent connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("a scrape behind 12 silent connections: %d", resp.StatusCode)
	}
	closedByServer(t, conns[0], silent[0], "the oldest silent connection")
}

// A web configuration exporter-toolkit refuses is a one-line error at the
// start, naming the file; nothing listens.
func TestBadWebConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"missing", "", "no such file"},
		{"yaml", "tls_server_config: [\n", "yaml"},
		{"unknown field", "tls_server_confg:\n  cert_file: x\n", "field tls_server_confg not found"},
		{"no key", "tls_server_config:\n  cert_file: tls.crt\n", "key"},
		{"bad hash", "basic_auth_users:\n  u: not-a-bcrypt-hash\n", "bcrypt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".yml")
			if tc.content != "" {
				if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			s, err := Serve(Listen{Addrs: []string{addr}, ConfigFile: p}, prometheus.NewRegistry())
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "web config "+p+": ") || !strings.Contains(strings.ToLower(msg), tc.want) {
				t.Errorf("error %q: want one line, naming the file, about %q", msg, tc.want)
			}
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				t.Error("something listens after the error")
			}
		})
	}
}
