package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

const testKey = "sk-test-9f8e7d6c5b4a"

// vllm is an httptest server speaking the OpenAI-compatible protocol the way
// vLLM does: bearer auth, JSON bodies, vLLM's error bodies. Each test
// supplies the handler for the endpoint under test.
type vllm struct {
	*httptest.Server
	requests atomic.Int32
	mu       sync.Mutex
	bodies   []map[string]any
}

// handler receives the decoded request body (nil for GET).
type handler func(w http.ResponseWriter, r *http.Request, body map[string]any)

func newVLLM(t *testing.T, h handler) *vllm {
	t.Helper()
	v := &vllm{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			writeErr(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		var body map[string]any
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(b, &body); err != nil {
				writeErr(w, http.StatusBadRequest, "bad JSON")
				return
			}
			v.mu.Lock()
			v.bodies = append(v.bodies, body)
			v.mu.Unlock()
		}
		h(w, r, body)
	}))
	t.Cleanup(v.Close)
	return v
}

func (v *vllm) last() map[string]any {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.bodies[len(v.bodies)-1]
}

// writeErr writes vLLM's current error body (OpenAI style).
func writeErr(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "BadRequestError", "param": nil, "code": status,
	}})
}

// writeOldErr writes the error body of vLLM before 0.9.
func writeOldErr(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"object": "error", "message": msg, "type": "BadRequestError", "param": nil, "code": status,
	})
}

func writeChat(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": text, "reasoning_content": nil},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
	})
}

func writeEmbeddings(w http.ResponseWriter, vecs [][]float64, reverse bool) {
	data := make([]any, len(vecs))
	for i, v := range vecs {
		j := i
		if reverse {
			j = len(vecs) - 1 - i
		}
		data[j] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "e",
		"usage": map[string]any{"prompt_tokens": 4, "total_tokens": 4}})
}

func chatConfig(url string) Config {
	return Config{BaseURL: url, APIKey: testKey, Model: "Qwen/Qwen3-VL-32B-Instruct"}
}
