package flowreader_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowreader/flowreader"
)

// Tracing: spans of the build and its stages, of opening the graph and of
// each step of a question (here into an in-memory exporter; in production
// an OTLP exporter). Config.Logger and Config.MeterProvider are set the
// same way; nil means off.
func ExampleConfig_tracing() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	p, err := flowreader.New(flowreader.Config{TracerProvider: tp})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How strong were the gusts of the storm that flooded the East Arm?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		fmt.Println(n)
	}
	fmt.Println("embedding calls:", res.Usage.EmbedCalls)
	// Output:
	// embeddings glove-6b-100d-sif
	// flowreader.answer
	// flowreader.ask
	// flowreader.build
	// flowreader.build.embed
	// flowreader.build.knn
	// flowreader.open
	// flowreader.read
	// flowreader.route
	// flowreader.score
	// flowreader.select
	// embedding calls: 3
}
