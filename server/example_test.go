package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP API mounted in a service of one's own: one index, loaded once,
// served to every request.
func ExampleNew() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, collection())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	h, err := server.New(ix, server.Options{MaxInFlight: 8})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/flowreader/", http.StripPrefix("/flowreader", h))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/flowreader/v1/ask", "application/json",
		strings.NewReader(`{"question": "How many nests did the East Arm have in 2025?", "budget": 4}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		SchemaVersion int    `json:"schema_version"`
		Answer        string `json:"answer"`
		Citations     []struct {
			NodeID string `json:"node_id"`
		} `json:"citations"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, res.SchemaVersion, res.Citations[0].NodeID)
	fmt.Println(res.Answer)
	// Output:
	// 200 1 survey#1
	// 31
}

// The MCP server for an agent: here over an in-memory transport; a real
// agent runs `flowreader mcp -g FILE` (stdio) or calls /mcp of New's handler.
func ExampleNewMCP() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, collection())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.NewMCP(ix, server.Options{})
	if err != nil {
		log.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve",
		Arguments: map[string]any{"question": "How many nests did the East Arm have in 2025?", "budget": 2}})
	if err != nil {
		log.Fatal(err)
	}
	var ev flowreader.Evidence
	b, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(b, &ev); err != nil {
		log.Fatal(err)
	}
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			fmt.Println(n.ID, n.Modality)
		}
	}
	// Output:
	// survey#1 table
	// survey#2 text
}

// A server over many collections: Options.Collections gives each call the
// index of the collection its request names (here two in-memory indexes;
// `flowreader serve --store` gives the collections of a PostgreSQL store),
// and a request's filter keeps it to some documents.
func ExampleOptions_collections() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	indexes := map[string]*flowreader.Index{}
	for name, docs := range map[string][]int{"survey": {0}, "all": {0, 1}} {
		var sel []graph.Document
		for _, i := range docs {
			sel = append(sel, collection()[i])
		}
		g, err := p.Build(ctx, sel)
		if err != nil {
			log.Fatal(err)
		}
		if indexes[name], err = p.Open(ctx, g); err != nil {
			log.Fatal(err)
		}
	}
	h, err := server.New(nil, server.Options{Collections: func(_ context.Context, name string) (*flowreader.Index, error) {
		if ix, ok := indexes[name]; ok {
			return ix, nil
		}
		return nil, fmt.Errorf("collection %q: %w", name, flowreader.ErrNoGraph)
	}})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, body := range []string{
		`{"question": "When did the storm arrive?", "collection": "all", "filter": {"ids": ["station"]}, "budget": 1}`,
		`{"question": "When did the storm arrive?", "collection": "nope"}`,
	} {
		resp, err := http.Post(ts.URL+"/v1/retrieve", "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		var ev struct {
			Chains []struct {
				Nodes []struct{ ID string } `json:"nodes"`
			} `json:"chains"`
			Error struct{ Code string } `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Println(resp.StatusCode, ev.Error.Code)
			continue
		}
		fmt.Println(resp.StatusCode, ev.Chains[0].Nodes[0].ID)
	}
	// Output:
	// 200 station#0
	// 404 unknown_collection
}
