// Package graph is the offline content graph G = (V, E) that FlowReader
// routes over (paper v3 §3.1 and App. A.1, which adopt G2-Reader's
// construction): nodes are text chunks, tables and figures with summaries,
// keywords and unit embeddings; edges are undirected, typed and weighted,
// held in a CSR adjacency that routing walks without allocating.
//
// # Model
//
// A [Graph] has N nodes ([Node]) in document order, then item order; the
// node of item i of document d has ID "d#i" and Order i, and carries the
// item's fields. Row i of [Graph.Emb] is the embedding e_i of node i,
// L2-normalised (a zero row stays zero), so that cos(e_u, e_v) is a dot
// product ([Graph.Cos]).
//
// Edges ([Edge]) join U < V; one pair of nodes has one edge, whose Kind is
// the set of reasons for it ([EdgeKind]):
//   - [EdgeOrder]: each text node and the next w text nodes of its document
//     (w = [Builder.Window], 3 by default; visual nodes start unlinked);
//   - [EdgeKNN]: symmetric cosine kNN, {u,v} when v ∈ kNN_k(u) or u ∈ kNN_k(v),
//     with k = clip(⌈log2 N⌉, 3, 32) (paper v3 App. A.1), exact brute force
//     with ties broken by lower index up to 10,000 nodes, and above that
//     approximate: each node's k nearest found in a hierarchical navigable
//     small world graph (HNSW, Malkov & Yashunin 2020: M = 16 links, 32 on
//     layer 0, insertion beam 96, search beam max(48, 2k)), built
//     deterministically (seeded levels, batched inserts linked in node
//     order), so that the edges do not depend on the number of workers
//     ([Builder.ApproxKNN] forces either path);
//   - [EdgeLink]: a passage that names another's title, two passages that
//     name one entity ([MentionLinks], unless [Builder.NoMentionLinks]),
//     and the links left by T = 3 evolution rounds ([Builder.Rounds]; prompt P3; paper v1
//     App. A) when a model is set.
//
// Every edge weighs w_uv = max(cos(e_u, e_v), 0) (paper v1 Eq. 13).
//
// # Construction
//
// [Builder.Build] makes the graph of ingested documents in three steps.
//
// Analysis. With a model, every text node is analysed with prompt P1 and
// every visual node with P2 (paper v3 App. J, embedded verbatim), which
// answer JSON {keywords, summary, tags[, text_content]}; text nodes whose
// summary says "No meaningful information" are dropped. Without a model the
// analysis is offline and deterministic: the summary is the lead sentences
// (about 300 characters; the caption for visual nodes) and the keywords are
// salient terms: identifiers ("Table 3", "Figure 2"), capitalised phrases
// by frequency, and numbers.
//
// Embedding. e_i = Enc(s_i + " keywords: " + join(K_i, ", ")) embedded as
// llm.KindDocument (paper v1 Eq. 12); the dimension is the embedder's, or that
// of its vectors when it reports 0.
//
// Evolution. Links start as the Order adjacency. In each round every node
// sees its 5 nearest cosine neighbours (excluding itself, paper v1 Eq. 14)
// plus its current links, all from the pre-round snapshot; its links are
// replaced by the first 5 suggestions (reading-order links survive only if
// re-suggested) and its summary and keywords are replaced when the model
// says so; then every node is re-embedded. Each neighbour's content is cut
// to 2,000 characters in P3.
//
// With [Builder.Cache] set, every model answer and embedding is stored
// under a content hash of its request, so a re-build of unchanged documents
// makes no calls and an interrupted build resumes where it stopped. Builds
// are deterministic: equal inputs and answers give byte-identical files.
//
// # Updates
//
// [Builder.Update] turns the graph of one collection into the graph of
// another (documents added, replaced, removed, matched by ID and a hash of
// their content), equal to what Build gives of the new collection, bytes
// of [Write] included, while analysing and embedding only the new and
// changed documents. Built graphs record the settings and documents they
// were built from for it. Of the collection-wide quantities, k changes with
// N (then every kNN list is recomputed, exactly, with no model or embedder
// call for kept nodes), MentionLinks' thresholds count contents over the
// whole collection (so they are recomputed, cheaply, for all nodes), and
// BM25's statistics live in the scoring index, not in the graph. Graphs
// built with evolution rounds cannot be updated: a round rewrites every
// node's links and summary from its neighbours'.
//
// # Int8 embeddings
//
// With [Builder.Int8Embeddings] (or [Graph.WithInt8Embeddings]) a graph
// stores each unit row v as int8 values q = round(127·v/‖v‖∞) and one
// float32 scale s = 1/‖q‖₂, so that s·q is again of unit length: d + 4
// bytes per row instead of 4d. Each component of q is off by at most ½,
// so s·q lies within the angle asin(√d·‖v‖∞/254) of v (for a random unit
// row at d = 768, ‖v‖∞ ≈ 0.13: about 0.014 rad), and a cosine between two
// rows moves by at most the sum of their angles. Row-to-row similarities
// (kNN edges, edge weights, MMR) are the exact integer dot product times
// both scales; query scores are the float32 query against the int8 row,
// times its scale ([Graph.Dot]): no row is decoded in either. Questions
// are embedded in float32 as before.
//
// # File format
//
// [Save] and [Load] ([Write] and [Read] on streams) use one versioned
// binary file, version 1, all integers little-endian:
//
//	header, 32 bytes:
//	  [0:8]   magic "FLWGRAPH"
//	  [8:12]  format version (uint32)
//	  [12:16] flags (uint32): bit 0 set when a build record follows the
//	          edges; bit 1 when the payload starts with the image root;
//	          bit 2 when the embeddings are int8; bit 3 when some node
//	          runs over several pages; bit 4 when the documents'
//	          metadata follows; other bits zero
//	  [16:24] payload length in bytes (uint64)
//	  [24:28] CRC-32C of the payload
//	  [28:32] CRC-32C of header bytes [0:28]
//	payload:
//	  embedder name, dimension, node count, edge count
//	  nodes: strings as uvarint length + UTF-8 bytes, ints as (zigzag) varints;
//	    with bit 3, each node's page is followed by its span
//	    LastPage−Page (uvarint, 0 for one page)
//	  edges: U, V (uint32), kind (byte), weight (float32 bits), sorted by (U, V)
//	  build record (flag bit 0 only): record version (1), Builder.KNN
//	    (varint, -1 for none), window, a byte (bit 0 mention links, bit 1
//	    model analysis), evolution rounds, document count; per document
//	    its ID, a 16-byte content hash and its node count (the documents'
//	    nodes are consecutive, in document order)
//	  metadata (flag bit 4 only): the count of documents with metadata;
//	    per document, by ID ascending, its ID, its pair count (at least
//	    one) and its key/value pairs by key ascending
//	  zero padding to a multiple of 4 bytes from the payload start
//	  embeddings: node count × dimension float32, row-major; or (bit 2)
//	    node count float32 scales, then node count × dimension int8s
//	    (row i decodes to scale_i · q_i)
//
// Limits: the dimension is at most 65,536; pages and orders fit in 32
// bits; edge weights lie in [0, 1]; every embedding row is finite and of
// unit L2 norm within 1e-3, or zero. [Write] and [Save] refuse a graph
// outside them with [ErrFormat] before writing anything, and [Read] and
// [Load] refuse such a file, so that a graph that was written always loads
// again. Load allocates a payload of up to 1 GiB at once (the file's size
// vouches for it); a larger one, and a pipe or device, grows its buffer as
// the bytes arrive.
//
// The header checksum is verified before the payload length is trusted, so
// a corrupted length cannot cause a large allocation, and a graph is
// returned only when the payload checksum matches. A foreign, corrupted,
// truncated or other-version file, or one whose build record does not fit
// its nodes, fails with [ErrFormat], never a panic. Files without a flag
// (written by New's graphs and by versions before the record, graphs
// without metadata) read as before; versions before a flag refuse files
// with it (unknown flags) rather than drop what it carries. The caller
// compares [Graph].Dim with its query embedder's dimension ([ErrDimension]
// names that mismatch). Load reads the file once and aliases node strings and
// embeddings into that buffer.
package graph
