package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
)

// Options bound the work a server takes on and say who may call it. Every
// zero field means its documented default. The limits apply per call, so
// that they hold whatever the index or the collection a call reads.
type Options struct {
	// MaxInFlight bounds the retrieve and ask calls (HTTP and MCP together)
	// running at once. 0 means runtime.GOMAXPROCS(0): retrieval (scoring,
	// the min-cost flow) is CPU-bound.
	MaxInFlight int
	// MaxQueue bounds the calls waiting for a slot, in arrival order; a
	// call arriving when every slot is taken and the queue is full is
	// refused at once (HTTP 503, code "busy", with Retry-After), and one
	// still waiting when its Timeout ends likewise. 0 means 256; -1 means
	// no queue (refuse at once).
	MaxQueue int
	// MaxBodyBytes bounds a request body; a larger one is refused (HTTP
	// 413, code "too_large"), before any of it is read when the request
	// announces its length. 0 means 64 KiB.
	MaxBodyBytes int64
	// Timeout bounds one retrieve or ask from its arrival, the wait for a
	// slot included, on top of the request's own context (a client that
	// goes away cancels its call); past it the call is cancelled (HTTP
	// 504, code "timeout"). 0 means 2 minutes.
	Timeout time.Duration
	// MaxBudget bounds a request's budget: routing costs time in proportion
	// to it and selection up to its square, so a larger one is refused
	// (HTTP 400, code "bad_budget") before any work. 0 means 256.
	MaxBudget int
	// WriteTimeout bounds the writing of one response, from its first byte:
	// a client that does not read its answer holds its connection no
	// longer, and never a call's slot (the slot is released when the
	// answer is computed, before it is written). 0 means 30 seconds.
	WriteTimeout time.Duration
	// Tokens, when set, are the accepted bearer tokens: every request but
	// GET /healthz must carry "Authorization: Bearer TOKEN" with one of
	// them (compared in constant time), else HTTP 401, code
	// "unauthorized".
	Tokens []string
	// AllowedHosts, when set, are the host names a request's Host header
	// may name (any port, without case); IP literals are always accepted.
	// Any other Host is refused (HTTP 403, code "forbidden_host"): a
	// DNS-rebinding web page reaches a loopback server under a name of its
	// own. Empty means every Host, for a handler behind a proxy that
	// checks it.
	AllowedHosts []string
	// Logger, when set, receives one record per retrieve or ask call at
	// info level (endpoint, status, code, budget, durations) and one at
	// warn level for each failure of the server's side (5xx), with the
	// error's code only; the error message, which may quote the model
	// server and so the prompt, only at debug level. No question or
	// document text is logged at info level or above.
	Logger *slog.Logger
	// Collections, when set, gives each call its index: that of the
	// collection the request names ("collection", "" when it names
	// none), for a server over many collections (a store's) or over an
	// index that is replaced while it serves (a graph file rebuilt). New
	// then takes a nil index. A call holds the index it was given until
	// it ends. An error wrapping flowreader.ErrNoGraph (an unknown
	// collection) is answered 404, code unknown_collection; one wrapping
	// flowreader.ErrUnavailable 503, code store_unavailable. Without it,
	// a request that names a collection is a 404.
	Collections func(ctx context.Context, name string) (*flowreader.Index, error)
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
	Stream  bool `json:"stream,omitempty" jsonschema:"HTTP /v1/ask only: answer as server-sent events (text/event-stream); MCP clients get progress notifications instead"`
	Partial bool `json:"partial,omitempty" jsonschema:"HTTP only: on a failed ask, also return the result so far"`
	// Collection names the collection to answer from, on a server over
	// many (Options.Collections).
	Collection string `json:"collection,omitempty" jsonschema:"the collection to answer from, on a server over many collections"`
	// Filter restricts the call to the documents it passes
	// (flowreader.Options.Filter).
	Filter flowreader.Filter `json:"filter,omitzero" jsonschema:"only the documents with one of these IDs (ids) and holding every one of these metadata key/values (metadata)"`
}

const (
	defaultMaxBody      = 64 << 10
	defaultTimeout      = 2 * time.Minute
	defaultMaxQueue     = 256
	defaultMaxBudget    = 256
	defaultWriteTimeout = 30 * time.Second
	// maxMessage bounds an error message in a response body; the message
	// is redacted where it is made (package llm/openai), so cutting it here
	// cannot expose part of a key.
	maxMessage = 1024
)

// handler serves one index, or those Options.Collections gives.
type handler struct {
	ix      *flowreader.Index
	opt     Options
	adm     *admission
	metrics *metrics
	tokens  tokenSet
	mux     *http.ServeMux
	info    graphInfo
	log     *slog.Logger
	// infoMu guards lastInfo: the graph info of the index
	// Options.Collections last gave for "" (computed once per index).
	infoMu   sync.Mutex
	lastIx   *flowreader.Index
	lastInfo graphInfo
}

// infoOf is GET /v1/graph's body for an index over a graph (zero counts
// for one over a store).
func infoOf(ix *flowreader.Index) graphInfo {
	info := graphInfo{SchemaVersion: flowreader.SchemaVersion}
	g := ix.Graph()
	if g == nil {
		return info
	}
	docs := map[string]bool{}
	for i := range g.Nodes {
		docs[g.Nodes[i].Doc] = true
	}
	info.Nodes, info.Edges, info.Documents, info.Embedder, info.Dimension = len(g.Nodes), len(g.Edges), len(docs), g.Embedder, g.Dim
	return info
}

// errNoCollections is a request naming a collection on a server over one
// index.
var errNoCollections = fmt.Errorf("%w: this server serves one index, not collections: leave \"collection\" out", flowreader.ErrNoGraph)

// index is the index a call reads: the request's collection's.
func (h *handler) index(ctx context.Context, req Request) (*flowreader.Index, error) {
	if h.opt.Collections != nil {
		ix, err := h.opt.Collections(ctx, req.Collection)
		if err == nil && ix == nil {
			err = fmt.Errorf("%w: collection %q", flowreader.ErrNoGraph, req.Collection)
		}
		return ix, err
	}
	if req.Collection != "" {
		return nil, errNoCollections
	}
	return h.ix, nil
}

// retrieveCall and askCall run a call on the request's index.
func (h *handler) retrieveCall(ctx context.Context, req Request) (*flowreader.Evidence, error) {
	ix, err := h.index(ctx, req)
	if err != nil {
		return nil, err
	}
	return ix.Retrieve(ctx, req.Question, options(req))
}

func (h *handler) askCall(ctx context.Context, req Request, o flowreader.Options) (*flowreader.Result, error) {
	ix, err := h.index(ctx, req)
	if err != nil {
		return nil, err
	}
	return ix.Ask(ctx, req.Question, o)
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
// /v1/retrieve, POST /v1/ask, GET /v1/graph, GET /healthz, GET /metrics,
// and the MCP server (NewMCP) over streamable HTTP at /mcp, sharing one
// bound on calls in flight. It is safe for concurrent use. Options are
// checked: a negative field (other than MaxQueue -1) is an error.
func New(ix *flowreader.Index, opt Options) (http.Handler, error) {
	h, err := newHandler(ix, opt)
	if err != nil {
		return nil, err
	}
	m := newMCP(h)
	h.mux.Handle("/mcp", mcpHTTP(m, h.opt.MaxBodyBytes, len(h.opt.AllowedHosts) > 0))
	return h, nil
}

func newHandler(ix *flowreader.Index, opt Options) (*handler, error) {
	switch {
	case ix == nil && opt.Collections == nil:
		return nil, errors.New("server: no index (nor Options.Collections)")
	case opt.MaxInFlight < 0:
		return nil, fmt.Errorf("server: Options.MaxInFlight %d is negative", opt.MaxInFlight)
	case opt.MaxQueue < -1:
		return nil, fmt.Errorf("server: Options.MaxQueue %d is below -1", opt.MaxQueue)
	case opt.MaxBodyBytes < 0:
		return nil, fmt.Errorf("server: Options.MaxBodyBytes %d is negative", opt.MaxBodyBytes)
	case opt.Timeout < 0:
		return nil, fmt.Errorf("server: Options.Timeout %s is negative", opt.Timeout)
	case opt.MaxBudget < 0:
		return nil, fmt.Errorf("server: Options.MaxBudget %d is negative", opt.MaxBudget)
	case opt.WriteTimeout < 0:
		return nil, fmt.Errorf("server: Options.WriteTimeout %s is negative", opt.WriteTimeout)
	}
	for _, t := range opt.Tokens {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, " \t\r\n") {
			return nil, errors.New("server: Options.Tokens holds an empty token or one with white space")
		}
	}
	if opt.MaxInFlight == 0 {
		opt.MaxInFlight = runtime.GOMAXPROCS(0)
	}
	switch opt.MaxQueue {
	case 0:
		opt.MaxQueue = defaultMaxQueue
	case -1:
		opt.MaxQueue = 0
	}
	if opt.MaxBodyBytes == 0 {
		opt.MaxBodyBytes = defaultMaxBody
	}
	if opt.Timeout == 0 {
		opt.Timeout = defaultTimeout
	}
	if opt.MaxBudget == 0 {
		opt.MaxBudget = defaultMaxBudget
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = defaultWriteTimeout
	}
	adm := newAdmission(opt.MaxInFlight, opt.MaxQueue)
	h := &handler{ix: ix, opt: opt, adm: adm, metrics: newMetrics(adm), tokens: newTokenSet(opt.Tokens),
		mux: http.NewServeMux(), log: opt.Logger}
	if ix != nil {
		h.info = infoOf(ix)
	}
	// Paths without a method: the method check is ours, so that a wrong
	// method gets the JSON error every other failure gets.
	h.mux.HandleFunc("/healthz", h.only(http.MethodGet, h.health))
	h.mux.HandleFunc("/metrics", h.only(http.MethodGet, h.metrics.serve))
	h.mux.HandleFunc("/v1/graph", h.only(http.MethodGet, h.graph))
	h.mux.HandleFunc("/v1/retrieve", h.only(http.MethodPost, h.retrieve))
	h.mux.HandleFunc("/v1/ask", h.only(http.MethodPost, h.ask))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s (see GET /v1/graph, POST /v1/retrieve, POST /v1/ask, /mcp)", r.URL.Path), nil)
	})
	return h, nil
}

// ServeHTTP checks the Host and the token of every request, and bounds the
// writing of every response, before the endpoints see it.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &deadlineWriter{ResponseWriter: w, timeout: h.opt.WriteTimeout}
	if !hostAllowed(h.opt.AllowedHosts, r.Host) {
		h.metrics.refuse("forbidden_host")
		writeError(w, http.StatusForbidden, "forbidden_host", "this server does not answer for that Host (see --allow-host)", nil)
		return
	}
	if r.URL.Path != "/healthz" && !h.tokens.allows(r) {
		h.metrics.refuse("unauthorized")
		w.Header().Set("WWW-Authenticate", `Bearer realm="flowreader"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "send Authorization: Bearer TOKEN with one of the server's tokens", nil)
		return
	}
	h.mux.ServeHTTP(w, r)
}

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
	if h.opt.Collections == nil {
		writeJSON(w, http.StatusOK, h.info)
		return
	}
	ix, err := h.index(r.Context(), Request{Collection: r.URL.Query().Get("collection")})
	if err != nil {
		status, code := classify(r.Context(), err)
		writeError(w, status, code, bound(err.Error()), nil)
		return
	}
	h.infoMu.Lock()
	if h.lastIx != ix {
		h.lastIx, h.lastInfo = ix, infoOf(ix)
	}
	info := h.lastInfo
	h.infoMu.Unlock()
	writeJSON(w, http.StatusOK, info)
}

func (h *handler) retrieve(w http.ResponseWriter, r *http.Request) {
	h.serveCall(w, r, "retrieve", nil, func(ctx context.Context, req Request) (any, any, error) {
		ev, err := h.retrieveCall(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		return ev, nil, nil
	})
}

func (h *handler) ask(w http.ResponseWriter, r *http.Request) {
	h.serveCall(w, r, "ask", h.askStream, func(ctx context.Context, req Request) (any, any, error) {
		res, err := h.askCall(ctx, req, options(req))
		if err != nil {
			if res != nil {
				// What the call did before it failed: stages, evidence,
				// calls and tokens.
				return nil, res, err
			}
			return nil, nil, err
		}
		return res, nil, nil
	})
}

// serveCall reads and checks a retrieve or ask request, waits for a slot,
// runs the call under its timeout, releases the slot and then writes the
// answer, so that a slow reader never holds a slot. run returns the answer,
// or on failure what was done so far (written only when the request asks
// for it) and the error. A request with "stream" is served by stream (nil:
// the endpoint does not stream), which writes as the call runs and so
// holds its slot until the last event; each event's write has a deadline
// of its own (eventWriteTimeout), so a client that stops reading loses
// its stream instead of holding the slot.
func (h *handler) serveCall(w http.ResponseWriter, r *http.Request, endpoint string, stream func(context.Context, http.ResponseWriter, Request) error, run func(context.Context, Request) (any, any, error)) {
	start := time.Now()
	req, ok := h.request(w, r)
	if !ok {
		return
	}
	if req.Stream && stream == nil {
		writeError(w, http.StatusBadRequest, "bad_request", "\"stream\" is for /v1/ask: retrieval answers at once", nil)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opt.Timeout)
	defer cancel()
	release, err := h.adm.acquire(ctx)
	if err != nil {
		h.refuseBusy(w, err)
		return
	}
	waited := time.Since(start)
	if req.Stream {
		err := stream(ctx, w, req)
		release()
		elapsed := time.Since(start)
		code := ""
		if err != nil { // the status line went out as 200 with the first event
			_, code = classify(ctx, err)
		}
		h.metrics.call(endpoint, http.StatusOK, elapsed)
		h.logCall(r.Context(), endpoint, req, http.StatusOK, code, waited, elapsed, err)
		return
	}
	v, partial, err := run(ctx, req)
	release()
	elapsed := time.Since(start)
	status, code := http.StatusOK, ""
	if err != nil {
		status, code = classify(ctx, err)
		if !req.Partial {
			partial = nil
		}
		v = errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{code, bound(err.Error())}, Partial: partial}
		if code == "store_unavailable" {
			w.Header().Set("Retry-After", "1")
		}
	}
	h.metrics.call(endpoint, status, elapsed)
	h.logCall(r.Context(), endpoint, req, status, code, waited, elapsed, err)
	writeJSON(w, status, v)
}

// refuseBusy answers a call that got no slot: the queue was full, or it
// waited past its timeout (or its client left).
func (h *handler) refuseBusy(w http.ResponseWriter, err error) {
	reason, msg := "busy", fmt.Sprintf("%d calls in flight and %d waiting, the server's limits; retry later", h.opt.MaxInFlight, h.opt.MaxQueue)
	if !errors.Is(err, errQueueFull) {
		reason, msg = "queue_timeout", fmt.Sprintf("no slot within the call timeout (%s); retry later", h.opt.Timeout)
	}
	h.metrics.refuse(reason)
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, "busy", msg, nil)
}

// logCall writes the record of one call (see Options.Logger).
func (h *handler) logCall(ctx context.Context, endpoint string, req Request, status int, code string, waited, elapsed time.Duration, err error) {
	if h.log == nil {
		return
	}
	args := []any{slog.String("endpoint", endpoint), slog.Int("status", status), slog.Int("budget", req.Budget),
		slog.Duration("queued", waited), slog.Duration("duration", elapsed)}
	if code != "" {
		args = append(args, slog.String("code", code))
	}
	h.log.InfoContext(ctx, "server: call", args...)
	if err == nil {
		return
	}
	if status >= 500 {
		h.log.WarnContext(ctx, "server: call failed", slog.String("endpoint", endpoint), slog.Int("status", status), slog.String("code", code))
	}
	h.log.DebugContext(ctx, "server: call error", slog.String("endpoint", endpoint), slog.String("error", err.Error()))
}

// request reads and checks the body of a retrieve or ask, or answers with
// the error. Every refusal that needs no body comes before the body is
// read, so that a client that sent "Expect: 100-continue" is not told to
// send it.
func (h *handler) request(w http.ResponseWriter, r *http.Request) (Request, bool) {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("Content-Type %q: send application/json", bound(ct)), nil)
		return Request{}, false
	}
	if r.ContentLength > h.opt.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body above %d bytes", h.opt.MaxBodyBytes), nil)
		return Request{}, false
	}
	if h.adm.full() {
		h.refuseBusy(w, errQueueFull)
		return Request{}, false
	}
	req, err := decodeRequest(http.MaxBytesReader(w, r.Body, h.opt.MaxBodyBytes))
	if err == nil {
		err = h.checkBudget(req)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body above %d bytes", tooBig.Limit), nil)
			return Request{}, false
		case errors.As(err, &ne) && ne.Timeout():
			writeError(w, http.StatusRequestTimeout, "request_timeout", "the request body did not arrive within the server's read timeout", nil)
			return Request{}, false
		}
		code := "bad_request"
		switch {
		case errors.Is(err, flowreader.ErrQuestion):
			code = "empty_question"
		case errors.Is(err, errBudget):
			code = "bad_budget"
		}
		writeError(w, http.StatusBadRequest, code, bound(err.Error()), nil)
		return Request{}, false
	}
	return req, true
}

var errBudget = errors.New("bad budget")

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
		var ne net.Error
		if errors.As(err, &tooBig) || errors.As(err, &ne) {
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
		return fmt.Errorf("%w: %d is negative", errBudget, req.Budget)
	}
	return nil
}

// checkBudget refuses a budget above Options.MaxBudget.
func (h *handler) checkBudget(req Request) error {
	if req.Budget > h.opt.MaxBudget {
		return fmt.Errorf("%w: %d is above the server's limit %d", errBudget, req.Budget, h.opt.MaxBudget)
	}
	return nil
}

// bound cuts s to maxMessage bytes, on a rune boundary.
func bound(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	i := maxMessage
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func options(req Request) flowreader.Options {
	return flowreader.Options{Budget: req.Budget, Scores: req.Scores, Filter: req.Filter}
}

// classify maps a retrieve or ask failure to an HTTP status and code.
func classify(ctx context.Context, err error) (int, string) {
	switch {
	case errors.Is(err, flowreader.ErrQuestion):
		return http.StatusBadRequest, "empty_question"
	case errors.Is(err, flowreader.ErrConfig):
		return http.StatusBadRequest, "bad_request"
	case errors.Is(err, flowreader.ErrNoGraph):
		return http.StatusNotFound, "unknown_collection"
	case errors.Is(err, flowreader.ErrUnavailable):
		return http.StatusServiceUnavailable, "store_unavailable"
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
