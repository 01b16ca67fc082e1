// Package reliability holds flowreader's cross-package reliability,
// security and load tests (issue 10); it has no exported API. The tests
// drive the public facade (package flowreader) and the packages under it,
// often through the fault-injecting OpenAI-compatible server of package
// internal/faultserver:
//
//   - reliability_faults_test.go: a full Build and a full Ask under 429s,
//     5xx, connection resets, truncated and non-JSON bodies and stalls;
//     builds resume from the on-disk cache without repeating a call whose
//     answer the client received, and end byte-identical to a fault-free
//     build; every dropped chain is in the trace; no goroutine outlives Ask.
//   - reliability_input_test.go: nasty inputs across the facade (empty
//     documents, binary garbage, invalid UTF-8, a 10 MB paragraph, NaN, Inf
//     and wrong-dimension embeddings, an empty graph, stop-word questions).
//   - reliability_dataloss_test.go, reliability_kill_test.go: builds
//     cancelled at every call count and writers killed with SIGKILL leave no
//     file that loads as valid but wrong, and keep the previous graph.
//   - reliability_fuzz_test.go: fuzz targets for parsers that had none
//     (model answers through the graph Builder, plain text, cache
//     entries; the HTML table fuzz target is in graph/ingest).
//   - load_test.go: 64 goroutines asking concurrently on one loaded graph.
//   - security_*_test.go: path escapes, size limits, API keys in everything
//     a run writes, prompt delimiters under adversarial documents.
//
// Counts shrink under the race detector (reliability_race_test.go) and with
// -short; RELIABILITY_REPORT=dir writes the fault tables to dir.
package reliability
