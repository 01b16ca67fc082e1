// Package glovedata embeds the quantised GloVe 6B 100-d vocabulary used by
// package llm/local (about 11 MB). It lives in its own package so that only
// programs importing llm/local carry it. See NOTICE.md for provenance and
// licences (package MIT, vectors PDDL 1.0) and tools/glove for the converter
// and the file format.
package glovedata

import _ "embed"

//go:embed glove100k.bin
var data string

// Data returns the embedded file. It is a string so that callers can slice
// words out of it without copying.
func Data() string { return data }
