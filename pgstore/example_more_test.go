package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/pgstore"
)

// The examples below need a PostgreSQL server, named by
// FLOWREADER_STORE_URL, so go test compiles them without running them;
// TestExamplesAgainstPostgreSQL runs each against a throwaway server and
// checks what it prints (shown under "Prints:").

// survey is a small collection: a survey note and a storm log.
func survey(nests string) []graph.Document {
	return []graph.Document{
		{ID: "survey", Title: "Harbour survey", Metadata: map[string]string{"year": "2025"}, Items: []graph.Item{
			{Page: 0, Text: "The East Arm held " + nests + " tern nests in 2025."},
			{Page: 0, Text: "The North Mole colony grew to 248 nests."},
		}},
		{ID: "storms", Title: "Storm log", Items: []graph.Item{
			{Page: 0, Text: "Storm Elda flooded the East Arm on 14 May with a surge of 2.1 metres."},
		}},
	}
}

// Open connects, creates or migrates the schema, and returns a store to
// share in the process. Its errors say whether to retry (the database is
// out of reach), to fix the request (the server's SQLSTATE) or to upgrade
// (a newer schema).
//
// Prints:
//
//	collections: 0
func ExampleOpen() {
	ctx := context.Background()
	url := os.Getenv("FLOWREADER_STORE_URL") // e.g. postgres://app:secret@db:5432/app
	s, err := pgstore.Open(ctx, url)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, flowreader.ErrUnavailable):
		log.Fatal("the database is out of reach for now; retry: ", err)
	case errors.As(err, &pgErr):
		log.Fatalf("the server refused (SQLSTATE %s): %v", pgErr.Code, err)
	case errors.Is(err, pgstore.ErrSchema):
		log.Fatal("the database was migrated by a newer flowreader: ", err)
	case err != nil:
		log.Fatal(err)
	}
	defer s.Close()
	cs, err := s.Collections(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("collections:", len(cs))
}

// A database that cannot be reached is flowreader.ErrUnavailable (a server
// answers 503): retry later. This one runs without a server.
func ExampleOpen_unavailable() {
	_, err := pgstore.Open(context.Background(), "postgres://app@127.0.0.1:1/app?connect_timeout=5")
	fmt.Println(errors.Is(err, flowreader.ErrUnavailable))
	// Output: true
}

// Import stores a built graph as a new collection, whole or not at all;
// any replica can then answer from it with Pipeline.OpenStore. A taken name
// is ErrExists.
//
// Prints:
//
//	harbour: 3 nodes, 2 documents
//	true
//	2.1 metres
func ExampleStore_Import() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	docs := survey("31")
	g, err := p.Build(ctx, docs)
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Import(ctx, "harbour", g, docs...); err != nil { // docs: titles and metadata
		log.Fatal(err)
	}
	defer s.Drop(ctx, "harbour") // leave the database as it was

	cs, err := s.Collections(ctx)
	if err != nil {
		log.Fatal(err)
	}
	c := cs[0]
	fmt.Printf("%s: %d nodes, %d documents\n", c.Name, c.Nodes, c.Documents)
	fmt.Println(errors.Is(s.Import(ctx, "harbour", g, docs...), pgstore.ErrExists))

	ix, err := p.OpenStore(ctx, s, "harbour") // what a replica does
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "What was the surge of Storm Elda?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}

// Update makes a collection hold a new build of its documents, from the
// version the build was made from: what changed is replaced in one
// transaction, and an update from a version that is no longer the latest
// (another writer committed first) changes nothing and fails with
// ErrConflict. The next question sees the new version. The Diff that
// Pipeline.Update returns with the new graph tells the store which
// documents changed, so that it reads none of the others' nodes; without
// one (nil) the store compares every document.
//
// Prints:
//
//	a newer version: true
//	stale base: true
//	12 tern nests
func ExampleStore_Update() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, survey("31"))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Import(ctx, "harbour-live", g); err != nil {
		log.Fatal(err)
	}
	defer s.Drop(ctx, "harbour-live")

	// The survey was corrected: update the graph (only the changed
	// document is analysed and embedded again) and the collection, from
	// the version the collection had.
	base := version(ctx, s, "harbour-live")
	docs := survey("12")
	g2, diff, err := p.Update(ctx, g, docs)
	if err != nil {
		log.Fatal(err)
	}
	v, err := s.Update(ctx, "harbour-live", base, g2, &diff, docs...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a newer version:", v > base)

	_, err = s.Update(ctx, "harbour-live", base, g2, &diff, docs...) // from the old version again
	fmt.Println("stale base:", errors.Is(err, pgstore.ErrConflict))

	ix, err := p.OpenStore(ctx, s, "harbour-live")
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How many tern nests did the East Arm hold in 2025?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}

// version returns a collection's current version.
func version(ctx context.Context, s *pgstore.Store, name string) int64 {
	cs, err := s.Collections(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == name {
			return c.Version
		}
	}
	log.Fatalf("no collection %q", name)
	return 0
}

// Collections lists what the store holds, by name: what an admin endpoint
// shows, and the dimension and embedder a question's embedder must match.
//
// Prints:
//
//	a-notes 3 nodes, 2 docs, dim 100, int8 false, glove-6b-100d-sif
//	b-notes 3 nodes, 2 docs, dim 100, int8 true, glove-6b-100d-sif
func ExampleStore_Collections() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, survey("31"))
	if err != nil {
		log.Fatal(err)
	}
	for name, h := range map[string]*graph.Graph{"b-notes": g.WithInt8Embeddings(), "a-notes": g} {
		if err := s.Import(ctx, name, h); err != nil {
			log.Fatal(err)
		}
		defer s.Drop(ctx, name)
	}
	cs, err := s.Collections(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cs {
		fmt.Printf("%s %d nodes, %d docs, dim %d, int8 %v, %s\n", c.Name, c.Nodes, c.Documents, c.Dim, c.Int8, c.Embedder)
	}
}

// Drop deletes a collection in one transaction; questions over it then fail
// with flowreader.ErrNoGraph (a server answers 404), as does a second Drop.
//
// Prints:
//
//	true true
func ExampleStore_Drop() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, survey("31"))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Import(ctx, "scratch", g); err != nil {
		log.Fatal(err)
	}
	ix, err := p.OpenStore(ctx, s, "scratch")
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Drop(ctx, "scratch"); err != nil {
		log.Fatal(err)
	}
	_, err = ix.Ask(ctx, "What was the surge of Storm Elda?", flowreader.Options{})
	fmt.Println(errors.Is(err, flowreader.ErrNoGraph), errors.Is(s.Drop(ctx, "scratch"), flowreader.ErrNoGraph))
}

// An index over a store holds no graph (Index.Graph is nil): Nodes fetches
// the nodes an answer cites, by their position in the collection, in one
// round trip.
//
// Prints:
//
//	true
//	storms p.1: Storm Elda flooded the East Arm on 14 May with a surge of 2.1 metres.
func ExampleStore_Nodes() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("FLOWREADER_STORE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, survey("31"))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Import(ctx, "harbour-nodes", g); err != nil {
		log.Fatal(err)
	}
	defer s.Drop(ctx, "harbour-nodes")

	ix, err := p.OpenStore(ctx, s, "harbour-nodes")
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "What was the surge of Storm Elda?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ix.Graph() == nil)
	nodes, err := s.Nodes(ctx, "harbour-nodes", []int{res.Citations[0].Node})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s p.%d: %s\n", nodes[0].Doc, nodes[0].Page+1, nodes[0].Content)
}
