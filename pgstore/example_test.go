package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/pgstore"
)

// Import builds a folder's graph and stores it as a collection; Update
// later makes the collection hold a new build, refused if another writer
// committed in between. FLOWREADER_STORE_URL names the database, for
// example one started by flowreadertest.PostgreSQL in a test.
func Example() {
	url := os.Getenv("FLOWREADER_STORE_URL")
	if url == "" {
		return
	}
	ctx := context.Background()
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	docs, err := ingest.Path("../examples/quickstart/docs")
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		log.Fatal(err)
	}
	err = s.Import(ctx, "quickstart", g, docs...)
	if errors.Is(err, pgstore.ErrExists) {
		err = s.Drop(ctx, "quickstart")
		if err == nil {
			err = s.Import(ctx, "quickstart", g, docs...)
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	cs, err := s.Collections(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cs {
		fmt.Println(c.Name, c.Nodes, c.Documents, c.Dim)
		// A later build of the folder replaces what changed, in one
		// transaction, from the version it was made from.
		if _, err := s.Update(ctx, c.Name, c.Version, g, nil, docs...); errors.Is(err, pgstore.ErrConflict) {
			fmt.Println("another writer committed first; rebuild from the new version")
		}
	}
}

// A replica answers from a collection without holding it: the pipeline
// opened over the store reads each question's candidates from the latest
// committed version, here under a filter on the documents' metadata.
// FLOWREADER_STORE_URL names the database, holding the collection of the
// package example.
func ExampleStore_Candidates() {
	url := os.Getenv("FLOWREADER_STORE_URL")
	if url == "" {
		return
	}
	ctx := context.Background()
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.OpenStore(ctx, s, "quickstart")
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "What was the peak gust?", flowreader.Options{
		Filter: flowreader.Filter{IDs: []string{"station-report"}}})
	switch {
	case errors.Is(err, flowreader.ErrUnavailable):
		fmt.Println("the database is down for now; retry")
	case errors.Is(err, flowreader.ErrNoGraph):
		fmt.Println("no such collection")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(res.Text)
	}
}
