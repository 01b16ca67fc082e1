package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzDecodeRequest: any body is a Request that passes the checks or a
// clear error, never a panic; an accepted request has a question and a
// budget ≥ 0, and re-decoding it gives the same request.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"question": "How many nests?", "budget": 16}`,
		`{"question": "q", "scores": true}`,
		`{"question": ""}`, `{"question": "q", "budget": -1}`, `{"question": "q", "x": 1}`,
		`{"question": "q"} []`, `[]`, `null`, ``, `{"question": 1e400}`, `{"budget": 9223372036854775808}`,
		"{\"question\": \"\u00e9\\u0000\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req, err := decodeRequest(http.MaxBytesReader(rec, io.NopCloser(strings.NewReader(body)), 1<<10))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if strings.TrimSpace(req.Question) == "" || req.Budget < 0 {
			t.Fatalf("accepted %+v", req)
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		// Compared as JSON: an empty filter map and a nil one are one request.
		again, err := decodeRequest(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%+v re-decoded: %v", req, err)
		}
		if b2, _ := json.Marshal(again); !bytes.Equal(b, b2) {
			t.Fatalf("%+v re-decoded as %+v", req, again)
		}
	})
}
