package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCollections: a server over Options.Collections answers from the
// collection a request names, under its filter, over HTTP and MCP; an
// unknown collection is a 404 (unknown_collection), a store that cannot be
// reached a 503 (store_unavailable) with Retry-After; a server over one
// index refuses a request naming a collection.
func TestCollections(t *testing.T) {
	ix := index(t, flowreader.Config{})
	colls := func(_ context.Context, name string) (*flowreader.Index, error) {
		switch name {
		case "harbour":
			return ix, nil
		case "down":
			return nil, fmt.Errorf("connecting: %w", flowreader.ErrUnavailable)
		}
		return nil, fmt.Errorf("collection %q: %w", name, flowreader.ErrNoGraph)
	}
	ts := newServer(t, nil, server.Options{Collections: colls})

	docsOf := func(body []byte) map[string]bool {
		var ev flowreader.Evidence
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		docs := map[string]bool{}
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				docs[n.Doc] = true
			}
		}
		return docs
	}
	status, _, body := do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "collection": "harbour"}`)
	if docs := docsOf(body); status != http.StatusOK || !docs["survey"] {
		t.Fatalf("unfiltered: %d %v %s", status, docs, body)
	}
	status, _, body = do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "collection": "harbour", "filter": {"ids": ["station"]}}`)
	if docs := docsOf(body); status != http.StatusOK || len(docs) != 1 || !docs["station"] {
		t.Fatalf("filtered on station: %d %v %s", status, docs, body)
	}
	status, _, body = do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "collection": "harbour", "filter": {"metadata": {"kind": "none"}}}`)
	if status != http.StatusOK {
		t.Fatalf("ask under a filter that passes nothing: %d %s", status, body)
	}
	status, _, body = do(t, "GET", ts.URL+"/v1/graph?collection=harbour", "", "")
	if status != http.StatusOK || !strings.Contains(string(body), `"nodes":5`) {
		t.Fatalf("graph info: %d %s", status, body)
	}

	for _, c := range []struct {
		body, code string
		status     int
	}{
		{`{"question": "q", "collection": "nope"}`, "unknown_collection", http.StatusNotFound},
		{`{"question": "q"}`, "unknown_collection", http.StatusNotFound},
		{`{"question": "q", "collection": "down"}`, "store_unavailable", http.StatusServiceUnavailable},
		{`{"question": "q", "collection": "harbour", "filter": {"ids": [""]}}`, "bad_request", http.StatusBadRequest},
		{`{"question": "q", "collection": "harbour", "filter": {"tags": ["x"]}}`, "bad_request", http.StatusBadRequest},
	} {
		for _, ep := range []string{"/v1/retrieve", "/v1/ask"} {
			status, hdr, body := do(t, "POST", ts.URL+ep, jsonType, c.body)
			var eb errorBody
			if err := json.Unmarshal(body, &eb); err != nil {
				t.Fatal(err)
			}
			if status != c.status || eb.Error.Code != c.code || eb.Error.Message == "" {
				t.Errorf("%s %s: %d %s, want %d %s", ep, c.body, status, body, c.status, c.code)
			}
			if c.status == http.StatusServiceUnavailable && hdr.Get("Retry-After") == "" {
				t.Errorf("%s %s: no Retry-After", ep, c.body)
			}
		}
	}

	// MCP over the same handler: the tools take "collection" and "filter".
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{
		"question": question, "collection": "harbour", "filter": map[string]any{"ids": []string{"station"}}}})
	if err != nil || r.IsError {
		t.Fatalf("MCP retrieve: %v %+v", err, r)
	}
	var ev flowreader.Evidence
	if err := remarshal(r.StructuredContent, &ev); err != nil {
		t.Fatal(err)
	}
	for _, ch := range ev.Chains {
		for _, n := range ch.Nodes {
			if n.Doc != "station" {
				t.Fatalf("MCP retrieve under the filter read %s", n.Doc)
			}
		}
	}
	r, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": question, "collection": "nope"}})
	if err == nil && !r.IsError {
		t.Fatal("MCP retrieve of an unknown collection succeeded")
	}

	// One index: a request naming a collection is refused.
	one := newServer(t, ix, server.Options{})
	status, _, body = do(t, "POST", one.URL+"/v1/retrieve", jsonType, `{"question": "q", "collection": "harbour"}`)
	if status != http.StatusNotFound || !strings.Contains(string(body), "unknown_collection") {
		t.Fatalf("one index, a collection named: %d %s", status, body)
	}
}
