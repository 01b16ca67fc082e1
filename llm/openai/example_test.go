package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/flowreader/flowreader/internal/llmfunc"
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
	resp, err := m.Generate(context.Background(), llmfunc.UserText("Capital of France?"))
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

// Streaming: the model NewChat returns is an llm.Streamer, whose answer's
// pieces arrive as the server writes them.
func ExampleNewChat_stream() {
	// A stand-in for a server streaming server-sent events.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range []string{"Par", "is"} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", p)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	chat, _ := openai.NewChat(openai.Config{BaseURL: srv.URL, Model: "llama3.2"})
	resp, err := chat.(llm.Streamer).GenerateStream(context.Background(), llmfunc.UserText("Capital of France?"), func(piece string) {
		fmt.Printf("piece %q\n", piece)
	})
	fmt.Println(resp.Text, resp.FinishReason, resp.Usage.CompletionTokens, err)
	// Output:
	// piece "Par"
	// piece "is"
	// Paris stop 2 <nil>
}

// Ollama: its OpenAI-compatible endpoints at :11434/v1, no key; a model
// name may carry a tag.
func ExampleNewChat_ollama() {
	cfg := openai.Config{
		BaseURL:    "http://localhost:11434/v1",
		Model:      "qwen2.5vl:7b",
		EmbedModel: "nomic-embed-text", // task prefixes sent, as for nomic-embed-text-v1.5
	}
	chat, _ := openai.NewChat(cfg)
	emb, _ := openai.NewEmbedder(cfg)
	fmt.Println(chat.(llm.Namer).Name(), emb.(llm.Namer).Name())
	// Output: qwen2.5vl:7b nomic-embed-text
}

func ExampleNewReranker() {
	// A stand-in for vLLM's, Infinity's or Jina's /rerank.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"index":1,"relevance_score":0.97},{"index":0,"relevance_score":0.02}],"usage":{"total_tokens":31}}`)
	}))
	defer srv.Close()

	r, _ := openai.NewReranker(openai.Config{RerankURL: srv.URL, RerankModel: "BAAI/bge-reranker-v2-m3"})
	scores, err := r.Rerank(context.Background(), "What is min-cost flow?", []string{
		"The weather was mild.",
		"Minimum-cost flow routes a flow through a network at the least total cost.",
	})
	fmt.Println(scores, err) // in input order
	// Output: [0.02 0.97] <nil>
}
