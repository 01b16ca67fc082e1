package faultserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one class of injected failure; OK is a normal answer.
type Fault uint8

// Fault classes, in the order they are drawn (see the package doc).
const (
	OK Fault = iota
	RateLimited
	Internal
	Unavailable
	Reset
	Truncated
	NotJSON
	Stall
	numFaults
)

var faultNames = [...]string{"ok", "429", "500", "503", "reset", "truncated", "not_json", "stall"}

// String names the fault class.
func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Faults lists every fault class but OK, in draw order.
func Faults() []Fault {
	return []Fault{RateLimited, Internal, Unavailable, Reset, Truncated, NotJSON, Stall}
}

// Rates are the probabilities of each fault class per request. Their sum
// must not exceed 1; the remainder is the probability of a normal answer.
type Rates struct {
	RateLimited, Internal, Unavailable, Reset, Truncated, NotJSON, Stall float64
}

// Uniform returns Rates with p for every class.
func Uniform(p float64) Rates {
	return Rates{p, p, p, p, p, p, p}
}

func (r Rates) slice() [numFaults]float64 {
	return [numFaults]float64{0, r.RateLimited, r.Internal, r.Unavailable, r.Reset, r.Truncated, r.NotJSON, r.Stall}
}

// ChatRequest is what a chat handler sees of one request.
type ChatRequest struct {
	// Model is the requested model name.
	Model string
	// Messages are the conversation's turns; text parts are joined by "\n".
	Messages []Message
	// Schema is the response_format json_schema name, "" without one.
	Schema string
	// Key is the request's key (hex SHA-256 of its body).
	Key string
}

// Message is one turn of a ChatRequest.
type Message struct {
	Role   string
	Text   string
	Images int
}

// Prompt returns the text of every message, joined by "\n".
func (r *ChatRequest) Prompt() string {
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Text
	}
	return strings.Join(parts, "\n")
}

// Config configures a Server. The zero value serves every request with no
// faults, an empty chat answer and 16-dimensional hashing embeddings.
type Config struct {
	// Seed seeds the fault draws.
	Seed uint64
	// Rates are the fault probabilities per request.
	Rates Rates
	// MaxFaultsPerKey, when positive, serves a key normally after that many
	// injected faults for it.
	MaxFaultsPerKey int
	// RetryAfter is sent with 429 and 503 answers (in seconds, fractions
	// allowed); 0 means 1 s.
	RetryAfter time.Duration
	// MaxStall bounds a stall; 0 means 30 s.
	MaxStall time.Duration
	// APIKey, when set, is required as "Authorization: Bearer <APIKey>";
	// other requests get 401.
	APIKey string
	// EchoAuth makes every error message quote the Authorization header the
	// request carried, as some servers do in their 401 answers, so that a
	// test can check that a client keeps credentials out of its errors.
	EchoAuth bool
	// Models are listed by GET /v1/models.
	Models []string
	// Chat computes the answer text of a chat request; nil answers "".
	Chat func(req *ChatRequest) string
	// Label, when set, names a chat request in the log (Entry.Label), for
	// example by prompt family; it sees every parsed request, faulty or not.
	Label func(req *ChatRequest) string
	// Embed computes the vector of one input text; nil means Hash with Dim.
	// Non-finite components are written as NaN, Infinity and -Infinity, as
	// Python servers do.
	Embed func(model, text string) []float32
	// Dim is the dimension of the default embedding; 0 means 16.
	Dim int
}

// Entry is one logged request.
type Entry struct {
	// Seq is the request's arrival order, from 0; Arrived its event number
	// (arrivals and consumptions share one clock).
	Seq, Arrived int
	// Sent is the event number at which a client made by Client sent the
	// request (Arrived for other clients). A request can arrive after a
	// later one was answered: a cancelled client's request written to a
	// connection before the cancel is still read and handled, late when
	// the machine is busy. Repeats goes by Sent.
	Sent int
	// Path is the request path.
	Path string
	// Key is the hex SHA-256 of the body; Items are the keys of what it
	// asks for (the Key for chat, ItemKey per input for embeddings).
	Key   string
	Items []string
	// Label is Config.Label's name for a chat request ("" without one).
	Label string
	// Attempt counts requests with this Key, from 1.
	Attempt int
	// Fault is the injected fault; Status the HTTP status sent (0 when the
	// connection was reset or cut, or a stall ended by the client).
	Fault  Fault
	Status int
	// Served is true when the server wrote a complete successful answer.
	Served bool
	// Consumed is true when a client made by Client read that answer to its
	// end; ConsumedAt is the event number of that moment.
	Consumed   bool
	ConsumedAt int
	// Err describes a request the server could not parse.
	Err string
}

// Server is a running fault-injecting server. Make it with New; Close it.
type Server struct {
	*httptest.Server
	cfg  Config
	done chan struct{}

	mu       sync.Mutex
	clock    int
	log      []Entry
	attempts map[string]int
	faults   map[string]int
	closed   bool
}

// Header names the response header that carries the entry's Seq.
const Header = "X-Faultserver-Seq"

// New starts a server.
func New(cfg Config) *Server {
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Second
	}
	if cfg.MaxStall <= 0 {
		cfg.MaxStall = 30 * time.Second
	}
	if cfg.Dim <= 0 {
		cfg.Dim = 16
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), attempts: map[string]int{}, faults: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Close stops the server: stalled handlers return at once, then the
// underlying httptest.Server is closed (which waits for every handler).
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.Server.Close()
}

// BaseURL is the URL to give an OpenAI-compatible client ({URL}/v1).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Log returns a copy of the request log in arrival order.
func (s *Server) Log() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.log))
	copy(out, s.log)
	for i := range out {
		out[i].Items = append([]string(nil), out[i].Items...)
	}
	return out
}

// Counts returns how many requests got each fault class (OK included).
func (s *Server) Counts() map[Fault]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := map[Fault]int{}
	for _, e := range s.log {
		c[e.Fault]++
	}
	return c
}

// Repeat is a request for an item the client had already received.
type Repeat struct {
	Item string
	// First is the Seq of the request whose success was consumed; Again
	// the Seq of the later request.
	First, Again int
}

// Repeats lists the requests for an item that were sent after a consumed
// successful answer for the same item (by Entry.Sent), in arrival order.
func (s *Server) Repeats() []Repeat {
	log := s.Log()
	type got struct{ at, seq int }
	consumed := map[string]got{}
	for _, e := range log {
		if !e.Consumed {
			continue
		}
		for _, it := range e.Items {
			if g, ok := consumed[it]; !ok || e.ConsumedAt < g.at {
				consumed[it] = got{e.ConsumedAt, e.Seq}
			}
		}
	}
	var out []Repeat
	for _, e := range log {
		for _, it := range e.Items {
			if g, ok := consumed[it]; ok && e.Sent > g.at {
				out = append(out, Repeat{Item: it, First: g.seq, Again: e.Seq})
			}
		}
	}
	return out
}

// Successes counts, per item, the requests that were served successfully
// (consumed or not).
func (s *Server) Successes() map[string]int {
	out := map[string]int{}
	for _, e := range s.Log() {
		if e.Served {
			for _, it := range e.Items {
				out[it]++
			}
		}
	}
	return out
}

// ItemKey is the log item of one embeddings input.
func ItemKey(model, text string) string {
	h := sha256.Sum256([]byte("embed\x00" + model + "\x00" + text))
	return hex.EncodeToString(h[:])
}

// Draw returns the fault of attempt a of key under seed and rates (the
// package doc's rule), without a per-key cap.
func Draw(seed uint64, rates Rates, key string, a int) Fault {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(a))
	h := sha256.New()
	h.Write(b[:8])
	h.Write([]byte(key))
	h.Write(b[8:])
	u := float64(binary.BigEndian.Uint64(h.Sum(nil)[:8])>>11) / (1 << 53)
	acc := 0.0
	for f, p := range rates.slice() {
		if f == 0 {
			continue
		}
		acc += p
		if u < acc {
			return Fault(f)
		}
	}
	return OK
}

func (s *Server) begin(r *http.Request, path, key string, items []string, label string) (int, Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := len(s.log)
	e := Entry{Seq: seq, Arrived: s.clock, Sent: s.clock, Path: path, Key: key, Items: items, Label: label}
	if v, err := strconv.Atoi(r.Header.Get(sentHeader)); err == nil && v >= 0 && v <= s.clock {
		e.Sent = v
	}
	s.clock++
	if key != "" {
		s.attempts[key]++
		e.Attempt = s.attempts[key]
		if s.cfg.MaxFaultsPerKey <= 0 || s.faults[key] < s.cfg.MaxFaultsPerKey {
			e.Fault = Draw(s.cfg.Seed, s.cfg.Rates, key, e.Attempt)
		}
		if e.Fault != OK {
			s.faults[key]++
		}
	}
	s.log = append(s.log, e)
	return seq, e.Fault
}

func (s *Server) finish(seq, status int, served bool, errText string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[seq].Status = status
	s.log[seq].Served = served
	if errText != "" {
		s.log[seq].Err = errText
	}
}

// tick returns the clock's next event number, for a request being sent.
func (s *Server) tick() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	return s.clock - 1
}

// consume marks entry seq as read to its end by a client.
func (s *Server) consume(seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq < 0 || seq >= len(s.log) || !s.log[seq].Served || s.log[seq].Consumed {
		return
	}
	s.log[seq].Consumed = true
	s.log[seq].ConsumedAt = s.clock
	s.clock++
}

const maxRequest = 256 << 20

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if s.cfg.EchoAuth {
		r = r.WithContext(context.WithValue(r.Context(), authKey{}, r.Header.Get("Authorization")))
	}
	if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
		seq, _ := s.begin(r, r.URL.Path, "", nil, "")
		s.writeError(w, r, seq, http.StatusUnauthorized, "invalid API key")
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		seq, _ := s.begin(r, r.URL.Path, "", nil, "")
		var data []map[string]string
		for _, m := range s.cfg.Models {
			data = append(data, map[string]string{"id": m, "object": "model"})
		}
		s.writeJSON(w, seq, map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/embeddings"):
		s.embeddings(w, r)
	default:
		seq, _ := s.begin(r, r.URL.Path, "", nil, "")
		s.writeError(w, r, seq, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
	}
}

func bodyKey(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

type wireChat struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest))
	if err != nil {
		seq, _ := s.begin(r, r.URL.Path, "", nil, "")
		s.finish(seq, 0, false, err.Error())
		return
	}
	key := bodyKey(body)
	var wc wireChat
	if err := json.Unmarshal(body, &wc); err != nil {
		seq, _ := s.begin(r, r.URL.Path, key, nil, "")
		s.writeError(w, r, seq, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	req := &ChatRequest{Model: wc.Model, Key: key}
	if wc.ResponseFormat != nil && wc.ResponseFormat.JSONSchema != nil {
		req.Schema = wc.ResponseFormat.JSONSchema.Name
	}
	for _, m := range wc.Messages {
		msg := Message{Role: m.Role}
		var str string
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		switch {
		case json.Unmarshal(m.Content, &str) == nil:
			msg.Text = str
		case json.Unmarshal(m.Content, &parts) == nil:
			var texts []string
			for _, p := range parts {
				if p.Type == "image_url" {
					msg.Images++
				} else {
					texts = append(texts, p.Text)
				}
			}
			msg.Text = strings.Join(texts, "\n")
		}
		req.Messages = append(req.Messages, msg)
	}
	label := ""
	if s.cfg.Label != nil {
		label = s.cfg.Label(req)
	}
	seq, fault := s.begin(r, r.URL.Path, key, []string{key}, label)
	if s.inject(w, r, seq, fault) {
		return
	}
	text := ""
	if s.cfg.Chat != nil {
		text = s.cfg.Chat(req)
	}
	resp := map[string]any{
		"id":      "chatcmpl-" + key[:16],
		"object":  "chat.completion",
		"model":   wc.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": len(body) / 4, "completion_tokens": len(text) / 4},
	}
	s.writeJSON(w, seq, resp)
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest))
	if err != nil {
		seq, _ := s.begin(r, r.URL.Path, "", nil, "")
		s.finish(seq, 0, false, err.Error())
		return
	}
	key := bodyKey(body)
	var we struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	var inputs []string
	if err := json.Unmarshal(body, &we); err == nil {
		var one string
		if json.Unmarshal(we.Input, &inputs) != nil {
			if err = json.Unmarshal(we.Input, &one); err == nil {
				inputs = []string{one}
			}
		}
	}
	if err != nil || inputs == nil {
		seq, _ := s.begin(r, r.URL.Path, key, nil, "")
		s.writeError(w, r, seq, http.StatusBadRequest, "invalid embeddings request")
		return
	}
	items := make([]string, len(inputs))
	for i, t := range inputs {
		items[i] = ItemKey(we.Model, t)
	}
	seq, fault := s.begin(r, r.URL.Path, key, items, "")
	if s.inject(w, r, seq, fault) {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"object":"list","model":`)
	m, _ := json.Marshal(we.Model)
	b.Write(m)
	b.WriteString(`,"data":[`)
	for i, t := range inputs {
		if i > 0 {
			b.WriteByte(',')
		}
		var v []float32
		if s.cfg.Embed != nil {
			v = s.cfg.Embed(we.Model, t)
		} else {
			v = Hash(t, s.cfg.Dim)
		}
		fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":[`, i)
		for j, x := range v {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(pyFloat(x))
		}
		b.WriteString(`]}`)
	}
	fmt.Fprintf(&b, `],"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, len(body)/4, len(body)/4)
	s.write(w, seq, http.StatusOK, b.Bytes(), true)
}

// pyFloat formats x as Python's json module does, NaN and infinities
// included.
func pyFloat(x float32) string {
	switch {
	case math.IsNaN(float64(x)):
		return "NaN"
	case math.IsInf(float64(x), 1):
		return "Infinity"
	case math.IsInf(float64(x), -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(float64(x), 'g', -1, 32)
}

// Hash is a deterministic embedding: each lowercased word adds ±1 to a
// bucket chosen by its SHA-256; the result is not normalised (the client
// does that). A text without words maps to a unit vector on the first axis,
// so that every text has a usable direction.
func Hash(text string, dim int) []float32 {
	v := make([]float32, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for _, w := range words {
		h := sha256.Sum256([]byte(w))
		i := int(binary.LittleEndian.Uint32(h[:4]) % uint32(dim))
		if h[4]&1 == 0 {
			v[i]++
		} else {
			v[i]--
		}
	}
	var n float32
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		v[0] = 1
	}
	return v
}

// inject carries out fault for entry seq; it reports whether it answered.
func (s *Server) inject(w http.ResponseWriter, r *http.Request, seq int, fault Fault) bool {
	switch fault {
	case OK:
		return false
	case RateLimited:
		w.Header().Set("Retry-After", seconds(s.cfg.RetryAfter))
		s.writeError(w, r, seq, http.StatusTooManyRequests, "rate limit exceeded, please retry later")
	case Internal:
		s.writeError(w, r, seq, http.StatusInternalServerError, "internal server error: engine step failed")
	case Unavailable:
		w.Header().Set("Retry-After", seconds(s.cfg.RetryAfter))
		s.writeError(w, r, seq, http.StatusServiceUnavailable, "the server is overloaded")
	case Reset:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		}
		s.finish(seq, 0, false, "")
	case Truncated:
		full := []byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"this answer never arrives in full"},"finish_reason":"stop"}]}`)
		if conn, buf, err := http.NewResponseController(w).Hijack(); err == nil {
			writeTruncated(buf, full)
			conn.Close()
		}
		s.finish(seq, 0, false, "")
	case NotJSON:
		if seq%2 == 0 {
			w.Header().Set("Content-Type", "text/html")
			s.write(w, seq, http.StatusOK, []byte("<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"), false)
		} else {
			s.write(w, seq, http.StatusOK, []byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`), false)
		}
	case Stall:
		t := time.NewTimer(s.cfg.MaxStall)
		defer t.Stop()
		select {
		case <-t.C:
			s.writeError(w, r, seq, http.StatusGatewayTimeout, "upstream timed out")
		case <-r.Context().Done(): // the client gave up and closed the connection
			s.finish(seq, 0, false, "")
		case <-s.done:
			s.finish(seq, 0, false, "")
		}
	}
	return true
}

func writeTruncated(buf *bufio.ReadWriter, full []byte) {
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(full))
	buf.Write(full[:len(full)/2])
	buf.Flush()
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// authKey carries the Authorization header to writeError when EchoAuth is set.
type authKey struct{}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, seq, status int, msg string) {
	if auth, ok := authOf(r); ok {
		msg += " (request authorization: " + auth + ")"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": http.StatusText(status), "code": status}})
	s.write(w, seq, status, b, false)
}

func (s *Server) writeJSON(w http.ResponseWriter, seq int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.writeError(w, nil, seq, http.StatusInternalServerError, err.Error())
		return
	}
	s.write(w, seq, http.StatusOK, b, true)
}

func (s *Server) write(w http.ResponseWriter, seq, status int, b []byte, success bool) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Header().Set(Header, strconv.Itoa(seq))
	// Mark the entry before writing: a client may read the whole body
	// before Write returns, and its consumption must find it served.
	s.finish(seq, status, success, "")
	w.WriteHeader(status)
	if _, err := w.Write(b); err != nil && success {
		s.finish(seq, status, false, "write: "+err.Error())
	}
}

func authOf(r *http.Request) (string, bool) {
	if r == nil {
		return "", false
	}
	auth, ok := r.Context().Value(authKey{}).(string)
	return auth, ok
}
