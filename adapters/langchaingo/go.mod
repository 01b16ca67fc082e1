module github.com/flowreader/flowreader/adapters/langchaingo

go 1.26.0

require (
	github.com/flowreader/flowreader v0.0.0
	github.com/tmc/langchaingo v0.1.14
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
	github.com/yourbasic/graph v0.0.0-20210606180040-8ecfec1c2869 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/flowreader/flowreader => ../..
