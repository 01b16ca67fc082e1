package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eventWriteTimeout bounds each event's write: a client that stops reading
// cannot hold its slot and connection past it (the call is cancelled).
const eventWriteTimeout = 10 * time.Second

// askStream answers an ask with "stream": true as server-sent events (see
// the package doc): one event per step of the answer, each
//
//	event: <kind>
//	data: <the flowreader.Event's JSON>
//
// then, when the call fails after the stream began, one "error" event
// with the error body a non-streamed ask answers. ctx is the call's (its
// slot and timeout); a failed write, or the client going away, cancels it,
// which ends every model call of the question.
func (h *handler) askStream(ctx context.Context, w http.ResponseWriter, req Request) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	var werr error
	send := func(kind string, data []byte) {
		if werr != nil {
			return
		}
		// A deadline per event, not per response: the stream lives as
		// long as the call, each write only as long as a slow client may
		// take. Servers that cannot set one (an httptest recorder) skip it.
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		if _, werr = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, data); werr == nil {
			werr = rc.Flush()
		}
		if werr != nil {
			cancel()
		}
	}
	o := options(req)
	o.Stream = func(e flowreader.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			b, _ = json.Marshal(errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{"internal", "encoding an event: " + err.Error()}})
			send("error", b)
			cancel()
			return
		}
		send(e.Kind, b)
	}
	res, err := h.askCall(ctx, req, o)
	if err == nil || werr != nil {
		_ = rc.SetWriteDeadline(time.Time{})
		if err == nil {
			err = werr
		}
		return err
	}
	_, code := classify(ctx, err)
	body := errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{code, bound(err.Error())}}
	if res != nil && req.Partial {
		body.Partial = res
	}
	b, merr := json.Marshal(body)
	if merr != nil {
		b, _ = json.Marshal(errorBody{SchemaVersion: flowreader.SchemaVersion, Error: errorInfo{code, bound(err.Error())}})
	}
	send("error", b)
	_ = rc.SetWriteDeadline(time.Time{})
	return err
}

// progress reports an ask's steps to an MCP client that asked for progress
// (a progressToken in the call's _meta): one notification when the
// evidence is retrieved, one per chain read, one when the answer starts to
// be written and one when it is done, each with the count so far and the
// total, chains + 3, and a message.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(flowreader.Event) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	var n, total float64
	writing := false
	notify := func(msg string) {
		n++
		// A lost notification is not the call's failure.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: total, Message: msg})
	}
	return func(e flowreader.Event) {
		switch e.Kind {
		case "evidence":
			total = float64(len(e.Evidence.Chains) + 3)
			notify(fmt.Sprintf("evidence: %d chains to read", len(e.Evidence.Chains)))
		case "draft":
			if e.Pass == 1 {
				notify(fmt.Sprintf("chain %d read: %s", e.Draft.Chain+1, e.Draft.Status))
			}
		case "delta":
			if !writing && !e.Thought {
				writing = true
				notify("writing the answer")
			}
		case "done":
			if !writing {
				notify("writing the answer")
			}
			n = total - 1
			notify("answered")
		}
	}
}
