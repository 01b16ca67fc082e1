package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/flowreader/flowreader/llm"
)

// chat is the llm.Model served at {BaseURL}/chat/completions.
type chat struct {
	cfg  Config
	base string
	tr   transport
}

// NewChat checks cfg and returns the llm.Model served at
// {BaseURL}/chat/completions, safe for concurrent use. It has the optional
// llm.Namer (the served model's name), llm.ImageAccepter (false with
// Config.TextOnly) and llm.Streamer (stream: true). BaseURL and Model are
// required.
func NewChat(cfg Config) (llm.Model, error) {
	base, err := apiBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no chat model", ErrConfig)
	}
	return &chat{cfg: cfg, base: base, tr: transport{client: cfg.client(), key: cfg.APIKey, maxBody: cfg.maxBody()}}, nil
}

// Name returns the served model name, without a ":latest" tag (Ollama
// reads "llama3.2" as "llama3.2:latest": both spellings name one model in
// graph headers and cache keys). It implements llm.Namer.
func (c *chat) Name() string { return canonicalName(c.cfg.Model) }

// canonicalName drops a trailing ":latest", the tag Ollama gives a model
// name that has none.
func canonicalName(model string) string { return strings.TrimSuffix(model, ":latest") }

// AcceptsImages reports whether image parts may be sent (not TextOnly). It
// implements llm.ImageAccepter.
func (c *chat) AcceptsImages() bool { return !c.cfg.TextOnly }

// Generate sends req and returns the first choice. It implements llm.Model.
func (c *chat) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	body, err := c.body(req, false)
	if err != nil {
		return nil, err
	}
	data, err := c.tr.do(ctx, http.MethodPost, c.base+"/chat/completions", body)
	if err != nil {
		return nil, err
	}
	return parseChat(data)
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // string, or []contentPart
}

// body builds the JSON body for req; stream asks for server-sent events
// with the usage on the last one.
func (c *chat) body(req *llm.Request, stream bool) (map[string]any, error) {
	if req == nil || len(req.Messages) == 0 {
		return nil, fmt.Errorf("openai: empty request")
	}
	if math.IsNaN(req.Temperature) || req.Temperature < 0 || req.TopP < 0 || req.TopP > 1 || req.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: invalid sampling parameters (temperature %v, top_p %v, max_tokens %d)",
			req.Temperature, req.TopP, req.MaxTokens)
	}
	msgs := make([]chatMessage, 0, len(req.Messages))
	for mi, m := range req.Messages {
		if len(m.Parts) == 1 && m.Parts[0].Image == nil {
			msgs = append(msgs, chatMessage{Role: m.Role, Content: m.Parts[0].Text})
			continue
		}
		parts := make([]contentPart, 0, len(m.Parts))
		for pi, p := range m.Parts {
			if p.Image == nil {
				parts = append(parts, contentPart{Type: "text", Text: p.Text})
				continue
			}
			if c.cfg.TextOnly {
				return nil, fmt.Errorf("openai: message %d part %d: image sent to a text-only model", mi, pi)
			}
			data, mime, err := prepareImage(p.Image, c.cfg.MaxImageSide)
			if err != nil {
				return nil, fmt.Errorf("openai: message %d part %d: %w", mi, pi, err)
			}
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{
				URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data),
			}})
		}
		msgs = append(msgs, chatMessage{Role: m.Role, Content: parts})
	}
	body := map[string]any{
		"model":       c.cfg.Model,
		"messages":    msgs,
		"temperature": req.Temperature,
	}
	if req.TopP > 0 {
		body["top_p"] = req.TopP
	}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	if req.Seed != 0 {
		body["seed"] = req.Seed
	}
	if len(req.JSONSchema) > 0 {
		if !json.Valid(req.JSONSchema) {
			return nil, fmt.Errorf("openai: JSONSchema is not valid JSON")
		}
		name := req.SchemaName
		if name == "" {
			name = "output"
		}
		body["response_format"] = map[string]any{
			"type": "json_schema",
			"json_schema": map[string]any{
				"name":   name,
				"schema": json.RawMessage(req.JSONSchema),
				"strict": true,
			},
		}
	}
	if stream {
		body["stream"] = true
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	for k, v := range c.cfg.Extra {
		body[k] = v
	}
	return body, nil
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// parseChat decodes a chat completion body. A body that is not a completion
// with at least one choice wraps llm.ErrInvalidOutput.
func parseChat(data []byte) (*llm.Response, error) {
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return nil, fmt.Errorf("%w: chat response: %v", llm.ErrInvalidOutput, err)
	}
	if len(cr.Choices) == 0 {
		return nil, fmt.Errorf("%w: chat response without choices", llm.ErrInvalidOutput)
	}
	ch := cr.Choices[0]
	resp := &llm.Response{}
	if ch.Message.Content != nil {
		resp.Text = *ch.Message.Content
	}
	if ch.FinishReason != nil {
		resp.FinishReason = *ch.FinishReason
	}
	if cr.Usage != nil {
		if cr.Usage.PromptTokens < 0 || cr.Usage.CompletionTokens < 0 {
			return nil, fmt.Errorf("%w: negative token usage", llm.ErrInvalidOutput)
		}
		resp.Usage = llm.Usage{PromptTokens: cr.Usage.PromptTokens, CompletionTokens: cr.Usage.CompletionTokens}
	}
	return resp, nil
}

var (
	_ llm.Streamer      = (*chat)(nil)
	_ llm.Model         = (*chat)(nil)
	_ llm.Namer         = (*chat)(nil)
	_ llm.ImageAccepter = (*chat)(nil)
)
