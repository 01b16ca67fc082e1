// Package score computes the node signals of one query over one content
// graph, for both formulations of FlowReader (METHOD A.1, A.2 and B.1), and
// keeps every signal in Scores for inspection.
//
// # Relevance
//
// With q̂ the unit query embedding and ê_v the node's, the unified relevance is
//
//	r_v = clip((1-α)·d_v + α·b_v + ρ_ref·ℓ_v, 0, 1),  d_v = max(cos(q̂,ê_v), 0)
//
// where b_v is BM25 Okapi (k1 = 1.5, b = 0.75, rank_bm25's idf with its
// ε = 0.25 floor) of the query keywords over the node's summary, keywords,
// content and caption, min–max normalised over the nodes (all 0 when no query
// term occurs or every node scores alike), and ℓ_v ∈ {0,1} says whether the
// question's references ("Figure 3", "Tables 2 and 3", "Sec. 4.1", ...) meet
// the node's own (NodeRefs). α = 0.5, ρ_ref = 0 is the classic r (v1);
// α = 0, ρ_ref = 0.3 with d_v = cos (Config.RawCos) is the paper's aspect r
// (v3, B.1); the default preset uses α = 0.5 and ρ_ref = 0.3.
//
// Terms are lower-cased words with English stop words removed and stemmed by
// the snowball English (Porter2) stemmer; numbers keep inner '.' ("3.14").
// Query keywords are the question's terms, each once.
//
// # Aspect score (v3)
//
//	h_v = r_v / max_u r_u      (h = 0 when max r = 0)
//
// # Classic score (v1)
//
// Edges with weight w_uv < r_min = 0.22 are pruned (Config.KeepEdge). On the
// pruned undirected graph, with c_uv = max(cos(ê_u,ê_v),0) = w_uv and
// p_uv = c_uv·sqrt(1-c_uv²) (Eq. 3), propagation iterates from φ⁰ = r
//
//	φ_v ← (1-α_φ) r_v + α_φ Σ_{u∈N(v)} p_uv φ_u / (Σ_{u∈N(v)} p_uv + ε)   (Eq. 4)
//
// until max|Δφ| < 1e-6. Eq. 4 sums over pred(v); the content graph is
// undirected, so pred(v) is read as every kept neighbour N(v). The update is
// a contraction (factor ≤ α_φ = 0.5) and a convex combination of values in
// [0,1], so φ converges and stays in [0,1]; an isolated node gets
// φ = (1-α_φ) r.
//
// Diffusion ψ is personalised PageRank with damping 0.85 over the pruned
// graph with edge weights w, personalised on the top-8 nodes by r with
// weight ∝ r, computed as networkx 3.2 does (dangling mass redistributed by
// the personalisation, stop when Σ|Δx| < N·1e-6), then divided by its max.
//
//	h_v = 0.5 r_v + 0.3 φ_v + 0.2 ψ_v
//
// Sources are 8 nodes picked by maximal marginal relevance with λ = 0.7,
// first argmax h. Exact MMR over every node would cost one pass over the
// embeddings per pick. For a pivot direction p with c_v = cos(p, ê_v) and
// s_v = sqrt(1-c_v²), the triangle inequality on angles gives
// cos(ê_v, ê_u) ≥ c_v c_u − s_v s_u whenever c_v + c_u ≥ 0; with the query
// and the corpus mean direction as pivots (both cosines are known before MMR
// starts), this bounds every node's MMR score from above, and only nodes
// whose bound reaches the best exact score are evaluated. The picks are
// exactly MMR's; on PaperTab graphs embedded with the local GloVe embedder
// about 0.5% of the brute-force dot products remain.
//
// Answerability is a_v = r_v·min(1, len(s_v)/max len(s) + 0.05·1[visual]),
// s_v the summary (the content when there is none), and the sinks are the
// top 8 by a.
//
// # Cost
//
// One query costs one pass over the contiguous embeddings (the cosines), the
// postings of its terms for BM25, O(N) fusion, and for the classic score
// O(|E|) per φ and PageRank sweep; top-k selections are partial. φ and
// PageRank are swept together: each kept edge is walked once per sweep,
// from its lower end, serving both directions and both signals, with one
// in-place state array (still Jacobi: a node's old values are read before
// it is updated); once one iteration has stopped, the walks serve the other
// alone. On amd64 a walk is an SSE2 kernel: one two-lane multiply and add
// serves φ and PageRank together, and the edges are laid out in chunks of
// four (padded with zero-weight edges) so that the walk is one flat loop
// without a mispredicted branch per node; it performs jointSweepGo's
// operations in the same order, so the values are the same bit for bit
// (build tag purego selects the Go walk). Summation order differs from the
// textbook loops only in rounding (tested against them within 1e-12, with
// equal sweep counts). Config.Parallel runs φ and PageRank on two
// goroutines instead (except on amd64), with the same sums, so the same
// values. MMR after its first round is lazy: bounds only fall as sources
// are added, so a max-heap of stale bounds (seeded with the 256 highest, the
// rest kept in a cold list until a round's best score falls to them) yields
// the few nodes that can still win; when the bounds stop pruning (h nearly
// flat), MMR falls back to plain passes over the nodes. Working arrays are
// pooled on the Index. The Index (postings, node references, summary
// lengths, pruned adjacency) is built once per graph.
//
// On the benchmark graphs (10,000 nodes, mean degree 16, about 80,000 kept
// edges) the sweeps dominate the classic score: φ takes 9 Jacobi sweeps and
// PageRank 7 at the stated tolerances, run as 9 joint sweeps. With the amd64
// kernel a sweep costs about a third of a brute-force cosine pass at
// d = 100 (the Go walk about half), so that the sweeps alone cost about 3.2
// such passes and the whole classic score 5.6–5.8 (BenchmarkRatio; the
// aspect score about 1.5). The kernel's walk runs near the cost of its
// loads alone (0.9–1.2 ns per edge slot; a version doing only the loads
// took 85% of the time), so fewer sweeps, not a faster walk, is what would
// bring the classic score much lower. Gauss–Seidel sweeps (7 and 5) were
// measured: each walk must then visit its edges twice, once to gather and
// once to scatter the new values, and the sweeps were only 3% faster (while
// φ and ψ moved by up to 1e-7 and 2e-4), so the iterations stay the Jacobi
// ones the method states.
package score
