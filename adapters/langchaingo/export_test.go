package langchaingo

import (
	"context"

	"github.com/tmc/langchaingo/llms"
)

// ModelFunc is an llms.Model that fails with the error fail returns.
type ModelFunc func() error

func (f ModelFunc) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, f()
}

func (f ModelFunc) Call(context.Context, string, ...llms.CallOption) (string, error) { return "", f() }
