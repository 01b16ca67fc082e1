// Package eval measures how well routers pick evidence on real question
// answering data with gold evidence: dataset loaders, graph construction
// for evaluation, evidence metrics at a node budget, paired significance
// tests, a runner that compares routers on the same graphs and scores, and
// an answer-accuracy mode that scores the VLM reader's answers with the paper's
// judge prompt.
//
// # Metrics
//
// For one question, let S be the distinct nodes on the selected chains after
// capping them at a budget of B distinct nodes, and let G_1..G_m be the gold
// evidence sets of the m annotators, each a set of units (a unit is covered
// when one of its nodes is in S). Then
//
//	evidence recall = max_j |{u ∈ G_j : u covered}| / |G_j|
//	all-gold        = max_j [every u ∈ G_j covered]
//	doc recall      = |{d ∈ D : some node of d in S}| / |D|   (D = gold documents)
//
// The best annotator is taken per question, as QASPER scores evidence.
// Distinct nodes is |S|, node reads the sum of chain lengths (a node on two
// chains is read twice), chains the number of selected chains. Dataset
// figures are means over the questions where a metric is defined; the macro
// row averages the dataset means with equal weight.
//
// # Budgets
//
// A budget B is a number of distinct nodes. Each router's chains are picked
// by its selector (greedy: top-B by flow; annealed: replicator dynamics;
// ranked baselines: rank order) and then cut with capDistinct so
// that no router reads more than B distinct nodes. A router may read fewer:
// the aspects routers route their own demand F0 (capped at F_max, the
// budget B the runner passes to Route), so their distinct-node column shows
// how much of the budget they use. Each router is opened once per graph.
//
// # Graphs
//
// One graph per document set, built once per run and shared by the
// questions on it: one node per item (Order = item index, so gold items map
// to nodes), reading-order edges between text nodes within 3 positions,
// and 5 nearest neighbours by cosine. Every scoring (score.Config) gets one
// score.Index per graph; every question is embedded once and scored once
// per scoring, and all routers reading a scoring see the same scores.
//
// # Paired significance
//
// Routers are compared on the same questions. The recall difference against
// a baseline router gets a paired bootstrap percentile interval: resample
// questions with replacement (seeded PCG), take the mean difference, and
// report the 2.5 and 97.5 percentiles. All-gold rates get McNemar's test on
// the discordant pairs b (baseline only) and c (router only): exact two-sided
// binomial p for b+c < 25, else χ² = (|b−c|−1)²/(b+c) with one degree of
// freedom.
//
// # Answer F1 without a model
//
// With Runner.Extract (flowreader eval --answer-f1), every question with an
// extractive QASPER answer (QASPER, PaperTab) is answered by the offline
// extractive reader over each router's chains, and scored as QASPER does:
// normalise (lower case, ASCII punctuation and the articles a, an, the
// removed), token F1 = 2PR/(P+R) over the bags of tokens, and the best F1
// over the annotators' references (extractive spans joined by ", ", free
// form, Yes/No or Unanswerable). It goes to results.md and answer_f1.csv;
// results.csv keeps its header.
//
// # Embedding text
//
// Evaluation graphs are built without a language model: node analysis is
// offline, so a node is embedded from its own content (plus its caption for
// visual nodes), not from an LLM summary, as the METHOD B.13 prototype did.
// Dense relevance is therefore that of a static embedder unless a remote
// embedder is configured.
package eval
