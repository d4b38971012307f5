package runtime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// serveMetrics starts the Prometheus endpoint of --metrics on addr, on a
// registry of its own, reading the latest snapshot the engine's goroutine
// published to feed. It returns the collector (to count indications) and a
// stop function.
func serveMetrics(addr string, feed *Feed, version, revision string) (*metrics.Collector, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics %s: %w", addr, errors.Unwrap(err))
	}
	col := metrics.New(func() engine.Snapshot {
		s, _ := feed.Snapshot()
		return s
	}, metrics.WithBuildInfo(version, revision))
	reg := prometheus.NewRegistry()
	if err := reg.Register(col); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(reg))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "dcbtop: metrics at /metrics")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln) // ErrServerClosed after Shutdown
	}()
	return col, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	}, nil
}
