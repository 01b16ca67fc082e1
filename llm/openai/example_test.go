package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

func ExampleNewChat() {
	// A stand-in for a vLLM server.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices":[{"message":{"content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`)
	}))
	defer srv.Close()

	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, Model: "Qwen/Qwen3-VL-32B-Instruct"})
	if err != nil {
		panic(err)
	}
	m := llm.Wrap(chat, llm.Middleware{Attempts: 4}) // adapters do not retry by themselves
	resp, err := m.Generate(context.Background(), llm.UserText("Capital of France?"))
	fmt.Println(resp.Text, resp.FinishReason, resp.Usage.PromptTokens, err)
	// Output: Paris stop 9 <nil>
}

func ExampleNewEmbedder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[{"index":0,"embedding":[3,4]}]}`)
	}))
	defer srv.Close()

	e, _ := openai.NewEmbedder(openai.Config{EmbedURL: srv.URL, EmbedModel: "nomic-ai/nomic-embed-text-v1.5"})
	v, err := e.Embed(context.Background(), []string{"what is flow?"}, llm.KindQuery) // sent as "search_query: what is flow?"
	fmt.Println(v, e.Dimension(), err)
	// Output: [[0.6 0.8]] 2 <nil>
}

func ExampleFromEnv() {
	cfg := openai.FromEnv() // FLOWREADER_LLM_URL, FLOWREADER_LLM_MODEL, ...
	if cfg.BaseURL == "" {
		fmt.Println("no server configured: use the local defaults")
		return
	}
	chat, err := openai.NewChat(cfg)
	fmt.Println(chat.(llm.Namer).Name(), err)
}
