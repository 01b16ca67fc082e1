package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/internal/llmfunc"
)

// A chat server that redirects to another origin (here another port of the
// same host, which Go's client treats as the same host and sends the key
// to) never receives the key there; a redirect within the origin keeps it.
func TestKeyNotSentOnRedirectToAnotherOrigin(t *testing.T) {
	var leaked atomic.Value
	leaked.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			leaked.Store(a)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"content":"elsewhere"},"finish_reason":"stop"}]}`))
	}))
	defer other.Close()
	var sameAuth atomic.Value
	sameAuth.Store("")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/chat/completions":
			http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		case "/same/v1/chat/completions":
			http.Redirect(w, r, srv.URL+"/here", http.StatusTemporaryRedirect)
		case "/here":
			sameAuth.Store(r.Header.Get("Authorization"))
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices":[{"message":{"content":"here"},"finish_reason":"stop"}]}`))
		}
	}))
	defer srv.Close()
	for _, hc := range []*http.Client{nil, {}} {
		c, err := NewChat(Config{BaseURL: srv.URL, APIKey: testKey, Model: "m", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Generate(context.Background(), llmfunc.UserText("hi")); err != nil {
			t.Fatal(err)
		}
		if got := leaked.Load().(string); got != "" {
			t.Fatalf("the key went to another origin on a redirect: %q", got)
		}
		c, err = NewChat(Config{BaseURL: srv.URL + "/same", APIKey: testKey, Model: "m", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Generate(context.Background(), llmfunc.UserText("hi")); err != nil {
			t.Fatal(err)
		}
		if got := sameAuth.Load().(string); got != "Bearer "+testKey {
			t.Fatalf("a redirect within the origin lost the key: %q", got)
		}
	}
}

// A base URL with credentials in it never shows them in an error.
func TestURLCredentialsRedactedInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := strings.Replace(srv.URL, "http://", "http://alice:hunter2@", 1)
	srv.Close() // connection refused
	c, err := NewChat(Config{BaseURL: url, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), llmfunc.UserText("hi"))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error shows the password: %v", err)
	}
	_, err = NewChat(Config{BaseURL: "ftp://alice:hunter2@host/v1", Model: "m"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("config error shows the password: %v", err)
	}
}
