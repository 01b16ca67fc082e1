// Package reliability holds flowreader's cross-package reliability,
// security and load tests (issue 10); it has no exported API. The tests
// drive the public facade (package flowreader) through the fault-injecting
// OpenAI-compatible server of package internal/faultserver:
//
//   - reliability_faults_test.go: a full Build and a full Ask under 429s,
//     5xx, connection resets, truncated and non-JSON bodies and stalls;
//     builds resume from the on-disk cache without repeating a received call.
//   - reliability_input_test.go: nasty inputs across the facade.
//   - reliability_dataloss_test.go: builds cancelled at every call count leave
//     no file that loads as valid and keep the previous graph intact.
//   - load_test.go: 64 goroutines asking concurrently on one graph.
//   - security_*_test.go: path escapes, size limits, secret keys in
//     everything a run writes, prompt delimiters under adversarial text.
package reliability
