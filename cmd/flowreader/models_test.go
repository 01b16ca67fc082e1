package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/llm"
)

func TestEndpointsResolve(t *testing.T) {
	for _, c := range []struct {
		name       string
		flags      []string
		env        env
		model, emb bool
		err        string
	}{
		{name: "nothing set: embedded defaults"},
		{name: "env only", env: env{envLLMURL: "http://h:8000/v1", envLLMModel: "qwen3-vl", envEmbedURL: "http://h:8001", envEmbedModel: "nomic-ai/nomic-embed-text-v1.5"}, model: true, emb: true},
		{name: "flags only", flags: []string{"--llm-url", "http://h:8000", "--llm-model", "m", "--embed-url", "http://h:8001", "--embed-model", "e"}, model: true, emb: true},
		{name: "embeddings on the chat server", env: env{envLLMURL: "http://h:8000", envEmbedModel: "e"}, emb: true},
		{name: "flag overrides env", flags: []string{"--llm-model", "m"}, env: env{envLLMURL: "http://h:8000", envLLMModel: "other"}, model: true},
		{name: "model without url", flags: []string{"--llm-model", "m"}, err: "no chat server"},
		{name: "url without model", env: env{envLLMURL: "http://h"}, err: "no model"},
		{name: "embed url without model", flags: []string{"--embed-url", "http://h"}, err: "no model"},
		{name: "embed model without url", env: env{envEmbedModel: "e"}, err: "no server"},
		{name: "embed dim without model", flags: []string{"--embed-dim", "256"}, err: "needs a remote embedding model"},
		{name: "not http", flags: []string{"--llm-url", "ftp://h", "--llm-model", "m"}, err: "not http"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			var ep endpoints
			ep.register(fs)
			if err := fs.Parse(c.flags); err != nil {
				t.Fatal(err)
			}
			m, err := ep.resolve(c.env.get)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (m.model != nil) != c.model || (m.embedder != nil) != c.emb {
				t.Errorf("model %v embedder %v, want %v %v", m.model != nil, m.embedder != nil, c.model, c.emb)
			}
			if len(m.describe) != btoi(c.model)+btoi(c.emb) {
				t.Errorf("describe %q", m.describe)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Usage mistakes exit 2; the names given win over the environment; the
// embedder keeps its name through the retry wrapper (it goes into the
// graph header).
func TestEndpointsDetails(t *testing.T) {
	var ep endpoints
	_, err := endpoints{llmModel: "m"}.resolve(env{}.get)
	if !errors.Is(err, errUsage) {
		t.Errorf("%v is not a usage error", err)
	}
	ep = endpoints{embedURL: "http://h:1", embedModel: "nomic-ai/nomic-embed-text-v1.5", embedDim: 256}
	m, err := ep.resolve(env{envEmbedModel: "other"}.get)
	if err != nil {
		t.Fatal(err)
	}
	if got := embedderName(m.embedder); got != "nomic-ai/nomic-embed-text-v1.5@256" {
		t.Errorf("embedder name %q", got)
	}
	if m.embedder.Dimension() != 256 {
		t.Errorf("dimension %d", m.embedder.Dimension())
	}
	if _, ok := m.embedder.(llm.Namer); !ok {
		t.Error("wrapped embedder lost its name")
	}
}

// routerString prints a router's settings.
func routerString(r flow.Router) string { return fmt.Sprint(r) }

func TestPresetConfig(t *testing.T) {
	for name, want := range map[string]flowreader.Config{"": flowreader.Config{}, "aspects": flowreader.Config{}, "aspects-paper": flowreader.PaperAspects(), "classic": flowreader.Classic()} {
		c, err := presetConfig(name)
		if err != nil || c.Scoring != want.Scoring || c.Budget != want.Budget || c.System2 != want.System2 || routerString(c.Router) != routerString(want.Router) {
			t.Errorf("%q: %+v %v", name, c, err)
		}
	}
	if _, err := presetConfig("v2"); !errors.Is(err, errUsage) {
		t.Errorf("unknown preset: %v", err)
	}
}
