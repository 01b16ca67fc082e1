// Package glovedata embeds the quantised GloVe 6B 100-d vocabulary that
// package llm/local decodes. It is internal to llm/local, so that only
// programs importing llm/local carry it and nothing else depends on the raw
// file. See NOTICE.md for provenance and licences (package MIT, vectors PDDL
// 1.0) and tools/glove for the converter and the file format.
package glovedata

import _ "embed"

//go:embed glove100k.bin
var data string

// Data returns the embedded file. It is a string so that callers can slice
// words out of it without copying.
func Data() string { return data }
