// Package score computes the node signals of one query over one content
// graph, for both formulations of FlowReader (paper v1 §3.3–3.4, the
// classic score; paper v3 §3.1, the aspect score), and keeps every signal
// in [Scores] for inspection.
//
// Build an [Index] once per graph with [NewIndex]; [Index.Score] then
// scores each [Query] (its text and its embedding, made by the caller)
// under a [Config]: the zero Config (the default), or the paper's presets
// flowreader.PaperAspects().Scoring (v3) and flowreader.Classic().Scoring
// (v1).
//
// # Relevance
//
// With q̂ the unit query embedding and ê_v the node's, the relevance is
//
//	r_v = clip((1-α)·d_v + α·b_v + ρ_ref·ℓ_v, 0, 1),  d_v = max(cos(q̂,ê_v), 0)
//
// where b_v is BM25 Okapi (k1 = 1.5, b = 0.75, rank_bm25's idf with its
// ε = 0.25 floor) of the query keywords over the node's summary, keywords,
// content and caption, min–max normalised over the nodes (all 0 when no
// query term occurs or every node scores alike), and ℓ_v ∈ {0,1} says
// whether the question's references ("Figure 3", "Tables 2 and 3",
// "Sec. 4.1", ...) meet the node's own. α = 0.5, ρ_ref = 0 is paper v1's r
// (§3.3); α = 0, ρ_ref = 0.3 with d_v = cos ([Config.RawCosine]) is paper
// v3's (§3.1, Eq. 1); the default uses α = 0.5 and ρ_ref = 0.3.
//
// Terms are lower-cased words with English stop words removed and stemmed by
// the snowball English (Porter2) stemmer; numbers keep inner '.' ("3.14").
// Query keywords are the question's terms, each once, unless the caller
// supplies its own ([Query.Keywords]).
//
// # Aspect score (paper v3 §3.1)
//
//	h_v = r_v / max_u r_u      (h = 0 when max r = 0)
//
// # Hop-aware relevance (the default's last step)
//
// The bridge passage of a multi-hop question is named by a relevant
// passage but is not similar to the question itself, so no arc of a
// relevance-climbing flow network reaches it. For collections of titled
// passages (a node's title is its Section), the hop step lifts it:
//
//  1. a node whose title the question names (HippoRAG's query entities,
//     Gutiérrez et al., arXiv 2405.14831, §3.2) is raised to
//     x'_v = max(x_v, 0.99·max x + 0.01·x_v), for x = r and x = h, so that
//     both passages a comparison question names are read first;
//  2. with S the HopSeeds (5) nodes of highest r', one per content (a
//     node's copies, graph.Graph.Copies, are not seeds beside it), every
//     node v that a seed u or a copy of u names by title inherits
//     x*_v = max(x'_v, α x'_u + (1−α) x'_v) (α = HopAlpha, 0.9), and a
//     node joined to one of them by another Link edge (a shared entity,
//     graph.MentionLinks) with HopEntityAlpha (0.6).
//
// A seed keeps its score and α < 1 keeps a named node below its namer.
// Titles are matched as graph.MentionLinks matches them, their thresholds
// counting contents: a collection holding a passage twice keeps the titles
// of the one holding it once. R and H hold the
// raised values, so the scores a question reports are the ones routing,
// selection and reading used; [Scores.Steps] says the step ran and
// [Scores.Raised] which nodes it raised. h̄ and r̄ are of the scores before
// it. Over a candidate subgraph the step reads the whole graph's title
// index, so a candidate is raised as in the whole graph. Its inputs are
// explicit (the nodes the question names, what each scored node names,
// each scored node's Link neighbours), not the whole graph: a collection
// without titles is left as it was.
//
// # Classic score (paper v1 §3.3)
//
// Edges with weight w_uv < r_min = 0.22 are pruned. On the pruned
// undirected graph, with c_uv = max(cos(ê_u,ê_v),0) = w_uv and
// p_uv = c_uv·sqrt(1-c_uv²) (Eq. 3), propagation iterates from φ⁰ = r
//
//	φ_v ← (1-α_φ) r_v + α_φ Σ_{u∈N(v)} p_uv φ_u / (Σ_{u∈N(v)} p_uv + ε)   (Eq. 4)
//
// until max|Δφ| < 1e-6 (at most 100 sweeps, ε = 1e-8). Eq. 4 sums over
// pred(v); the content graph is undirected, so pred(v) is read as every
// kept neighbour N(v). The update is a contraction (factor ≤ α_φ = 0.5) and
// a convex combination of values in [0,1], so φ converges and stays in
// [0,1]; an isolated node gets φ = (1-α_φ) r.
//
// Diffusion ψ is personalised PageRank with damping 0.85 over the pruned
// graph with edge weights w, personalised on the top-8 nodes by r with
// weight ∝ r, computed as networkx 3.2 does (dangling mass redistributed by
// the personalisation, stop when Σ|Δx| < N·1e-6, at most 100 sweeps), then
// divided by its max so that it is commensurate with r and φ.
//
//	h_v = 0.5 r_v + 0.3 φ_v + 0.2 ψ_v      (paper v1 Table 5)
//
// φ and PageRank run as Jacobi sweeps side by side: one walk over the
// edges serves both, reading each kept edge once for both of its
// directions. Every node's sums add their terms in a fixed order, so the
// results are deterministic and differ from textbook loops only in
// rounding.
//
// # Sources and sinks (paper v1 §3.4)
//
// Sources are 8 nodes picked by maximal marginal relevance with λ = 0.7,
// first argmax h:
//
//	v* = argmax_{v∉S} λ h_v − (1−λ) max_{u∈S} cos(ê_v, ê_u)
//
// Exact MMR over every node would cost one pass over the embeddings per
// pick. For a pivot direction p with c_v = cos(p, ê_v) and
// s_v = sqrt(1-c_v²), the triangle inequality on angles gives
// cos(ê_v, ê_u) ≥ c_v c_u − s_v s_u whenever c_v + c_u ≥ 0; with the query
// and the corpus mean direction as pivots (both cosines are known before
// MMR starts), this bounds every node's MMR score from above, and only
// nodes whose bound reaches the best exact score are evaluated. The picks
// are exactly MMR's. After the first round the bounds only fall as sources
// are added, so a max-heap of stale bounds yields the few nodes that can
// still win; when the bounds stop pruning (h nearly flat), MMR falls back
// to plain passes over the nodes.
//
// Answerability is a_v = r_v·min(1, len(s_v)/max len(s) + 0.05·1[visual]),
// s_v the summary (the content when there is none), and the sinks are the
// top 8 by a.
//
// α_φ = 0.5, the damping 0.85, λ = 0.7 and β_v = 0.05 are constants, as no
// preset changes them; [Config] sets r_min, the weights of h, |S| and |T|.
//
// # Cost
//
// One query costs one pass over the contiguous embeddings (the cosines),
// the postings of its terms for BM25, O(N) fusion, for the classic score
// O(|E|) per φ and PageRank sweep, and MMR's few exact evaluations; top-k
// selections are partial. The Index (postings, node references, summary
// lengths, the mean-direction cosines and, built on first use, the pruned
// adjacency) is built once per graph and shared by concurrent queries.
package score
