// Package flowreadertest helps users unit-test retrieval logic built on
// flowreader: it builds an opened [flowreader.Index] from a few inline
// passages or a small fixture folder in one call, asserts what the evidence
// for a question holds, and starts a throwaway PostgreSQL server for tests
// of a store.
//
// # Offline and deterministic
//
// [Open] with the zero [flowreader.Config] builds the graph on the GloVe
// embedder compiled into the binary (package llm/local), the offline node
// analysis and the extractive reader. Nothing touches the network or the
// environment, and the same passages give the same graph, routing and answer
// bit for bit, so assertions on them are stable. Other Configs test other
// parts; the scripted model and hashing embedder of package llm/fake
// (fake.Model, fake.Embedder) are the fakes to put in them.
//
// # Any testing.TB, and testify
//
// Every helper takes a [TB], the two methods testify's require.TestingT has
// (Errorf and FailNow): a *testing.T or *testing.B, a testify suite's s.T(),
// or an *assert.CollectT inside assert.EventuallyWithT. Helper is called when
// t has it, so failures point at the caller's line. Builders ([Open],
// [Folder], [Evidence]) stop the test with FailNow when they cannot
// do their job; assertions ([EvidenceContains], [ReadsAtMost], [Cites])
// report with Errorf and return whether they held, like testify's assert,
// so a test can go on or stop (require.True(t, ...)). Golden files are
// left to the caller's own helper or library: nothing here is specific to
// them.
//
// # PostgreSQL
//
// [PostgreSQL] starts a throwaway PostgreSQL server for one test (Debian's
// postgresql-15, in a temporary folder, on a free loopback port) and returns
// its URL, for tests of code that keeps collections in a database with
// package pgstore.
//
// Package llm/openai/openaitest serves a fault-injecting OpenAI-compatible
// server for testing a pipeline against a flaky model server.
package flowreadertest
