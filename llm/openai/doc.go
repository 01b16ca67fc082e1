// Package openai adapts servers speaking the OpenAI-compatible HTTP protocol
// (vLLM, TEI, Ollama, llama.cpp, hosted APIs) to llm.Model and llm.Embedder,
// using only net/http. [NewChat] and [NewEmbedder] check a [Config] and
// return a [Chat] (an [llm.Model], [llm.Namer] and [llm.ImageAccepter]) and an
// [Embedder] (an [llm.Embedder], [llm.Namer] and [llm.BatchSizer]). A
// configuration that cannot work fails with [ErrConfig].
//
// # Chat
//
// Chat posts to {BaseURL}/chat/completions. Message parts keep their order;
// text parts become {"type":"text"} items and image parts become
// {"type":"image_url","image_url":{"url":"data:image/png;base64,…"}} items
// (a message with a single text part is sent as a plain string). Images whose
// long side exceeds MaxImageSide (default 1600 px) are downscaled with a
// Catmull-Rom filter and re-encoded in their own format (PNG, or JPEG at
// quality 90) before sending. Request.JSONSchema becomes
// response_format {"type":"json_schema","json_schema":{"name","schema","strict":true}}.
// Config.Extra is merged into the body last, so vLLM-specific fields pass
// through, for example
//
//	Extra: map[string]any{
//		"chat_template_kwargs": map[string]any{"enable_thinking": false},
//		"structured_outputs":   map[string]any{"choice": []string{"yes", "no"}},
//	}
//
// vLLM removed the older guided_json / guided_choice fields in v0.12; use
// response_format or structured_outputs instead.
//
// # Embeddings
//
// Embedder posts batches of at most EmbedBatch texts (default 64) to
// {EmbedURL}/embeddings and returns vectors in input order. Task prefixes are
// prepended by kind: Config.DocumentPrefix and QueryPrefix when set; else,
// for a model whose name contains "nomic-embed", "search_document: " for
// documents and "search_query: " for queries, as nomic-embed-text-v1.5 was
// trained (NoPrefixes turns this off); else none. Every vector is L2-normalised on the client, x̂ = x/‖x‖
// (a zero vector stays zero). With Matryoshka = k > 0, nomic's recipe is
// applied first: layer normalisation without affine parameters,
// y_i = (x_i − μ)/√(σ² + 1e-5) over all components, then the first k
// components, then L2 normalisation. Layer norm's scale cancels in the final
// L2 step, so the result is the same whether or not the server normalised
// its output first (vLLM does by default).
//
// # Errors
//
// Non-2xx answers become *[llm.APIError] with the status, the server's
// Retry-After and the message from either error body vLLM emits,
// {"error":{"message","type","code"}} (OpenAI style, vLLM ≥ 0.9) or
// {"object":"error","message","type","code"} (older vLLM). The error also
// matches llm.ErrRateLimited on 429, and llm.ErrContextTooLong when the
// message says the prompt exceeds the model's context or the request has more
// images than allowed. Unreachable servers and
// dropped connections wrap llm.ErrUnavailable; bodies that are not the
// expected JSON, or larger than MaxResponseBytes, wrap llm.ErrInvalidOutput.
// The API key is sent as "Authorization: Bearer …" and is removed from every
// error string; printing a Config redacts it too. The adapters do not retry
// (wrap them with [llm.Wrap]) and set no timeout of their own: give every call
// a context with a deadline, or set Config.HTTPClient. An image part that
// cannot be sent (not PNG or JPEG, undecodable, too many pixels) fails the
// call before anything is sent.
//
// # Environment
//
// [FromEnv] reads
//
//	FLOWREADER_LLM_URL      chat base URL, e.g. http://localhost:8000/v1
//	FLOWREADER_LLM_MODEL    chat model, e.g. Qwen/Qwen3-VL-32B-Instruct
//	FLOWREADER_EMBED_URL    embeddings base URL (default: FLOWREADER_LLM_URL)
//	FLOWREADER_EMBED_MODEL  embedding model, e.g. nomic-ai/nomic-embed-text-v1.5
//	FLOWREADER_API_KEY      bearer token for both (optional)
//	FLOWREADER_EMBED_KEY    bearer token for embeddings (default: FLOWREADER_API_KEY)
//
// A base URL may be given with or without its trailing /v1.
package openai
