package server

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// metrics are the server's own counters, served at GET /metrics in the
// Prometheus text format (version 0.0.4), so that a scraper needs no client
// library and the server no dependency. Label values come from a fixed
// set (endpoints, status codes, refusal reasons): nothing a client sends
// becomes a label.
type metrics struct {
	adm *admission

	mu       sync.Mutex
	calls    map[[2]string]uint64 // endpoint, status code
	refused  map[string]uint64    // reason
	duration map[string]*histogram
}

// durationBuckets are the upper bounds, in seconds, of the call duration
// histogram: from a cached retrieve to a long ask.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func newMetrics(adm *admission) *metrics {
	return &metrics{adm: adm, calls: map[[2]string]uint64{}, refused: map[string]uint64{}, duration: map[string]*histogram{}}
}

// call records one finished call: its endpoint, status and duration
// (arrival to computed answer, the write excluded).
func (m *metrics) call(endpoint string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[[2]string{endpoint, strconv.Itoa(status)}]++
	h := m.duration[endpoint]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		m.duration[endpoint] = h
	}
	s := d.Seconds()
	i, _ := slices.BinarySearch(durationBuckets, s)
	h.counts[i]++
	h.sum += s
	h.n++
}

// refuse records a request refused before it ran.
func (m *metrics) refuse(reason string) {
	m.mu.Lock()
	m.refused[reason]++
	m.mu.Unlock()
}

func (m *metrics) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	m.write(w)
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(w, "# HELP flowreader_server_calls_in_flight Retrieve and ask calls running.\n# TYPE flowreader_server_calls_in_flight gauge\nflowreader_server_calls_in_flight %d\n", m.adm.inFlight())
	fmt.Fprintf(w, "# HELP flowreader_server_calls_queued Calls waiting for a slot.\n# TYPE flowreader_server_calls_queued gauge\nflowreader_server_calls_queued %d\n", m.adm.queued.Load())
	fmt.Fprintf(w, "# HELP flowreader_server_calls_refused_total Requests refused before running: busy (queue full), queue_timeout, unauthorized, forbidden_host.\n# TYPE flowreader_server_calls_refused_total counter\n")
	for _, reason := range sortedKeys(m.refused) {
		fmt.Fprintf(w, "flowreader_server_calls_refused_total{reason=%q} %d\n", reason, m.refused[reason])
	}
	fmt.Fprintf(w, "# HELP flowreader_server_calls_total Finished retrieve and ask calls by endpoint and HTTP status.\n# TYPE flowreader_server_calls_total counter\n")
	keys := make([][2]string, 0, len(m.calls))
	for k := range m.calls {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		fmt.Fprintf(w, "flowreader_server_calls_total{code=%q,endpoint=%q} %d\n", k[1], k[0], m.calls[k])
	}
	fmt.Fprintf(w, "# HELP flowreader_server_call_duration_seconds Time from a call's arrival to its computed answer (the write excluded).\n# TYPE flowreader_server_call_duration_seconds histogram\n")
	for _, ep := range sortedKeys(m.duration) {
		h := m.duration[ep]
		var cum uint64
		for i, le := range durationBuckets {
			cum += h.counts[i]
			fmt.Fprintf(w, "flowreader_server_call_duration_seconds_bucket{endpoint=%q,le=%q} %d\n", ep, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += h.counts[len(durationBuckets)]
		fmt.Fprintf(w, "flowreader_server_call_duration_seconds_bucket{endpoint=%q,le=\"+Inf\"} %d\n", ep, cum)
		fmt.Fprintf(w, "flowreader_server_call_duration_seconds_sum{endpoint=%q} %s\n", ep, strconv.FormatFloat(h.sum, 'g', -1, 64))
		fmt.Fprintf(w, "flowreader_server_call_duration_seconds_count{endpoint=%q} %d\n", ep, h.n)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
