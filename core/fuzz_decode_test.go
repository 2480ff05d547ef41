package core_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// FuzzDecode: Decode never panics, every failure is a usage error, and any accepted
// request re-marshals and decodes to an equal value. Seeds: testdata/requests/*.json
// (good and hostile) and the shared decode table.
func FuzzDecode(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "requests", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/requests")
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := ops.All.Decode(data)
		if err != nil {
			if req != nil {
				t.Fatalf("request %#v returned with error %v", req, err)
			}
			if e := core.AsError(err); e.Kind != core.KindUsage || e.Code == "" {
				t.Fatalf("not a usage error: %#v", e)
			}
			return
		}
		// Strictness never goes below encoding/json's own syntax check.
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		again, err := ops.All.Decode(encode(t, req))
		if err != nil {
			t.Fatalf("re-encoded %#v rejected: %v", req, err)
		}
		if !reflect.DeepEqual(again, req) {
			t.Fatalf("round trip: %#v became %#v", req, again)
		}
	})
}
