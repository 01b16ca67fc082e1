// Package reader turns selected evidence chains into an answer (paper v3
// §3.4; paper v1 §3.4). A reader knows nothing of routing, selection or
// budgets: it reads the chains it is given.
//
// # VLM: the paper's reader
//
// One worker call per chain, all in one parallel round (at most
// VLM.Concurrency in flight; 0 means all), with the preset's prompt copied
// verbatim from the paper (v3 P4, or v1 B.2 with [VLM].Classic; see
// prompts/README.md). $DOC$ is the chain's nodes in routed order: text nodes
// give their content; visual nodes give their image (when the model
// implements llm.ImageAccepter and accepts images) with caption, summary and
// in-image text, or a full text rendering otherwise. Evidence is at most
// E = 6,000 characters per worker, shared by water-filling (shares): with n
// nodes of lengths l_i and Σ l_i > E, every node gets s = ⌊E'/m⌋ of the
// budget E' left to the m nodes not yet settled; nodes with l_i ≤ s keep
// everything and return the rest; repeat until no node settles. The budget
// counts the characters of node bodies; the one-line header naming each
// node's document, page and modality is extra. Document
// text can never close the <text> block: "<" of any <text>, <output> or
// <thought> tag inside content becomes "‹".
//
// Workers answer {"status","answer","evidence"}; parseWorker reads that
// leniently, and an unreadable reply is not_reported, never an error.
//
// A question-type call runs alongside the workers (a proposed
// JSON {"type","length"}; the paper gives no prompt); it sets the reasoner's key evidence per chain —
// K = 4 nodes for list, describe or paragraph questions, else K = 2 — each
// truncated to 2,000 characters, chosen by highest h and shown in routed
// order. One reasoner call (v3 P5 or v1 B.3) reconciles the drafts; the
// answer is the text of its last <output> (extractOutput falls back to the
// reply without its <thought> block, then to the best supported draft).
//
// # Judge: what System 2 needs
//
// The dual-process gate and its System-2 pass (paper v1 §3.5) run in the
// root package, over a reader that implements the optional capability
// [Judge] ([VLM] does). Consistency compares the distinct normalised
// supported answers pairwise with the B.4 judge (at most 10 pairs,
// heaviest chains first):
//
//	c = 1 − #contradictions / #pairs   (c = 1 with fewer than two answers).
//
// ScorePairs runs the B.5 bridge scorer (EXISTS: YES/NO, SCORE) or the B.6
// edge scorer on node pairs at temperature 0.2. A re-read passes the first
// reading in [Input].Earlier, so that an identical chain is not read
// twice.
//
// # Extractive: the offline reader
//
// Extractive needs no generative model. It ranks the sentences, list items
// and table rows of the chains' nodes by BM25 (idf over those units, k1 =
// 1.2, b = 0.75, normalised by the best score), fused as (1−w)·BM25 +
// w·max(cos, 0) with an optional embedder (w = 0.5); a unit inherits 0.8 of
// the previous unit's score (a value stated after the sentence that names
// it). The question's wording gives the answer kind (number, date, person,
// place, name, acronym expansion, definition, other), and the reader
// answers with the best span of that kind in the 24 best units:
//
//	s = (0.45·e/e_max + 0.55·near)·fit + 0.1·[head noun next to it] + 0.03/(1+k)
//
// with near the idf-weighted nearness 1/(1+d/6) of the question's terms,
// fit the span's form and k the node's place in the evidence order (a
// prior, never a cap). A table row is read as row/column pairs: a cell is
// scored by its column header against the question, in the row its short
// cells name. Every answer carries a confidence
//
//	c = fit · w · (0.4 + 0.6·min(1, (s₁ − s₂)/0.25))
//
// (w the idf-weighted share of the question's terms around the answer,
// s₁ − s₂ its lead over the best different answer). Below
// ConfidenceThreshold the answer line is the span's passage, the first
// citation's Span marking the span. Questions of no kind are answered with
// the best unit — for a table row, the cell whose column the question
// names — and, when it leaves question terms open, the best unit of another
// node that covers them. A table's header may span several rows (a
// row-spanning first cell repeated below it, as ingest renders spans):
// they are merged per column ("REQ" over "Recall" reads "REQ Recall"). The
// answer line is the cited spans joined by " … " and nothing else. With Q
// the question's distinct terms and F those found in the cited spans or
// their settings (document, section, caption, row header), it abstains when
// |F|/|Q| < 1/2: the answer is empty, without citations, and its note says
// "no answer in the collection". Its trace says "extractive".
//
// # Streaming
//
// A caller that sets [Input].OnDraft and OnText sees the reading as it
// happens: each draft when its worker finishes, then the reasoner's reply
// as its model writes it (when the model implements llm.Streamer), split
// at its tags: the text of <output> as answer pieces (leading and trailing
// spaces of the block dropped, so that for a reply with one <output> block
// the answer pieces joined are the answer extractOutput takes), the rest
// as thought. A tag cut across pieces is held back until it is whole. When
// the model does not stream, when the reply has no <output> tag, and for
// the extractive reader, the answer is passed on once, whole.
//
// # Failure policy
//
// A worker that fails (after whatever retries the model middleware does)
// drops its chain and the trace says so; all workers failing is
// ErrAllWorkersFailed; a failed reasoner is ErrReasoner; cancelling the
// context stops every in-flight call.
package reader
