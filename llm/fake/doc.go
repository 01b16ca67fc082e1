// Package fake provides a scripted [llm.Model] and a deterministic hashing
// [llm.Embedder] for unit tests of code built on package llm: retrieval logic,
// readers, prompts. Neither talks to a network.
//
// # Model
//
// A [Model] answers from its [Rule] list tried in order: the first rule whose
// Contains substring occurs in the request's [Prompt] (every text part of every
// message, joined by newlines), and whose Match function, when set, returns
// true, gives the reply, the error, or the Respond callback's result. A rule
// with Times > 0 is used at most that many times, which scripts sequences
// such as "fail twice with HTTP 429, then answer". Requests matching no rule
// get Default, or an error when Strict is set. Every request is recorded, in
// the order calls complete ([Model.Calls]); Latency delays each call and honours
// context cancellation. A Model accepts image parts when Images is set. It
// streams ([llm.Streamer]): [Model.GenerateStream] passes its answer on word
// by word, PieceLatency apart.
//
// # Embedder
//
// [Embedder] is feature hashing: the text is lowercased and split into tokens
// of letters and digits; each token t adds s(t) to bucket h(t) mod Dim,
// where h is 64-bit FNV-1a and s(t) = ±1 from the hash's top bit; the result
// is L2-normalised. Texts sharing words therefore have positive cosine,
// cos = (shared-token overlap)/(norms) up to hash collisions, and the same
// text always yields the same vector, whatever its Kind. A text with no
// tokens yields the zero vector (not NaN).
package fake
