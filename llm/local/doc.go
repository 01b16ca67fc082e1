// Package local provides the embedded default embedder, which needs no
// server: GloVe 6B 100-d word vectors (Pennington et al., 2014), of which
// the 100 000 most frequent words ship inside the binary, int8-quantised
// (internal/glovedata/NOTICE.md gives provenance and licences). Nothing is
// downloaded at run time; the table is decoded lazily, once per process, on
// the first Embed call. Embedder returns it; its Name, "glove-6b-100d-sif",
// goes into graph headers and cache keys.
//
// # Sentence vectors
//
// A text is lowercased and split on every rune that is neither a letter nor
// a digit (numbers are kept as tokens). Stop words are dropped, unless a text
// has nothing else in the vocabulary. Each remaining token w found in the
// vocabulary contributes its vector v_w with the smooth inverse frequency
// (SIF) weight of Arora, Liang and Ma (2017),
//
//	s = Σ_w  a/(a + p(w)) · v_w,     ŝ = s/‖s‖,
//
// with a = 1e-3. GloVe ships no counts, so p(w) is estimated from the word's
// frequency rank r (1 for the most frequent word) by Zipf's law over the full
// 400 000-word GloVe vocabulary,
//
//	p(w) = 1/(r · H_N),  H_N = ln N + γ + 1/(2N),  N = 400 000,
//
// which gives weight ≈ 0.01 for "the" (rank 1), 0.57 at rank 100 and 0.99
// at rank 10 000: frequent words count little, rare ones almost fully. The
// first-principal-component removal of full SIF needs a corpus and is not
// applied. Tokens outside the vocabulary are skipped. Among them are all
// numbers, which the wink redistribution of GloVe leaves out: "2014" is kept
// as a token but never embedded, so the lexical channel (BM25) must carry
// it. A text with no known token embeds to the zero vector, never NaN.
package local
