package fake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// Prompt is the text a Rule's Contains looks for: every text part of every
// message (the system prompt too), joined by newlines; images are left out.
func ExamplePrompt() {
	req := &llm.Request{Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: "Answer in one word."}}},
		{Role: "user", Parts: []llm.Part{
			{Text: "What does the chart show?"},
			{Image: &llm.Image{Data: []byte("\x89PNG…"), MIME: "image/png"}},
		}},
	}}
	fmt.Printf("%q\n", fake.Prompt(req))
	// Output: "Answer in one word.\nWhat does the chart show?"
}

// Rules script the answers a test needs: Respond computes one from the
// request, Match selects by more than text (here: requests with an image),
// and Strict turns an unexpected request into an error rather than a
// default that hides it.
func ExampleModel_Generate() {
	hasImage := func(req *llm.Request) bool {
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if p.Image != nil {
					return true
				}
			}
		}
		return false
	}
	m := &fake.Model{Strict: true, Images: true, Rules: []fake.Rule{
		{Match: hasImage, Reply: "a bar chart"},
		{Contains: "Count the words:", Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			text := strings.TrimPrefix(fake.Prompt(req), "Count the words:")
			return &llm.Response{Text: fmt.Sprint(len(strings.Fields(text)))}, nil
		}},
	}}
	ctx := context.Background()
	ask := func(parts ...llm.Part) {
		r, err := m.Generate(ctx, &llm.Request{Messages: []llm.Message{{Role: "user", Parts: parts}}})
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(r.Text)
	}
	ask(llm.Part{Text: "Count the words: min-cost flow over the graph"})
	ask(llm.Part{Text: "Describe it."}, llm.Part{Image: &llm.Image{Data: []byte("…"), MIME: "image/png"}})
	ask(llm.Part{Text: "Something no rule expects"})
	// Output:
	// 5
	// a bar chart
	// error: fake: no rule matches the request: "Something no rule expects"
}

// GenerateStream passes the answer on word by word, so that a test of a
// streaming handler sees several pieces; a cancelled context ends it with the
// context's error.
func ExampleModel_GenerateStream() {
	m := &fake.Model{Default: "The East Arm flooded."}
	req := &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "What flooded?"}}}}}
	var pieces []string
	r, err := m.GenerateStream(context.Background(), req, func(s string) { pieces = append(pieces, s) })
	fmt.Printf("%q %q %v\n", pieces, r.Text, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.GenerateStream(ctx, req, func(string) {})
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// ["The " "East " "Arm " "flooded."] "The East Arm flooded." <nil>
	// true
}

// summarise is the code under test: it asks a model for a summary.
func summarise(ctx context.Context, m llm.Model, text string) (string, error) {
	r, err := m.Generate(ctx, &llm.Request{
		Messages:  []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "Summarise in one line:\n" + text}}}},
		MaxTokens: 64,
	})
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// Calls is how a test checks what the code under test sent: the requests,
// in the order the calls completed.
func ExampleModel_Calls() {
	m := &fake.Model{Default: "A storm flooded the East Arm."}
	if _, err := summarise(context.Background(), m, "Storm Elda flooded the East Arm on 14 May."); err != nil {
		fmt.Println(err)
		return
	}
	calls := m.Calls()
	fmt.Println(len(calls), calls[0].MaxTokens, calls[0].Messages[0].Role)
	fmt.Printf("%q\n", fake.Prompt(calls[0]))
	// Output:
	// 1 64 user
	// "Summarise in one line:\nStorm Elda flooded the East Arm on 14 May."
}
