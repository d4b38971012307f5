// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dcbtop/dcbtop/testbed"
)

const (
	tlsDropIn     = "systemd/tls.conf"
	webConfigFile = "systemd/web-config.yml"
	scrapeUser    = "prometheus"
	scrapePass    = "correct horse battery staple"
)

// A dropIn is a drop-in file of the unit and the credentials directory
// its %d stands for.
type dropIn struct{ path, creds string }

// webConfigWithUser is the packaged example with its basic_auth_users
// uncommented, holding scrapeUser with a bcrypt hash of scrapePass.
func webConfigWithUser(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(webConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(scrapePass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, line := range []string{"#basic_auth_users:\n", "#  prometheus: $2y$10$...\n"} {
		if !strings.Contains(s, line) {
			t.Fatalf("%s has no %q to uncomment", webConfigFile, line)
		}
	}
	s = strings.Replace(s, "#basic_auth_users:\n", "basic_auth_users:\n", 1)
	return strings.Replace(s, "#  prometheus: $2y$10$...\n", "  "+scrapeUser+": "+string(hash)+"\n", 1)
}

// TestWebConfigExample: promtool, Prometheus's own checker, accepts the
// packaged web configuration as shipped (TLS) and with its basic auth
// filled in, beside a certificate and key.
func TestWebConfigExample(t *testing.T) {
	testbed.RequireCommands(t, "promtool")
	shipped, err := os.ReadFile(webConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"as shipped": string(shipped), "with a user": webConfigWithUser(t)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testbed.WriteCert(t, dir)
			p := filepath.Join(dir, "web-config.yml")
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, "", nil, "promtool", "check", "web-config", p)
			if err != nil {
				t.Errorf("promtool check web-config: %v\n%s", err, out)
			}
		})
	}
	// Without the certificate beside it, promtool refuses it too: the
	// check reads what the paths name.
	p := testbed.WriteFile(t, "web-config.yml", string(shipped))
	if out, err := run(t, "", nil, "promtool", "check", "web-config", p); err == nil {
		t.Errorf("promtool accepts the configuration without its certificate:\n%s", out)
	}
}

// TestUnitTLS runs the unit with its TLS drop-in as systemd would: the
// drop-in's credentials (the example configuration with a user, a
// certificate and its key) in a credentials directory only the service's
// user reads, %d replaced by it. Prometheus scrapes it over HTTPS with
// basic auth (up 1), and with a wrong password or over plain HTTP fails
// (up 0); a DELETE is refused.
func TestUnitTLS(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "setpriv", "prometheus")
	buildPackage(t)

	creds := filepath.Join(t.TempDir(), "credentials")
	if err := os.Mkdir(creds, 0o700); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	caPEM, pool := testbed.WriteCert(t, src)
	if err := os.WriteFile(filepath.Join(src, "web-config.yml"), []byte(webConfigWithUser(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	loads := unitSettings(t, tlsDropIn)["Service.LoadCredential"]
	if len(loads) != 3 {
		t.Fatalf("%s: LoadCredential=%q, want the configuration, certificate and key", tlsDropIn, loads)
	}
	for _, l := range loads {
		id, path, ok := strings.Cut(l, ":")
		if !ok || filepath.Dir(path) != "/etc/dcbtop" || filepath.Base(path) != id {
			t.Fatalf("LoadCredential=%s: want ID:/etc/dcbtop/ID", l)
		}
		b, err := os.ReadFile(filepath.Join(src, id))
		if err != nil {
			t.Fatalf("LoadCredential=%s: no such file in the test's /etc/dcbtop: %v", l, err)
		}
		// systemd's credentials: readable by the service's user only.
		dst := filepath.Join(creds, id)
		if err := os.WriteFile(dst, b, 0o400); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dst, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(creds, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	// setpriv's nobody must reach the directory.
	for d := filepath.Dir(creds); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	ns := testbed.NewNS(t, "unittls")
	testbed.Veth(t, ns, "dcb0", ns, "dcb1")
	addr := metricsAddr(t)
	p := startUnitWith(t, ns, []dropIn{{tlsDropIn, creds}})
	do := func(method, user, pass string) (int, error) {
		code, _, err := ns.HTTP(t, addr, testbed.HTTPRequest{Method: method, Path: "/metrics", User: user, Pass: pass, Pool: pool})
		return code, err
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, err := do(http.MethodGet, scrapeUser, scrapePass)
		if err == nil && code == 200 {
			break
		}
		if time.Now().After(deadline) || p.wait(0) >= 0 {
			t.Fatalf("https /metrics with the user: %d %v\n%q\nstderr: %s\nstdout: %.500s", code, err, p.cmd.Args, p.stderr.Bytes(), p.stdout.Bytes())
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, tc := range []struct {
		method, user, pass string
		want               int
	}{
		{http.MethodGet, "", "", 401},
		{http.MethodGet, scrapeUser, "wrong", 401},
		{http.MethodDelete, scrapeUser, scrapePass, 405},
		{http.MethodHead, scrapeUser, scrapePass, 200},
	} {
		if code, err := do(tc.method, tc.user, tc.pass); err != nil || code != tc.want {
			t.Errorf("%s with user %q: %d %v, want %d", tc.method, tc.user, code, err, tc.want)
		}
	}

	// Prometheus, the real scraper: three jobs.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tls
    scheme: https
    tls_config: {ca_file: %[1]q}
    basic_auth: {username: %[2]q, password: %[3]q}
    static_configs: [{targets: [%[4]q]}]
  - job_name: wrong-password
    scheme: https
    tls_config: {ca_file: %[1]q}
    basic_auth: {username: %[2]q, password: wrong}
    static_configs: [{targets: [%[4]q]}]
  - job_name: plain
    static_configs: [{targets: [%[4]q]}]
`, filepath.Join(dir, "ca.crt"), scrapeUser, scrapePass, addr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	const promListen = "127.0.0.1:19091"
	prom := exec.Command("ip", "netns", "exec", ns.Name, "prometheus", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), "--web.listen-address="+promListen, "--log.level=warn")
	var promErr strings.Builder
	prom.Stderr = &promErr
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	promDone := make(chan struct{})
	go func() { _ = prom.Wait(); close(promDone) }()
	t.Cleanup(func() {
		_ = prom.Process.Signal(syscall.SIGTERM)
		select {
		case <-promDone:
		case <-time.After(15 * time.Second):
			_ = prom.Process.Kill()
			<-promDone
		}
	})
	want := map[string]string{"tls": "1", "wrong-password": "0", "plain": "0"}
	var got map[string]string
	deadline = time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		got = promUp(t, ns, promListen)
		if len(got) == 3 && fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Prometheus's up by job: %v, want %v\nprometheus: %s\ndcbtop: %s", got, want, promErr.String(), p.stderr.Bytes())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(10 * time.Second); code != 0 {
		t.Errorf("after SIGTERM: exit status %d, want 0", code)
	}
	// The failed handshakes of the plain job are said on stderr, one line
	// each: nothing else.
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, "dcbtop: metrics: ") {
			t.Errorf("stderr: %q", line)
		}
	}
}

// promUp asks Prometheus in ns for up, by job.
func promUp(t *testing.T, ns *testbed.NS, addr string) map[string]string {
	t.Helper()
	got := map[string]string{}
	code, body, err := ns.HTTP(t, addr, testbed.HTTPRequest{Path: "/api/v1/query?query=" + url.QueryEscape("up")})
	if err != nil || code != http.StatusOK {
		return got
	}
	var r struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.Unmarshal([]byte(body), &r) != nil {
		return got
	}
	for _, s := range r.Data.Result {
		if len(s.Value) == 2 {
			got[s.Metric["job"]] = fmt.Sprint(s.Value[1])
		}
	}
	return got
}
