package openai

import (
	"errors"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
)

func FuzzParseChat(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
		`{"choices":[{"message":{"content":null},"finish_reason":"length"}]}`,
		`{"choices":[]}`, `{}`, `null`, `[]`, `{"choices":[{"message":{"content":1}}]}`,
		`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseChat(data)
		if err != nil {
			if !errors.Is(err, llm.ErrInvalidOutput) {
				t.Fatalf("error %v does not wrap ErrInvalidOutput", err)
			}
			return
		}
		if r == nil || r.Usage.PromptTokens < 0 || r.Usage.CompletionTokens < 0 {
			t.Fatalf("bad success %+v", r)
		}
	})
}

func FuzzParseEmbeddings(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"index":0,"embedding":[0.1,0.2]},{"index":1,"embedding":[0.3,0.4]}]}`,
		`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`,
		`{"data":[{"embedding":[1]},{"embedding":[2]}]}`,
		`{"data":[{"index":5,"embedding":[1]},{"index":0,"embedding":[2]}]}`,
		`{"data":[{"index":0,"embedding":[1e39]},{"index":1,"embedding":[1]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}],"usage":{"prompt_tokens":7,"total_tokens":7}}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}],"usage":{"prompt_tokens":-1}}`,
	} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vecs, tokens, err := parseEmbeddingsUsage(data, n)
		if tokens < 0 {
			t.Fatalf("negative tokens %d", tokens)
		}
		if err != nil {
			if !errors.Is(err, llm.ErrInvalidOutput) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if err := llmutil.CheckVectors(vecs, n, 0); err != nil {
			t.Fatalf("accepted invalid output: %v", err)
		}
	})
}

func FuzzParseError(f *testing.F) {
	for _, s := range []string{
		`{"error":{"message":"At most 1 image(s) may be provided in one request.","type":"BadRequestError","code":400}}`,
		`{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","param":null,"code":400}`,
		`{"error":"plain string"}`, `{"detail":"Not Found"}`, `{"detail":[{"loc":["body"],"msg":"x"}]}`, `<html>502</html>`, ``,
	} {
		f.Add(400, "", []byte(s))
	}
	f.Add(429, "7", []byte(`{"error":{"message":"slow down"}}`))
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		e := parseError(status, retryAfter, body, time.Unix(0, 0), "")
		if e.StatusCode != status || e.RetryAfter < 0 || len(e.Message) > maxMessage+len("…") {
			t.Fatalf("bad error %+v", e)
		}
	})
}
