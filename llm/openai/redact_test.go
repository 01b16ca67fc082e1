package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

// leaked returns a run of minFragment consecutive characters of key that
// appears in s ("" when none does): redaction allows at most minFragment-1.
func leaked(s, key string) string {
	for i := 0; i+minFragment <= len(key); i++ {
		if strings.Contains(s, key[i:i+minFragment]) {
			return key[i : i+minFragment]
		}
	}
	return ""
}

const redactKey = "sk-proj-7f3a9c1e5b2d8f4a6c0e9b7d3f1a5c8e2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f1a"

// A model server that echoes the Authorization header in its error: the
// key never reaches the error, whatever the cut position of the message
// and whatever part of the key the server itself cut off. "Partially"
// means a run of minFragment (8) or more consecutive characters of the
// key: redaction removes every such run, so at most 7 characters of the
// key (less than any key's entropy) can appear in anything printed. Every
// cut position is checked on parseError (where redaction and the cut
// happen); a few through a real HTTP exchange.
func TestKeyRedactedAtEveryCutPosition(t *testing.T) {
	bearer := "Bearer " + redactKey
	echoes := map[string]func(m int) string{
		"whole header":        func(int) string { return "invalid header Authorization: " + bearer + " (rejected)" },
		"twice":               func(int) string { return bearer + " / " + bearer },
		"cut by the upstream": func(m int) string { return "token " + redactKey[:m] },
	}
	check := func(name string, m, pad int, err error) {
		t.Helper()
		var api *llm.APIError
		if !errors.As(err, &api) {
			t.Fatalf("%s: %v", name, err)
		}
		if l := leaked(err.Error(), redactKey); len(l) >= minFragment {
			t.Fatalf("%s, key cut at %d, pad %d: %q of the key in %q", name, m, pad, l, err.Error())
		}
		if len(api.Message) > maxMessage+len("…") {
			t.Fatalf("message of %d bytes", len(api.Message))
		}
	}
	for name, echo := range echoes {
		for m := 1; m <= len(redactKey); m++ {
			// Every pad that puts the cut before, inside or after the echo.
			lo := maxMessage - len(echo(m)) - 3
			for pad := lo; pad <= maxMessage+3; pad++ {
				body := fmt.Sprintf(`{"error":{"message":%q}}`, strings.Repeat("x", pad)+echo(m))
				check(name, m, pad, parseError(http.StatusUnauthorized, "", []byte(body), time.Now(), redactKey))
			}
			if name != "cut by the upstream" {
				break // m does not change these
			}
		}
	}

	// The same through the transport, at a few cut positions.
	var pad int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, strings.Repeat("x", pad)+"Authorization: "+r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c, err := NewChat(Config{BaseURL: srv.URL, APIKey: redactKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{0, 400, 480, 490, 500, 505, 510, 512} {
		pad = p
		_, err := c.Generate(context.Background(), llmfunc.UserText("q"))
		check("through HTTP", len(redactKey), p, err)
	}
}

// redactMessage removes every run of minFragment or more characters of
// the key, whatever surrounds it, and keeps the rest.
func FuzzRedact(f *testing.F) {
	f.Add("error: Bearer "+redactKey+" rejected", redactKey, 40)
	f.Add("prefix "+redactKey[:20], redactKey, 10)
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaa", 5)
	f.Add("no key here", "short", 3)
	f.Fuzz(func(t *testing.T, msg, key string, cut int) {
		// API keys are printable ASCII, and longer than a fragment.
		if len(key) < minFragment || strings.IndexFunc(key, func(r rune) bool { return r < '!' || r > '~' }) >= 0 {
			return
		}
		out := truncate(redactMessage(msg, key), cut)
		if l := leaked(out, key); len(l) >= minFragment {
			t.Fatalf("%q of the key %q left in %q", l, key, out)
		}
		if len(leaked(msg, key)) < min(len(key), minFragment) && redactMessage(msg, key) != msg {
			t.Fatalf("%q changed without a fragment of %q", msg, key)
		}
	})
}

// The whole path of a failed call, with retries logged: nothing the
// middleware's OnRetry sees holds the key.
func TestKeyRedactedThroughRetries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, strings.Repeat("y", 500)+r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c, err := NewChat(Config{BaseURL: srv.URL, APIKey: redactKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	m := llm.Wrap(c, llm.Middleware{Attempts: 3, BaseDelay: time.Millisecond, OnRetry: func(_ int, err error, _ time.Duration) { seen = append(seen, err.Error()) }})
	_, err = m.Generate(context.Background(), llmfunc.UserText("q"))
	seen = append(seen, err.Error())
	for _, s := range seen {
		if l := leaked(s, redactKey); len(l) >= minFragment {
			t.Fatalf("%q of the key in %q", l, s)
		}
	}
}
