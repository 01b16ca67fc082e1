// Package openai adapts servers speaking the OpenAI-compatible HTTP protocol
// (vLLM, TEI, Ollama, llama.cpp, hosted APIs) to llm.Model, llm.Embedder and
// llm.Reranker, using only net/http. [NewChat], [NewEmbedder] and
// [NewReranker] check a [Config] and return a [Chat] (an [llm.Model],
// [llm.Streamer], [llm.Namer] and [llm.ImageAccepter]), an [Embedder] (an
// [llm.Embedder], [llm.Namer] and [llm.BatchSizer]) and an [llm.Reranker]
// (also an [llm.Namer] and [llm.BatchSizer]). A configuration that cannot
// work fails with [ErrConfig].
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
// # Streaming
//
// [Chat.GenerateStream] sends "stream": true with
// "stream_options": {"include_usage": true} and reads the answer as
// server-sent events (text/event-stream: "data:" lines joined per event,
// comments and other fields ignored, LF, CRLF or CR line ends), each event a
// chat.completion.chunk whose first choice's delta.content is passed on as
// it arrives, until "data: [DONE]". The finish reason and the usage come
// from the last events. Only the piece's text is allocated per event. An
// {"error": …} event fails the call with an *llm.APIError (its status from
// the error's code, else 500); a stream that ends before a finish reason or
// [DONE] wraps llm.ErrUnavailable; a server that answers a whole JSON
// completion instead is read as Generate reads it. MaxResponseBytes bounds
// the whole stream. Cancelling the context closes the connection.
//
// # Reranking
//
// The reranker posts to {RerankURL}/rerank in batches of at most RerankBatch
// texts (default 32, at most 4 in flight) the Cohere/Jina shape that vLLM,
// Infinity and the hosted APIs serve,
//
//	{"model","query","documents":[…],"return_documents":false} → {"results":[{"index","relevance_score"}],"usage":{…}}
//
// and returns the scores in input order. Hugging Face TEI's /rerank takes
// its own shape, {"query","texts":[…]} → [{"index","score"}]: a server that
// refuses the first for want of "texts" is sent the second from then on.
// A batch refused as too large (413, or 400/422 naming a batch size, as
// TEI's 422 "batch size 64 > maximum allowed batch size 32") is split, to
// the size the message names or in halves, and later calls start from that
// size. Scores must be in [0, 1] (the servers apply the logistic function
// unless asked for raw scores); every text must be scored once. The tokens
// a server reports (usage, or TEI's X-Compute-Tokens header) are counted
// by the pipeline's telemetry.
//
// # Ollama
//
// Ollama serves the same protocol at http://localhost:11434/v1 without a
// key; the adapter's tests run against a stand-in that answers as Ollama's
// compatibility layer does. Differences that matter here: Ollama's default
// temperature is 1, so the adapter always sends one (0 by default, as the
// paper's readers want); a model name without a tag means ":latest", and
// Name drops a trailing ":latest" so that both spellings are one model in
// graph headers and cache keys; response_format json_schema becomes
// Ollama's format (name and strict are ignored); each content part becomes
// a native message of its own, so images stay in place among the text; a
// thinking model's reasoning comes apart from its content and is not part
// of the answer; a full queue is 503 (retried by llm.Wrap); a generation
// that fails mid-stream ends the stream without a finish (ErrUnavailable).
// Ollama truncates a prompt longer than its context (4096 tokens by
// default on small GPUs) without an error unless context shift is off:
// serve with OLLAMA_CONTEXT_LENGTH large enough for the reader's prompts.
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
//	FLOWREADER_RERANK_URL   reranking server, e.g. http://localhost:8080 (TEI)
//	FLOWREADER_RERANK_MODEL reranking model, e.g. BAAI/bge-reranker-v2-m3
//	FLOWREADER_RERANK_KEY   bearer token for reranking (no default)
//
// A base URL may be given with or without its trailing /v1.
package openai
