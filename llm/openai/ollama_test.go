package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

// ollama is a stand-in for Ollama's OpenAI-compatible endpoints
// (http://localhost:11434/v1), answering as Ollama's documentation ("OpenAI
// compatibility", "Errors", "Structured outputs", "Context length") and its
// compatibility layer describe:
//
//   - no authentication: a bearer token is accepted and ignored;
//   - model names are name[:tag], a name without a tag meaning ":latest";
//     an unknown model is 404 {"error":{"message":"model 'x' not found",
//     "type":"not_found_error","param":null,"code":null}};
//   - an absent temperature means 1.0 and an absent top_p 1.0 (the native
//     defaults the compatibility layer fills in); max_tokens is
//     num_predict; response_format json_schema becomes the native format
//     (the schema itself; name and strict are ignored), json_object "json";
//   - content parts become one native message each, in order; image_url is
//     an object {"url"} or a bare string, a data URL of jpeg, jpg, png or
//     webp in base64 (anything else is 400 "invalid image input", an http
//     URL 400 "image URLs are not currently supported, …");
//   - a thinking model answers its reasoning in "reasoning", apart from
//     "content";
//   - streaming: "data: {chunk}\n\n" events, the role on the first chunk
//     only, the finish reason on a chunk of its own with an empty delta, a
//     usage chunk with "choices":[] when stream_options.include_usage is
//     set, then "data: [DONE]"; a generation that fails mid-stream sends
//     one more chunk with empty content and ends without a finish or
//     [DONE];
//   - a full queue is 503 "server busy, please try again.  maximum pending
//     requests exceeded"; a prompt longer than the context with context
//     shift off is 400 "the prompt is longer than the context length
//     currently available to the model; …";
//   - /v1/embeddings takes a string or an array of strings (empty: 400
//     "invalid input"), answers L2-normalised vectors with their index and
//     usage.prompt_tokens, base64 when encoding_format says so.
type ollama struct {
	*httptest.Server
	// reply answers a chat request; pieces of a streamed answer are its
	// words with their spaces.
	reply func(r *ollamaChat) string
	// reasoning is what a thinking model reasons before answering.
	reasoning string
	// failAfter > 0 makes a streamed generation fail after that many pieces.
	failAfter int
	// busy answers every chat request 503.
	busy atomic.Bool
	// numCtx > 0 refuses prompts of more words than that (context shift
	// off).
	numCtx int

	mu    sync.Mutex
	chats []*ollamaChat
	embed []map[string]any
}

// ollamaModels are the models the stand-in has pulled.
var ollamaModels = map[string]struct {
	vision, thinking bool
	dim              int // embedding models
}{
	"llama3.2:latest":         {},
	"qwen2.5vl:7b":            {vision: true},
	"qwen3:8b":                {thinking: true},
	"nomic-embed-text:latest": {dim: 8},
}

// ollamaChat is a chat request as Ollama's native layer receives it.
type ollamaChat struct {
	Model     string
	Messages  []ollamaMessage
	Options   map[string]any
	Format    json.RawMessage
	Stream    bool
	Usage     bool
	ImageMIME []string
}

type ollamaMessage struct {
	Role    string
	Content string
	Images  int
}

func newOllama(t *testing.T) *ollama {
	t.Helper()
	o := &ollama{}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

func ollamaError(w http.ResponseWriter, status int, msg string) {
	typ := "api_error"
	switch status {
	case 400:
		typ = "invalid_request_error"
	case 404:
		typ = "not_found_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

// resolve returns the model's full name, or "" when it is not pulled.
func resolve(name string) string {
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	if _, ok := ollamaModels[name]; ok {
		return name
	}
	return ""
}

func (o *ollama) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		var data []any
		for name := range ollamaModels {
			data = append(data, map[string]any{"id": name, "object": "model", "created": 1, "owned_by": "library"})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		o.chat(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings":
		o.embeddings(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (o *ollama) chat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model         string           `json:"model"`
		Messages      []map[string]any `json:"messages"`
		Stream        bool             `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		MaxTokens      *int     `json:"max_tokens"`
		Seed           *int     `json:"seed"`
		Temperature    *float64 `json:"temperature"`
		TopP           *float64 `json:"top_p"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, 400, err.Error())
		return
	}
	if len(req.Messages) == 0 {
		ollamaError(w, 400, "[] is too short - 'messages'")
		return
	}
	c := &ollamaChat{Model: req.Model, Stream: req.Stream, Options: map[string]any{"temperature": 1.0, "top_p": 1.0}}
	c.Usage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	for _, m := range req.Messages {
		role, _ := m["role"].(string)
		switch content := m["content"].(type) {
		case string:
			c.Messages = append(c.Messages, ollamaMessage{Role: role, Content: content})
		case []any:
			for _, p := range content {
				part, ok := p.(map[string]any)
				if !ok {
					ollamaError(w, 400, "invalid message format")
					return
				}
				switch part["type"] {
				case "text":
					text, ok := part["text"].(string)
					if !ok {
						ollamaError(w, 400, "invalid message format")
						return
					}
					c.Messages = append(c.Messages, ollamaMessage{Role: role, Content: text})
				case "image_url":
					url, ok := part["image_url"].(string)
					if obj, isObj := part["image_url"].(map[string]any); isObj {
						url, ok = obj["url"].(string)
					}
					if !ok {
						ollamaError(w, 400, "invalid message format")
						return
					}
					mime, err := decodeOllamaImage(url)
					if err != nil {
						ollamaError(w, 400, err.Error())
						return
					}
					c.ImageMIME = append(c.ImageMIME, mime)
					c.Messages = append(c.Messages, ollamaMessage{Role: role, Images: 1})
				default:
					ollamaError(w, 400, "invalid message format")
					return
				}
			}
		default:
			ollamaError(w, 400, fmt.Sprintf("invalid message content type: %T", content))
			return
		}
	}
	if req.MaxTokens != nil {
		c.Options["num_predict"] = *req.MaxTokens
	}
	if req.Temperature != nil {
		c.Options["temperature"] = *req.Temperature
	}
	if req.TopP != nil {
		c.Options["top_p"] = *req.TopP
	}
	if req.Seed != nil {
		c.Options["seed"] = *req.Seed
	}
	if f := req.ResponseFormat; f != nil {
		switch strings.ToLower(strings.TrimSpace(f.Type)) {
		case "json_object":
			c.Format = json.RawMessage(`"json"`)
		case "json_schema":
			if f.JSONSchema != nil {
				c.Format = f.JSONSchema.Schema
			}
		}
	}
	o.mu.Lock()
	o.chats = append(o.chats, c)
	o.mu.Unlock()

	name := resolve(req.Model)
	if name == "" {
		ollamaError(w, 404, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if o.busy.Load() {
		ollamaError(w, 503, "server busy, please try again.  maximum pending requests exceeded")
		return
	}
	words := 0
	for _, m := range c.Messages {
		words += len(strings.Fields(m.Content)) + 256*m.Images
	}
	if o.numCtx > 0 && words > o.numCtx {
		ollamaError(w, 400, "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length")
		return
	}
	text := o.reply(c)
	reasoning := ""
	if ollamaModels[name].thinking {
		reasoning = o.reasoning
	}
	finish := "stop"
	if n, ok := c.Options["num_predict"].(int); ok && n < len(strings.Fields(text)) {
		text, finish = strings.Join(strings.Fields(text)[:n], " "), "length"
	}
	usage := map[string]any{"prompt_tokens": words, "completion_tokens": len(strings.Fields(text)), "total_tokens": words + len(strings.Fields(text))}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if reasoning != "" {
			msg["reasoning"] = reasoning
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-305", "object": "chat.completion", "created": 1, "model": name, "system_fingerprint": "fp_ollama",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	first := true
	send := func(delta map[string]any, finish any, usage any) {
		ch := map[string]any{"id": "chatcmpl-305", "object": "chat.completion.chunk", "created": 1, "model": name, "system_fingerprint": "fp_ollama"}
		if delta != nil {
			if first {
				delta["role"] = "assistant"
				first = false
			}
			ch["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		} else {
			ch["choices"] = []any{}
		}
		if usage != nil {
			ch["usage"] = usage
		}
		b, _ := json.Marshal(ch)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	for _, p := range wordPieces(reasoning) {
		send(map[string]any{"content": "", "reasoning": p}, nil, nil)
	}
	for i, p := range wordPieces(text) {
		if o.failAfter > 0 && i == o.failAfter {
			// {"error": …} from the runner, read by the compatibility
			// layer as a chunk with no content; then the stream ends.
			send(map[string]any{"content": ""}, nil, nil)
			return
		}
		send(map[string]any{"content": p}, nil, nil)
	}
	send(map[string]any{}, finish, nil)
	if c.Usage {
		send(nil, nil, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// decodeOllamaImage applies the compatibility layer's rules to an image URL
// and returns the declared media type.
func decodeOllamaImage(url string) (string, error) {
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		return "", errors.New("image URLs are not currently supported, please use base64 encoded data instead")
	}
	var b64, mime string
	if rest, ok := strings.CutPrefix(url, "data:;base64,"); ok {
		b64 = rest
	} else {
		for _, t := range []string{"jpeg", "jpg", "png", "webp"} {
			if rest, ok := strings.CutPrefix(url, "data:image/"+t+";base64,"); ok {
				b64, mime = rest, "image/"+t
				break
			}
		}
		if mime == "" {
			return "", errors.New("invalid image input")
		}
	}
	if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
		return "", errors.New("invalid image input")
	}
	return mime, nil
}

// wordPieces cuts s after each run of spaces, as the stand-in streams.
func wordPieces(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

func (o *ollama) embeddings(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, 400, err.Error())
		return
	}
	o.mu.Lock()
	o.embed = append(o.embed, req)
	o.mu.Unlock()
	var inputs []string
	switch in := req["input"].(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, v := range in {
			s, ok := v.(string)
			if !ok {
				ollamaError(w, 400, "invalid input type")
				return
			}
			inputs = append(inputs, s)
		}
	}
	if len(inputs) == 0 {
		ollamaError(w, 400, "invalid input")
		return
	}
	model, _ := req["model"].(string)
	name := resolve(model)
	if name == "" {
		ollamaError(w, 404, fmt.Sprintf("model '%s' not found", model))
		return
	}
	dim := ollamaModels[name].dim
	if dim == 0 {
		ollamaError(w, 400, fmt.Sprintf("%q does not support embeddings", name))
		return
	}
	format, _ := req["encoding_format"].(string)
	var data []any
	tokens := 0
	for i, s := range inputs {
		tokens += len(strings.Fields(s))
		v := make([]float32, dim)
		for _, wd := range strings.Fields(strings.ToLower(s)) {
			h := 0
			for _, c := range wd {
				h = h*31 + int(c)
			}
			v[(h%dim+dim)%dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for j := range v {
			if n > 0 {
				v[j] = float32(float64(v[j]) / math.Sqrt(n))
			}
		}
		var emb any = v
		if strings.EqualFold(format, "base64") {
			var buf bytes.Buffer
			for _, x := range v {
				b := math.Float32bits(x)
				buf.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
			}
			emb = base64.StdEncoding.EncodeToString(buf.Bytes())
		}
		data = append(data, map[string]any{"object": "embedding", "embedding": emb, "index": i})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

func (o *ollama) lastChat() *ollamaChat {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.chats[len(o.chats)-1]
}

// ollamaConfig is what the README's "with Ollama" section sets: the base
// URL with or without /v1, no key.
func ollamaConfig(url, model string) Config {
	return Config{BaseURL: url, Model: model, EmbedModel: "nomic-embed-text"}
}

func TestOllamaChat(t *testing.T) {
	o := newOllama(t)
	o.reply = func(r *ollamaChat) string { return "Paris is the capital of France." }
	c, err := NewChat(ollamaConfig(o.URL, "llama3.2"))
	if err != nil {
		t.Fatal(err)
	}
	req := llmfunc.UserText("What is the capital of France?")
	req.Seed = 7
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Paris is the capital of France." || resp.FinishReason != "stop" || resp.Usage.CompletionTokens != 6 || resp.Usage.PromptTokens != 6 {
		t.Fatalf("response %+v", resp)
	}
	// Ollama's default temperature is 1, not the paper's 0: the adapter
	// always sends it.
	got := o.lastChat()
	if got.Options["temperature"] != 0.0 || got.Options["seed"] != 7 {
		t.Fatalf("options %v", got.Options)
	}
	// A cut answer is "length" when max_tokens is reached.
	req.MaxTokens = 2
	resp, err = c.Generate(context.Background(), req)
	if err != nil || resp.FinishReason != "length" || resp.Text != "Paris is" || o.lastChat().Options["num_predict"] != 2 {
		t.Fatalf("cut: %+v, %v", resp, err)
	}
}

// A thinking model's reasoning stays out of the answer, streamed or not.
func TestOllamaThinkingModel(t *testing.T) {
	o := newOllama(t)
	o.reasoning = "The user asks about France. Its capital is Paris."
	o.reply = func(r *ollamaChat) string { return "<output>Paris</output>" }
	c, _ := NewChat(ollamaConfig(o.URL, "qwen3:8b"))
	resp, err := c.Generate(context.Background(), llmfunc.UserText("capital?"))
	if err != nil || resp.Text != "<output>Paris</output>" {
		t.Fatalf("%+v, %v", resp, err)
	}
	var pieces []string
	resp, err = c.(llm.Streamer).GenerateStream(context.Background(), llmfunc.UserText("capital?"), func(p string) { pieces = append(pieces, p) })
	if err != nil || resp.Text != "<output>Paris</output>" || strings.Join(pieces, "") != resp.Text {
		t.Fatalf("stream: %q, %+v, %v", pieces, resp, err)
	}
}

// Names: a tag-less name is :latest on Ollama, and the adapter's Name (in
// graph headers and cache keys) says the same for both spellings; an
// unpulled model is a 404 that is not retried.
func TestOllamaModelNames(t *testing.T) {
	o := newOllama(t)
	o.reply = func(*ollamaChat) string { return "ok" }
	a, _ := NewChat(ollamaConfig(o.URL, "llama3.2"))
	b, _ := NewChat(ollamaConfig(o.URL, "llama3.2:latest"))
	if a.(llm.Namer).Name() != b.(llm.Namer).Name() {
		t.Fatalf("names %q and %q for one Ollama model", a.(llm.Namer).Name(), b.(llm.Namer).Name())
	}
	for _, m := range []string{"llama3.2", "llama3.2:latest", "qwen2.5vl:7b"} {
		c, _ := NewChat(ollamaConfig(o.URL, m))
		if _, err := c.Generate(context.Background(), llmfunc.UserText("hi")); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if o.lastChat().Model != m {
			t.Fatalf("sent %q for %q", o.lastChat().Model, m)
		}
	}
	if n, _ := NewChat(ollamaConfig(o.URL, "qwen2.5vl:7b")); n.(llm.Namer).Name() != "qwen2.5vl:7b" {
		t.Fatalf("name %q", n.(llm.Namer).Name())
	}
	c, _ := NewChat(ollamaConfig(o.URL, "llama3.3:70b"))
	var calls atomic.Int32
	w := llm.Wrap(countCalls(c, &calls), llm.Middleware{Attempts: 3, BaseDelay: time.Millisecond})
	_, err := w.Generate(context.Background(), llmfunc.UserText("hi"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 404 || !strings.Contains(api.Message, "llama3.3:70b") || calls.Load() != 1 {
		t.Fatalf("unpulled model: %v after %d calls", err, calls.Load())
	}
}

func countCalls(m llm.Model, n *atomic.Int32) llm.Model {
	return llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		n.Add(1)
		return m.Generate(ctx, req)
	})
}

// Structured output: Request.JSONSchema reaches Ollama's native format as
// the schema itself.
func TestOllamaStructuredOutput(t *testing.T) {
	o := newOllama(t)
	o.reply = func(r *ollamaChat) string { return `{"status":"supported","answer":"Paris","evidence":"capital"}` }
	c, _ := NewChat(ollamaConfig(o.URL, "llama3.2"))
	schema := `{"type":"object","properties":{"status":{"type":"string"},"answer":{"type":"string"}},"required":["status","answer"]}`
	req := llmfunc.UserText("q")
	req.JSONSchema, req.SchemaName = []byte(schema), "worker"
	resp, err := c.Generate(context.Background(), req)
	if err != nil || !json.Valid([]byte(resp.Text)) {
		t.Fatalf("%+v, %v", resp, err)
	}
	var got, want any
	json.Unmarshal(o.lastChat().Format, &got)
	json.Unmarshal([]byte(schema), &want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("format %s, want the schema", o.lastChat().Format)
	}
}

// Images: a vision model gets each image as a data URL Ollama decodes, in
// place among the text parts (one native message per part); a model
// configured TextOnly never sends one.
func TestOllamaImages(t *testing.T) {
	o := newOllama(t)
	o.reply = func(r *ollamaChat) string { return fmt.Sprintf("%d images", len(r.ImageMIME)) }
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(3, 3, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	req := &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{
		{Text: "Figure 1:"}, {Image: &llm.Image{Data: buf.Bytes(), MIME: "image/png"}}, {Text: "What is red?"},
	}}}}
	c, _ := NewChat(ollamaConfig(o.URL, "qwen2.5vl:7b"))
	resp, err := c.Generate(context.Background(), req)
	if err != nil || resp.Text != "1 images" {
		t.Fatalf("%+v, %v", resp, err)
	}
	got := o.lastChat()
	if len(got.Messages) != 3 || got.Messages[0].Content != "Figure 1:" || got.Messages[1].Images != 1 || got.Messages[2].Content != "What is red?" || got.ImageMIME[0] != "image/png" {
		t.Fatalf("native messages %+v", got.Messages)
	}
	cfg := ollamaConfig(o.URL, "llama3.2")
	cfg.TextOnly = true
	tc, _ := NewChat(cfg)
	before := len(o.chats)
	if _, err := tc.Generate(context.Background(), req); err == nil || len(o.chats) != before {
		t.Fatalf("image sent to a text-only model: %v", err)
	}
}

func TestOllamaStream(t *testing.T) {
	o := newOllama(t)
	o.reply = func(*ollamaChat) string { return "The capital of France is Paris." }
	c, _ := NewChat(ollamaConfig(o.URL+"/v1", "llama3.2"))
	var pieces []string
	resp, err := c.(llm.Streamer).GenerateStream(context.Background(), llmfunc.UserText("q"), func(p string) { pieces = append(pieces, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 6 || strings.Join(pieces, "") != resp.Text || resp.Text != "The capital of France is Paris." {
		t.Fatalf("pieces %q, %+v", pieces, resp)
	}
	if resp.FinishReason != "stop" || resp.Usage.CompletionTokens != 6 || !o.lastChat().Usage {
		t.Fatalf("response %+v", resp)
	}
}

// A generation that fails mid-stream ends the stream without a finish:
// the call fails as unavailable, and is not repeated once text was passed
// on.
func TestOllamaStreamFailsMidway(t *testing.T) {
	o := newOllama(t)
	o.reply = func(*ollamaChat) string { return "one two three four" }
	o.failAfter = 2
	c, _ := NewChat(ollamaConfig(o.URL, "llama3.2"))
	w := llm.Wrap(c, llm.Middleware{Attempts: 3, BaseDelay: time.Millisecond}).(llm.Streamer)
	var pieces []string
	_, err := w.GenerateStream(context.Background(), llmfunc.UserText("q"), func(p string) { pieces = append(pieces, p) })
	if !errors.Is(err, llm.ErrUnavailable) || strings.Join(pieces, "") != "one two " {
		t.Fatalf("pieces %q, err %v", pieces, err)
	}
	if n := len(o.chats); n != 1 {
		t.Fatalf("%d requests: retried after text was shown", n)
	}
}

// A full queue (503) is waited out by the middleware's retries; a prompt
// longer than the context is ErrContextTooLong and is not.
func TestOllamaBusyAndContext(t *testing.T) {
	o := newOllama(t)
	o.reply = func(*ollamaChat) string { return "ok" }
	o.busy.Store(true)
	c, _ := NewChat(ollamaConfig(o.URL, "llama3.2"))
	w := llm.Wrap(c, llm.Middleware{Attempts: 3, BaseDelay: time.Millisecond, OnRetry: func(int, error, time.Duration) { o.busy.Store(false) }})
	if resp, err := w.Generate(context.Background(), llmfunc.UserText("q")); err != nil || resp.Text != "ok" || len(o.chats) != 2 {
		t.Fatalf("busy: %+v, %v after %d requests", resp, err, len(o.chats))
	}
	o.numCtx = 3
	_, err := w.Generate(context.Background(), llmfunc.UserText("a prompt of many words"))
	if !errors.Is(err, llm.ErrContextTooLong) || len(o.chats) != 3 {
		t.Fatalf("context: %v after %d requests", err, len(o.chats))
	}
}

func TestOllamaEmbeddings(t *testing.T) {
	o := newOllama(t)
	e, err := NewEmbedder(ollamaConfig(o.URL, "llama3.2"))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"flow routing", "min cost flow", "reader"}
	vecs, err := e.Embed(context.Background(), texts, llm.KindDocument)
	if err != nil || len(vecs) != 3 || len(vecs[0]) != 8 || e.Dimension() != 8 {
		t.Fatalf("%v, %v", vecs, err)
	}
	// nomic-embed-text on Ollama is v1.5: its task prefixes are sent.
	in := o.embed[0]["input"].([]any)
	if in[0] != "search_document: flow routing" {
		t.Fatalf("input %v", in)
	}
	q, _ := e.Embed(context.Background(), []string{"flow"}, llm.KindQuery)
	if o.embed[1]["input"].([]any)[0] != "search_query: flow" || len(q[0]) != 8 {
		t.Fatalf("query input %v", o.embed[1]["input"])
	}
	cfg := ollamaConfig(o.URL, "")
	cfg.EmbedModel = "nomic-embed-text:latest"
	if e3, _ := NewEmbedder(cfg); e3.(llm.Namer).Name() != e.(llm.Namer).Name() {
		t.Fatalf("names %q and %q for one Ollama model", e3.(llm.Namer).Name(), e.(llm.Namer).Name())
	}
	// An unpulled embedding model is a 404.
	cfg.EmbedModel = "mxbai-embed-large"
	e2, _ := NewEmbedder(cfg)
	_, err = e2.Embed(context.Background(), texts, llm.KindDocument)
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 404 {
		t.Fatalf("unpulled: %v", err)
	}
}
