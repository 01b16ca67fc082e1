package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

// writeEvents answers as vLLM streams a chat completion: a role chunk, one
// chunk per piece, a chunk with the finish reason, a usage chunk with no
// choices when the request asked for it, and [DONE]; each flushed.
func writeEvents(w http.ResponseWriter, body map[string]any, pieces []string) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	choice := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	send(choice(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range pieces {
		send(choice(map[string]any{"content": p}, nil))
	}
	send(choice(map[string]any{}, "stop"))
	if so, ok := body["stream_options"].(map[string]any); ok && so["include_usage"] == true {
		send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 21, "completion_tokens": len(pieces), "total_tokens": 21 + len(pieces)}})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func stream(t *testing.T, m llm.Model, ctx context.Context) ([]string, *llm.Response, error) {
	t.Helper()
	c, ok := m.(llm.Streamer)
	if !ok {
		t.Fatalf("%T does not stream", m)
	}
	var got []string
	resp, err := c.GenerateStream(ctx, llmfunc.UserText("q"), func(p string) { got = append(got, p) })
	return got, resp, err
}

func TestStreamPiecesUsageFinish(t *testing.T) {
	pieces := []string{"The ", "answer\n", "is \"42\" ", "— é😀"}
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.Header.Get("Accept") != "text/event-stream" {
			writeErr(w, 400, "accept")
			return
		}
		writeEvents(w, body, pieces)
	})
	c, _ := NewChat(chatConfig(srv.URL))
	got, resp, err := stream(t, c, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(pieces, "|") {
		t.Fatalf("pieces %q, want %q", got, pieces)
	}
	if resp.Text != strings.Join(pieces, "") || resp.FinishReason != "stop" || resp.Usage != (llm.Usage{PromptTokens: 21, CompletionTokens: 4}) {
		t.Fatalf("response %+v", resp)
	}
	b := srv.last()
	if b["stream"] != true || b["stream_options"].(map[string]any)["include_usage"] != true {
		t.Fatalf("request %v", b)
	}
}

func TestStreamJSONAnswerReadWhole(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { writeChat(w, "whole") })
	c, _ := NewChat(chatConfig(srv.URL))
	got, resp, err := stream(t, c, context.Background())
	if err != nil || len(got) != 1 || got[0] != "whole" || resp.Text != "whole" || resp.Usage.PromptTokens != 11 {
		t.Fatalf("got %q, %+v, %v", got, resp, err)
	}
}

func TestStreamErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		h     handler
		check func(error) bool
	}{
		{"status before the stream", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Retry-After", "2")
			writeErr(w, 429, "slow down")
		}, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 429 && api.RetryAfter == 2*time.Second && errors.Is(err, llm.ErrRateLimited)
		}},
		{"error event mid-stream", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\",\"type\":\"BadRequestError\",\"code\":400}}\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		}, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 400 && errors.Is(err, llm.ErrContextTooLong)
		}},
		{"error event without a code", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"error\":\"engine died\"}\n\n")
		}, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 500 && strings.Contains(api.Message, "engine died")
		}},
		{"cut before the finish", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
		}, func(err error) bool { return errors.Is(err, llm.ErrUnavailable) }},
		{"cut inside an event", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"con")
		}, func(err error) bool { return errors.Is(err, llm.ErrUnavailable) }},
		{"not a chunk", func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: <html>\n\n")
		}, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newVLLM(t, c.h)
			ch, _ := NewChat(chatConfig(srv.URL))
			_, resp, err := stream(t, ch, context.Background())
			if resp != nil || !c.check(err) {
				t.Fatalf("got %+v, %v", resp, err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatal("key in the error")
			}
		})
	}
}

func TestStreamLimit(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeEvents(w, body, []string{strings.Repeat("x", 5000)})
	})
	cfg := chatConfig(srv.URL)
	cfg.MaxResponseBytes = 4096
	c, _ := NewChat(cfg)
	if _, _, err := stream(t, c, context.Background()); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("err %v", err)
	}
}

// Cancelling the context while the answer streams ends the call with the
// context's error and closes the connection: the server sees its request
// end.
func TestStreamCancelClosesConnection(t *testing.T) {
	gone := make(chan struct{})
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"first \"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	})
	c, _ := NewChat(chatConfig(srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	_, err := c.(llm.Streamer).GenerateStream(ctx, llmfunc.UserText("q"), func(p string) {
		got = append(got, p)
		cancel()
	})
	if !errors.Is(err, context.Canceled) || len(got) != 1 {
		t.Fatalf("got %q, %v", got, err)
	}
	<-gone
}

// BenchmarkStreamEvents reads a stream of n token events: the allocations
// per event are the token's text and nothing else.
func BenchmarkStreamEvents(b *testing.B) {
	var sb strings.Builder
	const n = 512
	for i := range n {
		fmt.Fprintf(&sb, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%03d \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	sb.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":512}}\n\ndata: [DONE]\n\n")
	in := sb.String()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		resp, err := readEvents(context.Background(), newSSEReader(strings.NewReader(in), 1<<30), func(string) {}, "")
		if err != nil || resp.Usage.CompletionTokens != n {
			b.Fatal(resp, err)
		}
	}
	b.ReportMetric(float64(n), "tokens/op")
}
