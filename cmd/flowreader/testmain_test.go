package main

import (
	"os"
	"testing"
)

// TestMain makes the test binary the flowreader command when
// FLOWREADER_TEST_MAIN is set, so that tests can run it as a real process
// (its exit path, which flushes the trace, included), and removes the
// binary that the serve and mcp tests build.
func TestMain(m *testing.M) {
	if os.Getenv("FLOWREADER_TEST_MAIN") == "1" {
		main()
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
