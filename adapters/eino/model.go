package eino

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/flowreader/flowreader/llm"
)

// ModelOptions are the optional settings of [NewModel].
type ModelOptions struct {
	// Images says the model takes images (llm.ImageAccepter); without it
	// flowreader sends visual nodes as text.
	Images bool
	// Schema, when set, returns the provider-specific options that ask for
	// output validating against a JSON schema (Eino has no common one; for
	// example eino-ext's OpenAI component takes a response format). When
	// nil, the schema is stated in a leading system message.
	Schema func(name string, schema []byte) []model.Option
	// Options are passed to every Generate call (for example
	// model.WithModel).
	Options []model.Option
}

// Model is an Eino model.BaseChatModel as an llm.Model. It implements
// llm.Namer, llm.ImageAccepter and llm.Streamer.
type Model struct {
	m    model.BaseChatModel
	name string
	opt  ModelOptions
}

// NewModel adapts m. name identifies the model; it is part of flowreader's
// cache keys.
func NewModel(m model.BaseChatModel, name string, opt ModelOptions) (*Model, error) {
	if m == nil || name == "" {
		return nil, fmt.Errorf("eino: NewModel needs a model and a name")
	}
	return &Model{m: m, name: name, opt: opt}, nil
}

// Name returns the declared name.
func (m *Model) Name() string { return m.name }

// AcceptsImages reports ModelOptions.Images.
func (m *Model) AcceptsImages() bool { return m.opt.Images }

// Generate sends req through Generate. A user message with images goes as
// UserInputMultiContent (images as base64 data with their MIME type);
// every other message as Content. Eino has no common seed option, so
// Request.Seed is not sent.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	msgs, opts := m.request(req)
	out, err := m.m.Generate(ctx, msgs, opts...)
	if err != nil {
		return nil, mapError(ctx, "eino: generate", err)
	}
	if out == nil {
		return nil, fmt.Errorf("eino: generate: %w: no message", llm.ErrInvalidOutput)
	}
	resp := &llm.Response{Text: out.Content}
	meta(resp, out.ResponseMeta)
	return resp, nil
}

// GenerateStream sends req through the model's Stream, as Generate sends
// it, and passes each chunk's content on as it arrives; the finish reason
// and usage come from the chunks' ResponseMeta (the last one that sets
// them). It implements llm.Streamer.
func (m *Model) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	msgs, opts := m.request(req)
	sr, err := m.m.Stream(ctx, msgs, opts...)
	if err != nil {
		return nil, mapError(ctx, "eino: stream", err)
	}
	if sr == nil {
		return nil, fmt.Errorf("eino: stream: %w: no stream", llm.ErrInvalidOutput)
	}
	defer sr.Close()
	var text strings.Builder
	resp := &llm.Response{}
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, mapError(ctx, "eino: stream", err)
		}
		if chunk == nil {
			continue
		}
		if chunk.Content != "" {
			text.WriteString(chunk.Content)
			onText(chunk.Content)
		}
		meta(resp, chunk.ResponseMeta)
	}
	resp.Text = text.String()
	return resp, nil
}

// request makes Eino's messages and options for req.
func (m *Model) request(req *llm.Request) ([]*schema.Message, []model.Option) {
	name := req.SchemaName
	if name == "" {
		name = "response"
	}
	msgs := make([]*schema.Message, 0, len(req.Messages)+1)
	if len(req.JSONSchema) > 0 && m.opt.Schema == nil {
		msgs = append(msgs, schema.SystemMessage(fmt.Sprintf(
			"Answer with one JSON object (%s) that validates against this JSON schema:\n%s", name, req.JSONSchema)))
	}
	for _, msg := range req.Messages {
		msgs = append(msgs, message(msg))
	}
	opts := append([]model.Option{model.WithTemperature(float32(req.Temperature))}, m.opt.Options...)
	if req.TopP > 0 {
		opts = append(opts, model.WithTopP(float32(req.TopP)))
	}
	if req.MaxTokens > 0 {
		opts = append(opts, model.WithMaxTokens(req.MaxTokens))
	}
	if len(req.JSONSchema) > 0 && m.opt.Schema != nil {
		opts = append(opts, m.opt.Schema(name, req.JSONSchema)...)
	}
	return msgs, opts
}

// meta copies the finish reason and usage that meta sets into resp.
func meta(resp *llm.Response, meta *schema.ResponseMeta) {
	if meta == nil {
		return
	}
	if meta.FinishReason != "" {
		resp.FinishReason = meta.FinishReason
	}
	if u := meta.Usage; u != nil {
		resp.Usage = llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
}

func message(msg llm.Message) *schema.Message {
	out := &schema.Message{Role: schema.User}
	switch msg.Role {
	case "system":
		out.Role = schema.System
	case "assistant":
		out.Role = schema.Assistant
	}
	images := false
	for _, p := range msg.Parts {
		images = images || p.Image != nil
	}
	if !images || out.Role != schema.User {
		for _, p := range msg.Parts {
			out.Content += p.Text
		}
		return out
	}
	for _, p := range msg.Parts {
		if p.Image == nil {
			out.UserInputMultiContent = append(out.UserInputMultiContent,
				schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			continue
		}
		data := base64.StdEncoding.EncodeToString(p.Image.Data)
		out.UserInputMultiContent = append(out.UserInputMultiContent, schema.MessageInputPart{
			Type:  schema.ChatMessagePartTypeImageURL,
			Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: p.Image.MIME}},
		})
	}
	return out
}
