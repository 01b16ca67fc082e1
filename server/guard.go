package server

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
	"time"
)

// hostAllowed reports whether a request's Host may reach the server: an IP
// literal (a DNS-rebinding page cannot make the browser send one of the
// server's addresses as its own origin) or one of the allowed names, any
// port, compared without case. An empty list allows every Host.
func hostAllowed(allowed []string, host string) bool {
	if len(allowed) == 0 {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(name, "]"), "["), ".")
	if net.ParseIP(name) != nil {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}

// tokenSet holds the SHA-256 of each accepted bearer token: a presented
// token is hashed and compared with every one in constant time, so that
// neither the time of a comparison nor an early exit tells how much of a
// token was right, nor which token matched.
type tokenSet [][sha256.Size]byte

func newTokenSet(tokens []string) tokenSet {
	var s tokenSet
	for _, t := range tokens {
		s = append(s, sha256.Sum256([]byte(t)))
	}
	return s
}

// allows reports whether the request's Authorization header carries one of
// the tokens as a bearer token (the scheme's case is ignored, RFC 9110
// §11.1). An empty set allows every request.
func (s tokenSet) allows(r *http.Request) bool {
	if len(s) == 0 {
		return true
	}
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	h := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	match := 0
	for i := range s {
		match |= subtle.ConstantTimeCompare(h[:], s[i][:])
	}
	return match == 1
}

// deadlineWriter sets the connection's write deadline when a response
// starts (its first WriteHeader or Write), so that a client that does not
// read its answer holds the connection for at most the write timeout
// however long the answer took to compute. A streaming handler extends it
// per event with http.ResponseController.SetWriteDeadline (Unwrap reaches
// the connection).
type deadlineWriter struct {
	http.ResponseWriter
	timeout time.Duration
	started bool
}

func (w *deadlineWriter) start() {
	if !w.started {
		w.started = true
		// ErrNotSupported (a recorder, HTTP/2 without deadlines) leaves the
		// write unbounded, as it was.
		_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *deadlineWriter) WriteHeader(code int) {
	if code >= 200 {
		w.start()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

func (w *deadlineWriter) Flush() {
	w.start()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack lets a handler take the connection over (not used by ours).
func (w *deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}
