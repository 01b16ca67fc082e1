// Package graph is the offline content graph both FlowReader formulations
// route over (METHOD §0, following G2-Reader's construction): nodes (text
// chunks, tables, figures) with summaries, keywords and embeddings, and
// undirected typed edges in a CSR adjacency that routing walks without
// allocating.
//
// # Construction (Builder)
//
// Analysis. With a Model, every text node is analysed with prompt P1 and
// every visual node with P2 (v3 Appendix J, embedded verbatim), asking for
// JSON {keywords, summary, tags[, text_content]}; text nodes whose summary
// contains "No meaningful information" are dropped. Without a Model the
// analysis is offline and deterministic: the summary is the lead sentences
// (about 300 characters; the caption for visual nodes) and the keywords are
// salient terms: identifiers ("Table 3", "Figure 2"), capitalised phrases by
// frequency, and numbers.
//
// Embedding. e_i = Enc(s_i + " keywords: " + join(K_i, ", ")) embedded as
// llm.Document (v1 Eq. 12), L2-normalised; the dimension is the embedder's,
// or that of its vectors when it reports 0.
//
// Edges. The undirected edge set is the union of
//   - Order: each text node and the next w = 3 text nodes of its document;
//   - KNN: symmetric cosine kNN, {u,v} when v ∈ kNN_k(u) or u ∈ kNN_k(v),
//     with k = clip(⌈log2 N⌉, 3, 32) (v3 App. A.1), exact brute force with
//     ties broken by lower index;
//   - Link: the links left by T = 3 evolution rounds (P3) when a Model is
//     set. Links start as the Order adjacency; in each round every node sees
//     its top-5 cosine neighbours (excluding itself) plus its current links,
//     all from the pre-round snapshot; its links are replaced by the first 5
//     suggestions (reading-order links survive only if re-suggested) and its
//     summary and keywords are replaced when the model says so; then every
//     node is re-embedded.
//
// Edge weights are w_uv = max(cos(e_u, e_v), 0) (v1 Eq. 13). One pair of
// nodes has one edge; Kind is the set of reasons for it.
//
// Caching. With Builder.Cache set, every model answer and embedding is stored
// under a content hash of the request (llm.Middleware.Cache), so a
// re-build of unchanged documents makes no calls and an interrupted build
// resumes where it stopped. Builds are deterministic: equal inputs and
// answers give byte-identical files.
//
// # Persistence
//
// Save/Load (Write/Read) use one versioned binary file: a 32-byte header
// (magic, format version, payload length, CRC-32C of the payload, CRC-32C of
// the header), then the embedder name and dimension, nodes, edges and the
// embeddings as little-endian float32. Corrupted, truncated or foreign files
// fail with ErrFormat, ErrVersion, ErrChecksum or ErrTruncated, never a
// panic; LoadDim also checks the dimension (ErrDimension). Load reads the
// file once and aliases node strings and embeddings into that buffer.
package graph
