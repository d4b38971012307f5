// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WriteCert writes a self-signed certificate for 127.0.0.1, valid for an
// hour either side of now, and its key (PEM, PKCS #8) to dir as tls.crt
// and tls.key (mode 0600), and returns the certificate's PEM and a pool
// that trusts it.
func WriteCert(t testing.TB, dir string) (certPEM []byte, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dcbtop test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for name, b := range map[string][]byte{
		"tls.crt": certPEM,
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return certPEM, pool
}

// An HTTPRequest is one request HTTP sends: method (GET when empty),
// path, basic auth (when User is set), and TLS trusting Pool (when set).
type HTTPRequest struct {
	Method, Path string
	User, Pass   string
	Pool         *x509.CertPool
}

// HTTP sends req to addr from inside ns, on a connection of its own
// dialled on the namespace's thread (http.Transport dials from another
// goroutine, in whatever namespace its thread is in), and returns the
// response's status and body. A failure to connect or a bad response is
// the error, never a test failure: callers retry.
func (ns *NS) HTTP(t testing.TB, addr string, req HTTPRequest) (code int, body string, err error) {
	t.Helper()
	ns.Go(t, func() {
		var c net.Conn
		if c, err = net.DialTimeout("tcp", addr, time.Second); err != nil {
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		scheme := "http"
		if req.Pool != nil {
			host, _, _ := net.SplitHostPort(addr)
			c = tls.Client(c, &tls.Config{RootCAs: req.Pool, ServerName: host})
			scheme = "https"
		}
		method := req.Method
		if method == "" {
			method = http.MethodGet
		}
		r, e := http.NewRequest(method, fmt.Sprintf("%s://%s%s", scheme, addr, req.Path), nil)
		if e != nil {
			err = e
			return
		}
		r.Close = true
		if req.User != "" {
			r.SetBasicAuth(req.User, req.Pass)
		}
		if err = r.Write(c); err != nil {
			return
		}
		resp, e := http.ReadResponse(bufio.NewReader(c), r)
		if e != nil {
			err = e
			return
		}
		defer resp.Body.Close()
		b, e := io.ReadAll(resp.Body)
		code, body, err = resp.StatusCode, string(b), e
	})
	return code, body, err
}
