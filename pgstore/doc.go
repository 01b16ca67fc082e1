// Package pgstore keeps flowreader collections in PostgreSQL, so that
// stateless replicas answer questions over them without holding a copy:
// per question a replica reads the candidate subgraph the in-process
// index would score (score.Index.ScoreCandidates), in one snapshot and two
// or three round trips, and scores, routes and selects it in-process.
//
// # Collections and the schema
//
// A collection is the unit of tenancy: one database holds many, each
// named, each with its own documents, nodes, vocabulary and statistics.
// [Open] creates the schema "flowreader" or migrates it to this library's
// version (recorded in flowreader.schema_version; a newer one is refused
// with [ErrSchema]), once, under an advisory lock. The tables, each keyed
// by the collection's id first:
//
//   - collections: the name, the embedding dimension and format (int8 with
//     a scale per row, or float32), the version (bumped by every commit)
//     and the whole-collection statistics a question needs: the node count
//     N, BM25's total document length (avgdl = total/N), the sum of the
//     vocabulary's Okapi idf (rank_bm25's ε floor, ε·mean idf), the longest
//     summary (answerability), the sum of the embeddings (the mean
//     direction, MMR's pivot) and the evenly spaced entry nodes whose
//     cosines estimate the mean relevance;
//   - documents: ID, title, metadata (jsonb, for filters), a hash of the
//     document's nodes (what an update compares), its nodes as seq ranges
//     and a 64-bit hash of each node's links (what an update without a
//     report of the changed links compares);
//   - nodes: the node's fields, keyed by seq, its position in the
//     collection (node i of an imported graph is seq i; an update numbers
//     new nodes after the others), with what scoring and routing read of
//     it: BM25 length, summary length (indexed, for the longest), reference
//     keys, the nodes it names by title (seqs ascending), its adjacency
//     (neighbour seqs ascending and edge kinds) and the weights of its
//     edges to the neighbours after it (graph.Edge.Weight, each edge's
//     once), so that a question's subgraph computes no cosine an edge,
//     and its keywords, reference keys and named seqs packed in one value
//     (what a question reads instead of the arrays);
//   - vectors: the embedding as stored in the graph (int8 bytes and the
//     row's scale, or float32), so that cosines are bit for bit the
//     in-process ones; sketches: its sign bits (bit varying), a narrow
//     table the dense first pass scans;
//   - terms (term → id, document frequency) and postings (term, seq, tf,
//     length), the BM25 index: terms are score's (lower case, English stop
//     words removed, snowball stems); dfs, how many terms have each
//     document frequency, from which an update computes the vocabulary's
//     idf sum without reading every term;
//   - refs (reference key → nodes) and titles (first word → node, title),
//     the lookups of the reference boost and of hop-aware relevance;
//   - each node's content class (graph.Graph.Copies: the same page exported
//     twice, a version of it, a boilerplate paragraph): the seqs of its
//     members in its lowest member's row, its lowest seq in the others'
//     (space linear in the class), and a key its exact copies share, indexed (schema 7; a
//     collection imported before keeps no classes until imported again).
//
// # A question: two or three round trips, one snapshot
//
// The first round trip opens a REPEATABLE READ, READ ONLY transaction
// and, pipelined, reads the collection row and its entry nodes'
// embeddings; the dense first pass (the 4·m, at least 1024, nodes whose
// sketches are nearest the question's in Hamming distance, with their
// embeddings); the question's terms' document frequencies and every
// posting of those terms (one statement a term, in key order); the
// reference and title matches. The replica ranks the nodes by BM25 from
// the postings with the in-process index's arithmetic and order (each
// node's score summed over its terms in the question's order; the whole
// collection's least, greatest and summed score; the m best, ties by lower
// seq), re-ranks the dense pass by the exact cosine (graph.Graph.Dot's
// arithmetic), interleaves the seeds as ScoreCandidates does, and expands
// them with the adjacency read with them (the seeds, then each one's
// neighbours in ascending order, the first 8·m distinct nodes). The
// lexical seeds' adjacency is known only once they are ranked: those the
// dense pass did not read are read after round trip 1, in the round trip
// of the re-rank rows when the replica's sketches rank the dense pass, in
// one more round trip otherwise (none when every node is re-ranked). The
// last round trip returns the candidates' rows, read by runs of
// consecutive seqs (one index descent a run; the embedding and adjacency
// of those the dense pass read are not sent again), the edges among them
// with their stored weights and, when Index.Score asks for it (it
// completes its subgraph's text), their reading text, and commits. The
// router's keyword frequencies of the candidates come from the replica's
// cache of those read at the snapshot's version; the missing ones are
// read after the snapshot by a statement that also reads the collection's
// version (an update in between makes the question be asked again), one
// more round trip until the cache holds them. The candidates' raw BM25 is
// their score in the replica's ranking, so the statistics, the seeds and
// the scores equal the in-process index's bit for bit; with every node
// re-ranked the subgraph is the in-process one. Writers never block this,
// and it never sees a partial update: PostgreSQL's snapshot holds one
// committed version.
//
// # Updates
//
// [Store.Import] creates a collection from a graph in one transaction,
// by COPY; it is then at version 1. [Store.Update] makes a collection
// hold a new graph's documents in one transaction and adds one to the
// version: it locks the collection's row (writers of one collection are
// serialised), refuses with [ErrConflict] when the collection's version is
// not the one the update was made from (no update silently undoes
// another), replaces what changed (the removed nodes' rows by their keys,
// the new nodes' rows, the links of only the kept nodes whose links
// changed), brings the statistics from the old ones by the nodes added and
// removed, and notifies channel "flowreader" with the collection's name:
// the database's work follows the change, not the collection. Given the
// graph.Diff that graph.Builder.Update returned, it hashes only the
// documents the Diff names (checked against the stored documents by IDs
// and node counts) and rewrites the links of only the kept nodes whose
// edges the Diff reports changed or whose title mentions changed; without
// one it hashes every document of the new graph to find what changed, and
// every kept node's links to compare them with the stored hashes.
// Replicas keep no state between questions, so each question reads the
// latest committed version: an update is visible to the next question,
// with no notification needed (a standby shows it once replayed).
//
// # Content classes
//
// Import finds the graph's content classes (graph.Graph.Copies) over the
// whole graph and stores each node's; a question's candidates carry them
// (score.Candidates.Copies), so that over a store, as in-process, the
// default router routes each content once, the hop step takes one seed a
// content, a title shared by copies counts once, and each evidence node
// and citation lists where else its content is (also_in). An update finds
// the classes again over the region it touches instead of the whole
// collection (the whole graph's detection costs seconds at 1M nodes): the
// nodes it adds and relinks, their neighbours, the kept nodes that are
// exact copies of an added node (by the indexed key), the members of every
// stored class among them, and the whole documents of the members of every
// class of at most 8 (a document copied as a whole is aligned node by
// node). Within that region the classes are the whole graph's
// (TestUpdateCopiesMatchImport compares them after random updates); what
// it leaves out is a pair of kept nodes newly joined by an edge that the
// update does not report as relinked (only an update without a Diff, which
// reports none). A keyword's frequency and the collection's count of
// contents (the router's bridge statistics, score.Candidates.KeywordDF and
// Contents) count a class once, by its lowest seq, as the in-memory router
// counts it by its lowest node: over an imported collection the evidence
// equals the in-memory index's, copies or not (the conformance tests).
//
// # The index over a store, filters
//
// [Store] implements flowreader.Store: Pipeline.OpenStore(ctx, store,
// name) is an Index whose questions read their candidates from the
// collection ([Store.Candidates], the fetch above) and the text of what
// they read ([Store.Nodes], one more round trip), and score, route and
// select in-process. Its evidence equals the in-memory index's with exact
// dense candidates, and overlaps it by at least 0.98 with the sketch pass
// or pgvector's HNSW (the conformance tests). A flowreader.Filter (document
// IDs, metadata key/values given at ingest) selects the documents by their
// metadata's GIN index; their nodes, kept per document as seq ranges, are
// the only candidates (dense pass, BM25 top, references), while every
// statistic stays the collection's, as in-process. pgvector's HNSW serves
// a filtered question through its iterative scan (pgvector 0.8 and
// later); an older pgvector ranks the filter's sketches instead.
//
// # Errors
//
// Errors wrap the driver's: errors.As with *pgconn.PgError gives the
// server's SQLSTATE. A database that cannot be reached, is shutting down
// or is starting gives errors wrapping flowreader.ErrUnavailable (a
// server maps it to 503); the pool reconnects by itself once it is back.
// An unknown collection is an error wrapping flowreader.ErrNoGraph (a
// server maps it to 404).
package pgstore
