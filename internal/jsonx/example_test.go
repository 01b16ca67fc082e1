package jsonx_test

import (
	"fmt"

	"github.com/flowreader/flowreader/internal/jsonx"
)

func ExampleExtract() {
	out := "Here is my verdict:\n```json\n{\"supported\": true, \"nodes\": [3, 7],}\n```"
	var v struct {
		Supported bool  `json:"supported"`
		Nodes     []int `json:"nodes"`
	}
	err := jsonx.Extract(out, &v)
	fmt.Println(v.Supported, v.Nodes, err)
	// Output: true [3 7] <nil>
}
