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
