package control

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
)

// What apply sends is what the server reads back.
func TestRequestEncoding(t *testing.T) {
	no := false
	p := &engine.Params{PFC: &engine.PFC{Cap: 8, Enabled: 1 << 3}, App: []engine.App{}}
	b, err := encodeRequest(Request{Op: "apply", Params: p, Willing: &no})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readRequest(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Request{Op: "apply", Params: p, Willing: &no}, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got.Params.App == nil {
		t.Error("an empty APP list (clear the table) became absent")
	}
}
