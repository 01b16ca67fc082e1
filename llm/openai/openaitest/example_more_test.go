package openaitest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
	"github.com/flowreader/flowreader/llm/openai/openaitest"
)

// Counts says what a run met: how many requests were answered and how many
// got each fault. Which request fails depends only on the seed, the body and
// its attempt, so a second run with the same seed meets the same faults.
func ExampleServer_Counts() {
	run := func() map[string]int {
		s, err := openaitest.NewServer(openaitest.Config{
			Seed: 1, RateLimited: 0.2, Unavailable: 0.1, Internal: 0.1,
			MaxFaultsPerKey: 2, RetryAfter: time.Millisecond,
		})
		if err != nil {
			log.Fatal(err)
		}
		defer s.Close() // in a test: t.Cleanup(s.Close)
		e, err := openai.NewEmbedder(openai.Config{BaseURL: s.URL, EmbedModel: "e"})
		if err != nil {
			log.Fatal(err)
		}
		w := llm.WrapEmbedder(e, llm.Middleware{Attempts: 3, BaseDelay: time.Millisecond})
		for i := range 20 {
			if _, err := w.Embed(context.Background(), []string{fmt.Sprint("passage ", i)}, llm.KindDocument); err != nil {
				log.Fatal(err) // three attempts outlast two faults per request
			}
		}
		return s.Counts()
	}
	first := run()
	fmt.Println(first)
	fmt.Println("replays:", fmt.Sprint(run()) == fmt.Sprint(first))
	// Output:
	// map[429:6 500:2 503:1 ok:20]
	// replays: true
}
