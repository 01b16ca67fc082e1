package flowreader_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/pgstore"
)

// A collection kept in PostgreSQL (package pgstore) answers with no copy of
// the graph in the process: each question reads what it needs from one
// committed version. Import it first with `flowreader build --store URL
// --collection handbook PATH...` or pgstore's Store.Import. Not run here:
// it needs a server (tests start one with flowreadertest.PostgreSQL).
func ExamplePipeline_OpenStore() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE")) // e.g. postgres://localhost/flowreader
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.OpenStore(ctx, st, "handbook")
	if err != nil {
		log.Fatal(err)
	}
	// Only the documents tagged team=harbour are candidates.
	ev, err := ix.Retrieve(ctx, "Why did the East Arm lose nests?", flowreader.Options{
		Filter: flowreader.Filter{Metadata: map[string]string{"team": "harbour"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			fmt.Println(n.Doc, n.Text)
		}
	}
}
