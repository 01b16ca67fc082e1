package graph

import "testing"

// A graph whose embedder was recorded as "name:latest" (Ollama's implicit
// tag) is updated by an embedder named "name", and the other way round.
func TestSameModelAcrossLatestTag(t *testing.T) {
	for _, c := range [][2]string{{"nomic-embed-text:latest", "nomic-embed-text"}, {"nomic-embed-text", "nomic-embed-text:latest"}, {"a:7b", "a:7b"}} {
		if !sameModel(c[0], c[1]) {
			t.Errorf("%q and %q are one model", c[0], c[1])
		}
	}
	if sameModel("a:7b", "a") || sameModel("a", "b") {
		t.Error("different models taken for one")
	}
}
