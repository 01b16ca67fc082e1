package eval_test

import (
	"fmt"

	"github.com/flowreader/flowreader/internal/lab/eval"
)

// QASPER's answer F1: normalise, then token F1, best over annotators.
func ExampleAnswerF1() {
	fmt.Println(eval.NormalizeAnswer("The BLEU score, 31.2!"))
	fmt.Printf("%.3f\n", eval.TokenF1("a BLEU of 31.2", "BLEU 31.2"))
	fmt.Printf("%.3f\n", eval.AnswerF1("40 hours", []string{"Unanswerable", "about 40 hours of speech"}))
	// Output:
	// bleu score 312
	// 0.800
	// 0.571
}
