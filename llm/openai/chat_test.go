package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestChatImagesAsDataURIsInOrder(t *testing.T) {
	// Thin images keep the race-instrumented resampler cheap.
	big := pngBytes(t, 3400, 20)
	small := jpegBytes(t, 64, 48)
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path != "/v1/chat/completions" {
			writeErr(w, 404, "not found")
			return
		}
		writeChat(w, "seen")
	})
	c, err := NewChat(chatConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: "be brief"}}},
		{Role: "user", Parts: []llm.Part{
			{Text: "first"}, {Image: &llm.Image{Data: big, MIME: "image/png"}},
			{Text: "second"}, {Image: &llm.Image{Data: small, MIME: "image/jpeg"}},
		}},
	}}
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "seen" || resp.FinishReason != "stop" || resp.Usage.PromptTokens != 11 || resp.Usage.CompletionTokens != 3 {
		t.Fatalf("response %+v", resp)
	}
	msgs := srv.last()["messages"].([]any)
	if sys := msgs[0].(map[string]any); sys["role"] != "system" || sys["content"] != "be brief" {
		t.Fatalf("system message %v", sys)
	}
	parts := msgs[1].(map[string]any)["content"].([]any)
	kinds := []string{"text", "image_url", "text", "image_url"}
	for i, p := range parts {
		if p.(map[string]any)["type"] != kinds[i] {
			t.Fatalf("part %d is %v, want %s", i, p, kinds[i])
		}
	}
	if parts[0].(map[string]any)["text"] != "first" || parts[2].(map[string]any)["text"] != "second" {
		t.Fatal("text parts out of order")
	}
	uri1 := parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	uri2 := parts[3].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	if !strings.HasPrefix(uri1, "data:image/png;base64,") || !strings.HasPrefix(uri2, "data:image/jpeg;base64,") {
		t.Fatalf("data URIs %.40s / %.40s", uri1, uri2)
	}
	img1, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri1, "data:image/png;base64,"))
	cfg, err := png.DecodeConfig(bytes.NewReader(img1))
	if err != nil || cfg.Width != 1600 || cfg.Height != 9 {
		t.Fatalf("downscaled image %dx%d, %v; want 1600x9", cfg.Width, cfg.Height, err)
	}
	img2, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri2, "data:image/jpeg;base64,"))
	if !bytes.Equal(img2, small) {
		t.Fatal("small image was re-encoded")
	}
}

func TestChatImageOptions(t *testing.T) {
	big := pngBytes(t, 30, 90)
	if d, mime, err := prepareImage(&llm.Image{Data: big}, 10); err != nil || mime != "image/png" {
		t.Fatal(err, mime)
	} else if cfg, _ := png.DecodeConfig(bytes.NewReader(d)); cfg.Width != 3 || cfg.Height != 10 {
		t.Fatalf("%dx%d", cfg.Width, cfg.Height)
	}
	if d, mime, err := prepareImage(&llm.Image{Data: jpegBytes(t, 40, 20), MIME: "image/jpg"}, 10); err != nil || mime != "image/jpeg" {
		t.Fatal(err, mime)
	} else if cfg, err := jpeg.DecodeConfig(bytes.NewReader(d)); err != nil || cfg.Width != 10 || cfg.Height != 5 {
		t.Fatalf("jpeg %dx%d %v", cfg.Width, cfg.Height, err)
	}
	if d, _, _ := prepareImage(&llm.Image{Data: big, MIME: "image/png"}, -1); !bytes.Equal(d, big) {
		t.Fatal("negative MaxImageSide still downscaled")
	}
	if _, _, err := prepareImage(&llm.Image{Data: []byte("GIF89a...."), MIME: "image/gif"}, 0); !errors.Is(err, errImage) {
		t.Fatal(err)
	}
	if _, _, err := prepareImage(&llm.Image{Data: []byte("\x89PNG\r\n\x1a\ngarbage"), MIME: "image/png"}, 0); !errors.Is(err, errImage) {
		t.Fatal(err)
	}
	c, _ := NewChat(Config{BaseURL: "http://x", Model: "m", TextOnly: true})
	if c.(llm.ImageAccepter).AcceptsImages() {
		t.Fatal("TextOnly accepts images")
	}
	if _, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: "user",
		Parts: []llm.Part{{Image: &llm.Image{Data: big, MIME: "image/png"}}, {Text: "x"}}}}}); err == nil {
		t.Fatal("image sent to text-only model")
	}
}

func TestChatSchemaParamsAndExtra(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) { writeChat(w, `{"ok":true}`) })
	cfg := chatConfig(srv.URL + "/v1/")
	cfg.Extra = map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}, "top_k": 20}
	c, err := NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	req := llmfunc.UserText("judge")
	req.JSONSchema = []byte(schema)
	req.SchemaName = "verdict"
	req.Temperature, req.TopP, req.MaxTokens, req.Seed = 0.2, 0.9, 128, 42
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	b := srv.last()
	rf := b["response_format"].(map[string]any)
	js := rf["json_schema"].(map[string]any)
	got, _ := json.Marshal(js["schema"])
	var a, e any
	json.Unmarshal(got, &a)
	json.Unmarshal([]byte(schema), &e)
	if rf["type"] != "json_schema" || js["name"] != "verdict" || fmt.Sprint(a) != fmt.Sprint(e) {
		t.Fatalf("response_format %v", rf)
	}
	if b["temperature"] != 0.2 || b["top_p"] != 0.9 || b["max_tokens"] != 128.0 || b["seed"] != 42.0 || b["model"] != "Qwen/Qwen3-VL-32B-Instruct" {
		t.Fatalf("sampling params %v", b)
	}
	if b["top_k"] != 20.0 || b["chat_template_kwargs"].(map[string]any)["enable_thinking"] != false {
		t.Fatalf("extra not merged: %v", b)
	}
	if b["messages"].([]any)[0].(map[string]any)["content"] != "judge" {
		t.Fatal("single text part not sent as a string")
	}
	// Zero values are omitted, temperature 0 is sent.
	c.Generate(context.Background(), llmfunc.UserText("x"))
	b = srv.last()
	if _, ok := b["top_p"]; ok || b["temperature"] != 0.0 {
		t.Fatalf("defaults %v", b)
	}
	if _, ok := b["response_format"]; ok {
		t.Fatal("response_format without schema")
	}
	bad := llmfunc.UserText("x")
	bad.JSONSchema = []byte("{not json")
	if _, err := c.Generate(context.Background(), bad); err == nil {
		t.Fatal("invalid schema accepted")
	}
}

func TestChatErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		old    bool
		msg    string
		want   error
	}{
		{"context new", 400, false, "This model's maximum context length is 32768 tokens. However, you requested 40100 tokens (40000 in the messages, 100 in the completion).", llm.ErrContextTooLong},
		{"context old", 400, true, "The decoder prompt (length 40000) is longer than the maximum model length of 32768.", llm.ErrContextTooLong},
		{"images new", 400, false, "At most 1 image(s) may be provided in one request. You can set `--limit-mm-per-prompt` to increase this limit.", llm.ErrContextTooLong},
		{"images old", 400, true, "At most 4 image(s) may be provided in one prompt.", llm.ErrContextTooLong},
		{"rate", 429, false, "Too many requests", llm.ErrRateLimited},
		{"other", 404, true, "The model `x` does not exist.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				if tc.old {
					writeOldErr(w, tc.status, tc.msg)
				} else {
					writeErr(w, tc.status, tc.msg)
				}
			})
			c, _ := NewChat(chatConfig(srv.URL))
			_, err := c.Generate(context.Background(), llmfunc.UserText("x"))
			var api *llm.APIError
			if !errors.As(err, &api) || api.StatusCode != tc.status || api.Message != tc.msg {
				t.Fatalf("err = %#v", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err %v does not match %v", err, tc.want)
			}
			for _, s := range []error{llm.ErrContextTooLong, llm.ErrRateLimited} {
				if s != tc.want && errors.Is(err, s) {
					t.Fatalf("err %v wrongly matches %v", err, s)
				}
			}
		})
	}
}

func TestChatRetryAfterThenSuccess(t *testing.T) {
	srv := newVLLM(t, nil)
	n := 0
	srv.Config.Handler = wrapAuth(srv, func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "0.002")
			writeErr(w, 429, "rate limit exceeded")
			return
		}
		writeChat(w, "fine")
	})
	c, _ := NewChat(chatConfig(srv.URL))
	var waits []time.Duration
	m := llm.Wrap(c, llm.Middleware{Attempts: 4, OnRetry: func(_ int, _ error, d time.Duration) {
		waits = append(waits, d)
	}})
	resp, err := m.Generate(context.Background(), llmfunc.UserText("x"))
	if err != nil || resp.Text != "fine" {
		t.Fatal(resp, err)
	}
	if n != 2 || len(waits) != 1 || waits[0] != 2*time.Millisecond {
		t.Fatalf("requests %d, waits %v", n, waits)
	}
}

// wrapAuth installs h behind the server's request counter and auth check.
func wrapAuth(v *vllm, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			writeErr(w, 401, "Unauthorized")
			return
		}
		h(w, r)
	})
}

func TestChatPersistent500(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeErr(w, 500, "engine dead")
	})
	c, _ := NewChat(chatConfig(srv.URL))
	m := llm.Wrap(c, llm.Middleware{Attempts: 3, BaseDelay: time.Microsecond})
	_, err := m.Generate(context.Background(), llmfunc.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 500 {
		t.Fatalf("err = %v", err)
	}
	if got := srv.requests.Load(); got != 3 {
		t.Fatalf("%d requests, want 3", got)
	}
}

func TestChatStalledServerHitsDeadline(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		<-r.Context().Done()
	})
	c, _ := NewChat(chatConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := llm.Wrap(c, llm.Middleware{Attempts: 2, BaseDelay: time.Microsecond}).Generate(ctx, llmfunc.UserText("x"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if n := srv.requests.Load(); n != 1 {
		t.Fatalf("deadline retried: %d requests", n)
	}
}

func TestChatCancelStopsInFlight(t *testing.T) {
	arrived := make(chan struct{})
	gone := make(chan struct{})
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		close(arrived)
		<-r.Context().Done()
		close(gone)
	})
	c, _ := NewChat(chatConfig(srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Generate(ctx, llmfunc.UserText("x"))
		errc <- err
	}()
	<-arrived
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	<-gone // the server saw the connection go: the call really stopped
}

func TestChatMalformedBody(t *testing.T) {
	for _, body := range []string{"not json", `{"choices":[]}`, `{"choices":"x"}`, ""} {
		srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Write([]byte(body))
		})
		c, _ := NewChat(chatConfig(srv.URL))
		if _, err := c.Generate(context.Background(), llmfunc.UserText("x")); !errors.Is(err, llm.ErrInvalidOutput) {
			t.Errorf("body %q: err = %v", body, err)
		}
	}
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		writeChat(w, strings.Repeat("x", 1000))
	})
	cfg := chatConfig(srv.URL)
	cfg.MaxResponseBytes = 100
	c, _ := NewChat(cfg)
	if _, err := c.Generate(context.Background(), llmfunc.UserText("x")); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("oversized body: %v", err)
	}
}

func TestAPIKeySentButNeverShown(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		// A careless proxy echoes the credential.
		writeErr(w, 403, "key "+r.Header.Get("Authorization")+" lacks scope")
	})
	c, _ := NewChat(chatConfig(srv.URL))
	_, err := c.Generate(context.Background(), llmfunc.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 403 {
		t.Fatalf("auth did not pass (or wrong error): %v", err)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(api.Message, testKey) {
		t.Fatalf("key leaked: %v", err)
	}
	// Transport failures carry the URL but not the key.
	cfg := chatConfig("http://127.0.0.1:1")
	c2, _ := NewChat(cfg)
	_, err = c2.Generate(context.Background(), llmfunc.UserText("x"))
	if !errors.Is(err, llm.ErrUnavailable) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("unreachable: %v", err)
	}
	cfg.EmbedKey = testKey + "-e"
	cfg.EmbedURL = "http://proxy:" + testKey + "@127.0.0.1:1/v1" // a password in the userinfo
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "127.0.0.1:1/v1") {
			t.Fatalf("Config prints the key: %s", s)
		}
	}
}

func TestCacheSecondCallNoHTTP(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { writeChat(w, "cached") })
	c, _ := NewChat(chatConfig(srv.URL))
	m := llm.Wrap(c, llm.Middleware{Cache: llm.DirStore(t.TempDir())})
	for i := 0; i < 2; i++ {
		r, err := m.Generate(context.Background(), llmfunc.UserText("same"))
		if err != nil || r.Text != "cached" {
			t.Fatal(r, err)
		}
	}
	if got := srv.requests.Load(); got != 1 {
		t.Fatalf("%d HTTP requests for two identical calls", got)
	}
}

func TestConfig(t *testing.T) {
	t.Setenv("FLOWREADER_LLM_URL", "http://h:8000")
	t.Setenv("FLOWREADER_LLM_MODEL", "m")
	t.Setenv("FLOWREADER_EMBED_URL", "http://e:8001/v1")
	t.Setenv("FLOWREADER_EMBED_MODEL", "nomic-ai/nomic-embed-text-v1.5")
	t.Setenv("FLOWREADER_API_KEY", "k")
	t.Setenv("FLOWREADER_EMBED_KEY", "")
	cfg := FromEnv()
	if cfg.BaseURL != "http://h:8000" || cfg.Model != "m" || cfg.EmbedURL != "http://e:8001/v1" || cfg.APIKey != "k" || cfg.embedKey() != "k" {
		t.Fatalf("%+v", cfg)
	}
	c, err := NewChat(cfg)
	if err != nil || c.(*chat).base != "http://h:8000/v1" {
		t.Fatal(c, err)
	}
	e, err := NewEmbedder(cfg)
	if err != nil || e.(*embedder).base != "http://e:8001/v1" || e.(*embedder).docPrefix != nomicDocumentPrefix {
		t.Fatal(err)
	}
	for _, bad := range []Config{{}, {BaseURL: "ftp://x", Model: "m"}, {BaseURL: "http://x"}} {
		if _, err := NewChat(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("NewChat(%v) = %v", bad, err)
		}
	}
	for _, bad := range []Config{
		{BaseURL: "http://x", EmbedModel: "e", Matryoshka: -1},
		{BaseURL: "http://x", EmbedModel: "e", NoPrefixes: true, QueryPrefix: "q: "},
	} {
		if _, err := NewEmbedder(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("NewEmbedder(%v) = %v", bad, err)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "0.5": 500 * time.Millisecond, "-1": 0, "soon": 0,
		now.Add(10 * time.Second).Format(http.TimeFormat): 10 * time.Second,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}
