package openai_test

import (
	"fmt"

	"github.com/flowreader/flowreader/llm/openai"
)

// A Config prints with its keys and any password in its URLs redacted,
// whatever the verb, so that logging the configuration at start-up (or in an
// error) leaks no credential.
func ExampleConfig_Format() {
	cfg := openai.Config{
		BaseURL:  "https://api.example.com/v1",
		APIKey:   "sk-live-0123456789abcdef",
		Model:    "gpt-4o-mini",
		EmbedURL: "http://embed:s3cret@10.0.0.7:8080/v1", // a proxy behind basic auth
	}
	fmt.Printf("%+v\n", cfg)
	fmt.Println(fmt.Sprint(cfg) == fmt.Sprintf("%#v", cfg))
	// Output:
	// openai.Config{BaseURL:"https://api.example.com/v1" Model:"gpt-4o-mini" APIKey:[REDACTED] EmbedURL:"http://embed:xxxxx@10.0.0.7:8080/v1" EmbedModel:"" EmbedKey:"" RerankURL:"" RerankModel:"" RerankKey:""}
	// true
}
