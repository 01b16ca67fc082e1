package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/flowreader/flowreader"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewMCP returns a Model Context Protocol server over ix with two tools,
// retrieve (the evidence: Index.Retrieve) and ask (the answer with its
// citations and evidence: Index.Ask), whose input is [Request] and whose
// output is the JSON contract of the HTTP API. Run it over stdio with
// Run(ctx, &mcp.StdioTransport{}), or serve it over HTTP with
// mcp.NewStreamableHTTPHandler (New mounts it at /mcp). Options bound its
// calls as they bound the HTTP API's.
func NewMCP(ix *flowreader.Index, opt Options) (*mcp.Server, error) {
	h, err := newHandler(ix, opt)
	if err != nil {
		return nil, err
	}
	return newMCP(h), nil
}

func newMCP(h *handler) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flowreader", Version: version()}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "retrieve",
		OutputSchema: evidenceSchema(),
		Description: "Retrieve the evidence for a question from the document collection, without answering it: " +
			"evidence chains routed by min-cost flow, each a list of nodes (text, modality, document, page, title, " +
			"image path, score) in reading order, and a summary of the routing.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in Request) (*mcp.CallToolResult, flowreader.Evidence, error) {
		ctx, done, err := h.call(ctx, in)
		if err != nil {
			return nil, flowreader.Evidence{}, err
		}
		defer done()
		ev, err := h.ix.Retrieve(ctx, in.Question, options(in))
		if err != nil {
			return nil, flowreader.Evidence{}, err
		}
		return nil, *ev, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name: "ask",
		Description: "Answer a question from the document collection, with citations (document, page, quoted span) " +
			"and the evidence chains read.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in Request) (*mcp.CallToolResult, any, error) {
		ctx, done, err := h.call(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		defer done()
		res, err := h.ix.Ask(ctx, in.Question, options(in))
		if err != nil {
			return nil, nil, err
		}
		return nil, res, nil
	})
	return s
}

// evidenceSchema is the retrieve tool's output schema: flowreader.Evidence
// as its MarshalJSON writes it, the stages in milliseconds (stages_ms),
// which inference from the struct alone cannot see.
func evidenceSchema() *jsonschema.Schema {
	s, err := jsonschema.For[flowreader.Evidence](nil)
	if err != nil {
		panic(fmt.Sprintf("server: the schema of flowreader.Evidence: %v", err)) // a programming error
	}
	s.Properties["stages_ms"] = &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "number"}}
	s.Required = append(s.Required, "stages_ms")
	return s
}

// errBusy is the tool error of a call beyond Options.MaxInFlight.
var errBusy = errors.New("server busy: too many calls in flight; retry later")

// call checks a tool's input and takes a slot, with the call's timeout.
func (h *handler) call(ctx context.Context, in Request) (context.Context, func(), error) {
	if err := checkRequest(in); err != nil {
		return nil, nil, err
	}
	release, ok := h.acquire()
	if !ok {
		return nil, nil, fmt.Errorf("%w (%d)", errBusy, cap(h.sem))
	}
	ctx, cancel := context.WithTimeout(ctx, h.opt.Timeout)
	return ctx, func() { cancel(); release() }, nil
}

// mcpHTTP serves m over streamable HTTP, stateless: every POST is a whole
// exchange and no session outlives it, so a graceful shutdown never waits on
// an idle event stream, and any replica can answer any call.
func mcpHTTP(m *mcp.Server, maxBody int64) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody})
}

// version is the module's version as built, for the MCP handshake.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/flowreader/flowreader" {
				return d.Version
			}
		}
		if bi.Main.Path == "github.com/flowreader/flowreader" && bi.Main.Version != "" {
			return bi.Main.Version
		}
	}
	return "devel"
}
