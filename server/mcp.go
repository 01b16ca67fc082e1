package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

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
		var ev *flowreader.Evidence
		err := h.call(ctx, "mcp_retrieve", in, func(ctx context.Context) (err error) {
			ev, err = h.retrieveCall(ctx, in)
			return err
		})
		if err != nil {
			return nil, flowreader.Evidence{}, err
		}
		return nil, *ev, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name: "ask",
		Description: "Answer a question from the document collection, with citations (document, page, quoted span) " +
			"and the evidence chains read. A call with a progress token is sent progress notifications: the evidence, " +
			"each chain read, the answer being written.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in Request) (*mcp.CallToolResult, any, error) {
		var res *flowreader.Result
		err := h.call(ctx, "mcp_ask", in, func(ctx context.Context) (err error) {
			o := options(in)
			o.Stream = progress(ctx, req)
			res, err = h.askCall(ctx, in, o)
			return err
		})
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

// errBusy is the tool error of a call that got no slot: every slot taken
// and the queue full, or no slot within the call's timeout.
var errBusy = errors.New("server busy: too many calls in flight; retry later")

// call checks a tool's input, waits for a slot and runs the call under its
// timeout; the slot is released when run returns, before the SDK writes
// the answer.
func (h *handler) call(ctx context.Context, endpoint string, in Request, run func(context.Context) error) error {
	start := time.Now()
	if err := checkRequest(in); err != nil {
		return err
	}
	if err := h.checkBudget(in); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, h.opt.Timeout)
	defer cancel()
	release, err := h.adm.acquire(ctx)
	if err != nil {
		reason := "busy"
		if !errors.Is(err, errQueueFull) {
			reason = "queue_timeout"
		}
		h.metrics.refuse(reason)
		return fmt.Errorf("%w (%d in flight, %d waiting)", errBusy, h.opt.MaxInFlight, h.opt.MaxQueue)
	}
	waited := time.Since(start)
	err = run(ctx)
	release()
	status, code := http.StatusOK, ""
	if err != nil {
		status, code = classify(ctx, err)
	}
	h.metrics.call(endpoint, status, time.Since(start))
	h.logCall(ctx, endpoint, in, status, code, waited, time.Since(start), err)
	return err
}

// mcpHTTP serves m over streamable HTTP, stateless: every POST is a whole
// exchange and no session outlives it, so a graceful shutdown never waits on
// an idle event stream, and any replica can answer any call. hostChecked
// turns off the SDK's own loopback Host check when the handler checks Host
// against its allow-list.
func mcpHTTP(m *mcp.Server, maxBody int64, hostChecked bool) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody, DisableLocalhostProtection: hostChecked})
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
