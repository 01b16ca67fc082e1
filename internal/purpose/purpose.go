// Package purpose names the purposes (llm.Purpose) of the model calls the
// pipeline makes, in one place for the packages that make them; llm's
// Purpose doc lists the same values for users.
package purpose

import "github.com/flowreader/flowreader/llm"

// The purposes of the calls the pipeline makes (paper v1 App. A and B
// number the prompts). They are also the keys of reader.Trace.CallsByKind.
const (
	// Analysis is the build-time node analysis (prompts P1/P2).
	Analysis llm.Purpose = "analysis"
	// Evolution is a build-time evolution round (prompt P3).
	Evolution llm.Purpose = "evolution"
	// Worker is a worker reading one chain (B.2).
	Worker llm.Purpose = "worker"
	// QuestionType is the reader's question-type classification.
	QuestionType llm.Purpose = "question_type"
	// Reasoner is the synthesis of the drafts into the answer (B.3).
	Reasoner llm.Purpose = "reasoner"
	// Judge is the dual-process gate's consistency judge (B.4).
	Judge llm.Purpose = "judge"
	// System2 is a System-2 scorer call: a bridge (B.5) or an edge
	// re-weighting (B.6) (paper v1 §3.5).
	System2 llm.Purpose = "system2"
)

// All lists every purpose.
var All = []llm.Purpose{Analysis, Evolution, Worker, QuestionType, Reasoner, Judge, System2}
