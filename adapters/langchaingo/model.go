package langchaingo

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/flowreader/flowreader/llm"
	"github.com/tmc/langchaingo/llms"
)

// ModelOptions are the optional settings of [NewModel].
type ModelOptions struct {
	// Images says the model takes images (llm.ImageAccepter); without it
	// flowreader sends visual nodes as text.
	Images bool
	// BinaryImages sends images as llms.BinaryContent (the Anthropic,
	// Google and Bedrock clients' form) instead of an llms.ImageURLContent
	// holding a data URL (the OpenAI protocol's form).
	BinaryImages bool
	// CallOptions are added to every call (for example llms.WithModel).
	CallOptions []llms.CallOption
}

// Model is a LangChainGo llms.Model as an llm.Model. It implements
// llm.Namer, llm.ImageAccepter and llm.Streamer.
type Model struct {
	m    llms.Model
	name string
	opt  ModelOptions
}

// NewModel adapts m. name identifies the model (for example
// "openai/gpt-4o-mini"); it is part of flowreader's cache keys.
func NewModel(m llms.Model, name string, opt ModelOptions) (*Model, error) {
	if m == nil || name == "" {
		return nil, fmt.Errorf("langchaingo: NewModel needs a model and a name")
	}
	return &Model{m: m, name: name, opt: opt}, nil
}

// Name returns the declared name.
func (m *Model) Name() string { return m.name }

// AcceptsImages reports ModelOptions.Images.
func (m *Model) AcceptsImages() bool { return m.opt.Images }

// Generate sends req through GenerateContent. LangChainGo has no per-call
// JSON schema, so a request with one is sent in JSON mode with the schema
// stated in a leading system message.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return m.generate(ctx, req)
}

// GenerateStream sends req as Generate does, with llms.WithStreamingFunc,
// and passes each chunk on as the provider streams it. A provider that
// does not stream passes nothing on while it generates: its answer is then
// passed on whole. It implements llm.Streamer.
func (m *Model) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	sent := false
	resp, err := m.generate(ctx, req, llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		if len(chunk) > 0 {
			sent = true
			onText(string(chunk))
		}
		return nil
	}))
	if err == nil && !sent && resp.Text != "" {
		onText(resp.Text)
	}
	return resp, err
}

func (m *Model) generate(ctx context.Context, req *llm.Request, extra ...llms.CallOption) (*llm.Response, error) {
	msgs := make([]llms.MessageContent, 0, len(req.Messages)+1)
	if len(req.JSONSchema) > 0 {
		name := req.SchemaName
		if name == "" {
			name = "response"
		}
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem,
			fmt.Sprintf("Answer with one JSON object (%s) that validates against this JSON schema:\n%s", name, req.JSONSchema)))
	}
	for _, msg := range req.Messages {
		mc := llms.MessageContent{Role: role(msg.Role)}
		for _, p := range msg.Parts {
			switch {
			case p.Image != nil && m.opt.BinaryImages:
				mc.Parts = append(mc.Parts, llms.BinaryContent{MIMEType: p.Image.MIME, Data: p.Image.Data})
			case p.Image != nil:
				mc.Parts = append(mc.Parts, llms.ImageURLContent{
					URL: "data:" + p.Image.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Image.Data)})
			default:
				mc.Parts = append(mc.Parts, llms.TextContent{Text: p.Text})
			}
		}
		msgs = append(msgs, mc)
	}
	opts := append([]llms.CallOption{llms.WithTemperature(req.Temperature)}, m.opt.CallOptions...)
	if req.TopP > 0 {
		opts = append(opts, llms.WithTopP(req.TopP))
	}
	if req.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxTokens))
	}
	if req.Seed != 0 {
		opts = append(opts, llms.WithSeed(int(req.Seed)))
	}
	if len(req.JSONSchema) > 0 {
		opts = append(opts, llms.WithJSONMode())
	}
	opts = append(opts, extra...)
	resp, err := m.m.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return nil, mapError(ctx, "langchaingo: generate", err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, fmt.Errorf("langchaingo: generate: %w: no choices", llm.ErrInvalidOutput)
	}
	c := resp.Choices[0]
	return &llm.Response{Text: c.Content, FinishReason: c.StopReason, Usage: usage(c.GenerationInfo)}, nil
}

func role(r string) llms.ChatMessageType {
	switch r {
	case "system":
		return llms.ChatMessageTypeSystem
	case "assistant":
		return llms.ChatMessageTypeAI
	}
	return llms.ChatMessageTypeHuman
}

// Keys under which LangChainGo's providers put token counts in
// GenerationInfo: OpenAI and Mistral (PromptTokens), Anthropic and Bedrock
// (InputTokens), Google (input_tokens, promptTokenCount), Ollama
// (prompt_eval_count).
var (
	promptKeys     = []string{"PromptTokens", "InputTokens", "prompt_tokens", "input_tokens", "promptTokenCount", "prompt_eval_count"}
	completionKeys = []string{"CompletionTokens", "OutputTokens", "completion_tokens", "output_tokens", "candidatesTokenCount", "eval_count"}
)

func usage(info map[string]any) llm.Usage {
	return llm.Usage{PromptTokens: count(info, promptKeys), CompletionTokens: count(info, completionKeys)}
}

func count(info map[string]any, keys []string) int {
	for _, k := range keys {
		switch v := info[k].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		case float32:
			return int(v)
		}
	}
	return 0
}
