package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
)

// Options bound the work a server takes on. Every zero field means its
// documented default.
type Options struct {
	// MaxInFlight bounds the retrieve and ask calls (HTTP and MCP together)
	// running at once; a call beyond it is refused at once (HTTP 503, code
	// "busy", with Retry-After) rather than queued, so that a burst cannot
	// pile up behind slow model calls. 0 means runtime.GOMAXPROCS(0):
	// retrieval (scoring, the min-cost flow) is CPU-bound.
	MaxInFlight int
	// MaxBodyBytes bounds a request body; a larger one is refused (HTTP
	// 413, code "too_large"). 0 means 64 KiB.
	MaxBodyBytes int64
	// Timeout bounds one retrieve or ask, on top of the request's own
	// context (a client that goes away cancels its call); past it the call
	// is cancelled (HTTP 504, code "timeout"). 0 means 2 minutes.
	Timeout time.Duration
}

// Request is the body of POST /v1/retrieve and POST /v1/ask, and the input
// of the MCP tools retrieve and ask.
type Request struct {
	Question string `json:"question" jsonschema:"the question to retrieve evidence for or to answer"`
	Budget   int    `json:"budget,omitempty" jsonschema:"chains to read (the aspects router's demand in distinct nodes); 0 or absent means the server's default"`
	Scores   bool   `json:"scores,omitempty" jsonschema:"also return the node score h of every graph node (as long as the graph)"`
	// Stream makes POST /v1/ask answer as server-sent events, the steps of
	// the answer as they happen (see the package doc); /v1/retrieve
	// refuses it. The MCP tools ignore it: ask sends progress
	// notifications to a call that asks for them.
	Stream bool `json:"stream,omitempty" jsonschema:"HTTP /v1/ask only: answer as server-sent events (text/event-stream); MCP clients get progress notifications instead"`
}

const (
	defaultMaxBody = 64 << 10
	defaultTimeout = 2 * time.Minute
)

// handler serves one index.
type handler struct {
	ix   *flowreader.Index
	opt  Options
	sem  chan struct{}
	mux  *http.ServeMux
	info graphInfo
}

// graphInfo is the body of GET /v1/graph.
type graphInfo struct {
	SchemaVersion int    `json:"schema_version"`
	Nodes         int    `json:"nodes"`
	Edges         int    `json:"edges"`
	Documents     int    `json:"documents"`
	Embedder      string `json:"embedder"`
	Dimension     int    `json:"dimension"`
}

// New returns the HTTP API over ix (see the package doc): POST
// /v1/retrieve, POST /v1/ask, GET /v1/graph, GET /healthz, and the MCP
// server (NewMCP) over streamable HTTP at /mcp, sharing one bound on calls
// in flight. It is safe for concurrent use. Options are checked: a
// negative field is an error.
func New(ix *flowreader.Index, opt Options) (http.Handler, error) {
	h, err := newHandler(ix, opt)
	if err != nil {
		return nil, err
	}
	m := newMCP(h)
	h.mux.Handle("/mcp", mcpHTTP(m, h.opt.MaxBodyBytes))
	return h, nil
}

func newHandler(ix *flowreader.Index, opt Options) (*handler, error) {
	switch {
	case ix == nil:
		return nil, errors.New("server: no index")
	case opt.MaxInFlight < 0:
		return nil, fmt.Errorf("server: Options.MaxInFlight %d is negative", opt.MaxInFlight)
	case opt.MaxBodyBytes < 0:
		return nil, fmt.Errorf("server: Options.MaxBodyBytes %d is negative", opt.MaxBodyBytes)
	case opt.Timeout < 0:
		return nil, fmt.Errorf("server: Options.Timeout %s is negative", opt.Timeout)
	}
	if opt.MaxInFlight == 0 {
		opt.MaxInFlight = runtime.GOMAXPROCS(0)
	}
	if opt.MaxBodyBytes == 0 {
		opt.MaxBodyBytes = defaultMaxBody
	}
	if opt.Timeout == 0 {
		opt.Timeout = defaultTimeout
	}
	g := ix.Graph()
	docs := map[string]bool{}
	for i := range g.Nodes {
		docs[g.Nodes[i].Doc] = true
	}
	h := &handler{ix: ix, opt: opt, sem: make(chan struct{}, opt.MaxInFlight), mux: http.NewServeMux(),
		info: graphInfo{SchemaVersion: flowreader.SchemaVersion, Nodes: g.Len(), Edges: len(g.Edges),
			Documents: len(docs), Embedder: g.Embedder, Dimension: g.Dim}}
	// Paths without a method: the method check is ours, so that a wrong
	// method gets the JSON error every other failure gets.
	h.mux.HandleFunc("/healthz", h.only(http.MethodGet, h.health))
	h.mux.HandleFunc("/v1/graph", h.only(http.MethodGet, h.graph))
	h.mux.HandleFunc("/v1/retrieve", h.only(http.MethodPost, h.retrieve))
	h.mux.HandleFunc("/v1/ask", h.only(http.MethodPost, h.ask))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s (see GET /v1/graph, POST /v1/retrieve, POST /v1/ask, /mcp)", r.URL.Path), nil)
	})
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// only admits one method (GET also admits HEAD).
func (h *handler) only(method string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s takes %s, not %s", r.URL.Path, method, r.Method), nil)
			return
		}
		next(w, r)
	}
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		SchemaVersion int    `json:"schema_version"`
		Status        string `json:"status"`
	}{flowreader.SchemaVersion, "ok"})
}

func (h *handler) graph(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.info)
}

func (h *handler) retrieve(w http.ResponseWriter, r *http.Request) {
	req, ok := h.request(w, r)
	if !ok {
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "bad_request", "\"stream\" is for /v1/ask: retrieval answers at once", nil)
		return
	}
	ctx, done, ok := h.admit(w, r)
	if !ok {
		return
	}
	defer done()
	ev, err := h.ix.Retrieve(ctx, req.Question, options(req))
	if err != nil {
		status, code := classify(ctx, err)
		writeError(w, status, code, err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, ev)
}

func (h *handler) ask(w http.ResponseWriter, r *http.Request) {
	req, ok := h.request(w, r)
	if !ok {
		return
	}
	ctx, done, ok := h.admit(w, r)
	if !ok {
		return
	}
	defer done()
	if req.Stream {
		h.askStream(ctx, w, req)
		return
	}
	res, err := h.ix.Ask(ctx, req.Question, options(req))
	if err != nil {
		status, code := classify(ctx, err)
		var partial any
		if res != nil {
			// What the call did before it failed: stages, evidence,
			// calls and tokens.
			partial = res
		}
		writeError(w, status, code, err.Error(), partial)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// admit takes a slot for one call, or answers 503 busy; the context carries
// the call's timeout. The returned func releases both.
func (h *handler) admit(w http.ResponseWriter, r *http.Request) (context.Context, func(), bool) {
	release, ok := h.acquire()
	if !ok {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "busy", fmt.Sprintf("%d calls in flight, the server's limit; retry later", cap(h.sem)), nil)
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opt.Timeout)
	return ctx, func() { cancel(); release() }, true
}

func (h *handler) acquire() (release func(), ok bool) {
	select {
	case h.sem <- struct{}{}:
		return func() { <-h.sem }, true
	default:
		return nil, false
	}
}

// request reads and checks the body of a retrieve or ask, or answers with
// the error.
func (h *handler) request(w http.ResponseWriter, r *http.Request) (Request, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("Content-Type %q: send application/json", ct), nil)
			return Request{}, false
		}
	}
	req, err := decodeRequest(http.MaxBytesReader(w, r.Body, h.opt.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body above %d bytes", tooBig.Limit), nil)
			return Request{}, false
		}
		code := "bad_request"
		switch {
		case errors.Is(err, flowreader.ErrQuestion):
			code = "empty_question"
		case errors.Is(err, errBudget):
			code = "bad_budget"
		}
		writeError(w, http.StatusBadRequest, code, err.Error(), nil)
		return Request{}, false
	}
	return req, true
}

var errBudget = errors.New("budget is negative")

// decodeRequest reads one JSON object with only Request's fields and checks
// it: a non-empty question and a budget ≥ 0.
func decodeRequest(r io.Reader) (Request, error) {
	var req Request
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if errors.Is(err, io.EOF) {
			return req, errors.New("empty body: send a JSON object such as {\"question\": \"...\"}")
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, err
		}
		return req, fmt.Errorf("invalid JSON body: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, err
		}
		return req, errors.New("invalid JSON body: data after the object")
	}
	return req, checkRequest(req)
}

func checkRequest(req Request) error {
	if strings.TrimSpace(req.Question) == "" {
		return fmt.Errorf("%w: \"question\" is missing or blank", flowreader.ErrQuestion)
	}
	if req.Budget < 0 {
		return fmt.Errorf("%w: %d", errBudget, req.Budget)
	}
	return nil
}

func options(req Request) flowreader.Options {
	return flowreader.Options{Budget: req.Budget, Scores: req.Scores}
}

// classify maps a retrieve or ask failure to an HTTP status and code.
func classify(ctx context.Context, err error) (int, string) {
	switch {
	case errors.Is(err, flowreader.ErrQuestion):
		return http.StatusBadRequest, "empty_question"
	case errors.Is(err, flowreader.ErrConfig):
		return http.StatusBadRequest, "bad_request"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "timeout"
	case errors.Is(err, context.Canceled):
		// The client went away; nobody reads this.
		return http.StatusServiceUnavailable, "canceled"
	case errors.Is(err, llm.ErrRateLimited):
		return http.StatusServiceUnavailable, "model_rate_limited"
	case errors.Is(err, reader.ErrAllWorkersFailed), errors.Is(err, reader.ErrReasoner), errors.Is(err, llm.ErrUnavailable),
		errors.Is(err, llm.ErrInvalidOutput), errors.Is(err, llm.ErrContextTooLong):
		return http.StatusBadGateway, "model_failed"
	default:
		return http.StatusInternalServerError, "internal"
	}
}

// errorBody is every error response: the code, a message, and for a failed
// ask the partial result.
type errorBody struct {
	SchemaVersion int       `json:"schema_version"`
	Error         errorInfo `json:"error"`
	Partial       any       `json:"partial,omitempty"`
}

type errorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, code, msg string, partial any) {
	writeJSON(w, status, errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{code, msg}, Partial: partial})
}

// writeJSON encodes v completely before writing, so that a failure to
// encode is a clean 500 and never half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{"internal", "encoding the response: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
