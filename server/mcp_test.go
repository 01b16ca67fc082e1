package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkTools lists the tools of a session and calls both, as an agent
// would; it is shared by the in-memory and the HTTP tests.
func checkTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range lt.Tools {
		tools[tool.Name] = tool
	}
	for _, name := range []string{"retrieve", "ask"} {
		tool, ok := tools[name]
		if !ok {
			t.Fatalf("no tool %s in %v", name, tools)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		for _, want := range []string{`"question"`, `"budget"`, `"required":["question"]`} {
			if !strings.Contains(string(schema), want) {
				t.Errorf("%s input schema lacks %s: %s", name, want, schema)
			}
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	if out, _ := json.Marshal(tools["retrieve"].OutputSchema); !strings.Contains(string(out), `"chains"`) {
		t.Errorf("retrieve output schema: %s", out)
	}

	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": question, "budget": 2}})
	if err != nil || r.IsError {
		t.Fatalf("retrieve: %v %+v", err, r)
	}
	var ev flowreader.Evidence
	if err := remarshal(r.StructuredContent, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.SchemaVersion != 1 || ev.Budget != 2 || len(ev.Chains) == 0 || ev.Chains[0].Nodes[0].Text == "" {
		t.Errorf("retrieve: %+v", ev)
	}
	if len(r.Content) != 1 || !strings.Contains(r.Content[0].(*mcp.TextContent).Text, `"chains"`) {
		t.Errorf("retrieve content: %+v", r.Content)
	}

	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": question}})
	if err != nil || r.IsError {
		t.Fatalf("ask: %v %+v", err, r)
	}
	var res struct {
		SchemaVersion int    `json:"schema_version"`
		Answer        string `json:"answer"`
		Citations     []any  `json:"citations"`
		Chains        []any  `json:"chains"`
	}
	if err := remarshal(r.StructuredContent, &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != 1 || !strings.Contains(res.Answer, "31") || len(res.Citations) == 0 || len(res.Chains) == 0 {
		t.Errorf("ask: %+v", res)
	}

	// Bad input is a tool error the agent can read, not a protocol error.
	for _, args := range []map[string]any{{"question": " "}, {"question": "q", "budget": -1}} {
		r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: args})
		if err != nil || !r.IsError || len(r.Content) == 0 {
			t.Errorf("%v: %v %+v", args, err, r)
		}
	}
	// The schema rejects unknown fields and wrong types before the tool runs.
	for _, args := range []map[string]any{{"question": 3}, {}} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: args})
		if err == nil && !r.IsError {
			t.Errorf("%v accepted", args)
		}
	}
}

func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func TestMCPInMemory(t *testing.T) {
	ix := index(t, flowreader.Config{})
	s, err := server.NewMCP(ix, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkTools(t, cs)
}

func TestMCPStreamableHTTP(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{})
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkTools(t, cs)
}

// With no queue, a tool call beyond MaxInFlight is a tool error, not a
// wait.
func TestMCPBusy(t *testing.T) {
	emb := &gatedEmbedder{release: make(chan struct{})}
	ix := index(t, flowreader.Config{Embedder: emb})
	s, err := server.NewMCP(ix, server.Options{MaxInFlight: 1, MaxQueue: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	emb.closed.Store(true)
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": question}})
		if err != nil {
			t.Error(err)
		}
		first <- r
	}()
	for emb.waiting.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": question}})
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*mcp.TextContent).Text, "busy") {
		t.Errorf("second call: %v %+v", err, r)
	}
	close(emb.release)
	if r := <-first; r == nil || r.IsError {
		t.Errorf("first call: %+v", r)
	}
}
