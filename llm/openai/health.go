package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ErrModelNotServed: the server is up but does not list the configured model.
var ErrModelNotServed = errors.New("openai: model not served")

// Models lists the model ids served at base (a /v1 URL).
func models(ctx context.Context, tr transport, base string) ([]string, error) {
	data, err := tr.do(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("openai: /models: %w", err)
	}
	ids := make([]string, len(list.Data))
	for i, d := range list.Data {
		ids[i] = d.ID
	}
	return ids, nil
}

func health(ctx context.Context, tr transport, base, model string) error {
	ids, err := models(ctx, tr, base)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id == model {
			return nil
		}
	}
	return fmt.Errorf("%w: %q not in %q", ErrModelNotServed, model, ids)
}
