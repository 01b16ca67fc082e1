// Package reader turns selected evidence chains into an answer (METHOD A.6–A.7
// and B.10).
//
// # VLM: the paper's reader
//
// One worker call per chain, all in one parallel round (at most
// VLM.Concurrency in flight; 0 means all), with the preset's prompt copied
// verbatim from the paper (v3 P4 for Aspects, v1 B.2 for Classic; see
// prompts/README.md). $DOC$ is the chain's nodes in routed order: text nodes
// give their content; visual nodes give their image (when the model
// implements llm.ImageAccepter and accepts images) with caption, summary and
// in-image text, or a full text rendering otherwise. Evidence is at most
// E = 6,000 characters per worker, shared by water-filling (Shares): with n
// nodes of lengths l_i and Σ l_i > E, every node gets s = ⌊E'/m⌋ of the
// budget E' left to the m nodes not yet settled; nodes with l_i ≤ s keep
// everything and return the rest; repeat until no node settles. The budget
// counts the characters of node bodies; the one-line header naming each
// node's document, page and modality is extra. Document
// text can never close the <text> block: "<" of any <text>, <output> or
// <thought> tag inside content becomes "‹".
//
// Workers answer {"status","answer","evidence"}; ParseWorker reads that
// leniently, and an unreadable reply is not_reported, never an error.
//
// A question-type call runs alongside the workers (METHOD B.10, proposed
// JSON {"type","length"}); it sets the reasoner's key evidence per chain —
// K = 4 nodes for list, describe or paragraph questions, else K = 2 — each
// truncated to 2,000 characters, chosen by highest h and shown in routed
// order. One reasoner call (v3 P5 or v1 B.3) reconciles the drafts; the
// answer is the text of its last <output> (ExtractOutput falls back to the
// reply without its <thought> block, then to the best supported draft).
//
// # Gate and System 2 (v1)
//
// With System 2 on (Classic's default), the B.4 judge compares the distinct
// normalised supported answers pairwise (at most 10 pairs, heaviest chains
// first) and
//
//	c = 1 − #contradictions / #pairs   (c = 1 with fewer than two answers).
//
// The gate fires on c < τ = 0.65 (T2), σ < ξ = 0.60 (T1, σ = min(f_max/F, 1)
// from the routing) or no supported answer (T3). One System-2 pass then
// applies the edits of every trigger that fired — T1: bridges across the min
// cut scored by B.5 (added when EXISTS: YES and SCORE > 0.10) and cut edges
// re-scored by B.6; T2: top-decile-flow edges re-scored by B.6; T3: new seeds
// by BFS to depth 2 and their edges re-scored by B.6 — all with the damped
// update
//
//	p_new = p_old + sign(Δ)·min(ε_w, |Δ|),  Δ = λ(p̂ − p_old),  λ = 0.6, ε_w = 0.30,
//
// scorers at temperature 0.2; re-routes once (flow.Rerouter), re-selects,
// re-reads with the same worker prompt (reusing the System-1 reading of an
// identical chain) and synthesises. If no System-2 draft is supported, the
// System-1 answer stands. Scorer calls are cut so that a whole query stays
// within 48 calls.
//
// # Extractive: the offline reader
//
// Extractive needs no generative model: it ranks the sentences, list items
// and table rows of the chains' nodes by BM25 (idf over those units, k1 = 1.2,
// b = 0.75, normalised by the best score), fused as (1−w)·BM25 + w·max(cos, 0)
// with an optional embedder (w = 0.5), and answers with the best unit — for a
// table row, the cell whose column the question names. Its trace says
// "extractive".
//
// # Failure policy
//
// A worker that fails (after whatever retries the model middleware does)
// drops its chain and the trace says so; all workers failing is
// ErrAllWorkersFailed; a failed reasoner is ErrReasoner; cancelling the
// context stops every in-flight call.
package reader
