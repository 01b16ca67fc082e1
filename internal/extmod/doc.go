// Package extmod holds one test: that a fresh module outside the repository
// can require the root module and every adapter module (through replace
// directives, as a user does before a release is tagged) and build, vet and
// run the README's adapter snippet, the adapters' examples and the test
// kit's examples (package flowreadertest), with go test and with testify.
package extmod
