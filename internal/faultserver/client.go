package faultserver

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// Client returns an http.Client for the server whose transport marks log
// entries Consumed when a successful body is read to its end. It has no
// timeout of its own; wrap the client or set Timeout for per-attempt
// deadlines. Call CloseIdleConnections when done so that no connection
// goroutine outlives the test.
func (s *Server) Client() *http.Client {
	base := s.Server.Client()
	return &http.Client{Transport: &recorder{base: base.Transport, s: s}}
}

type recorder struct {
	base http.RoundTripper
	s    *Server
}

// sentHeader carries the event number at which the client sent a request.
const sentHeader = "X-Faultserver-Sent"

func (t *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	r.Header.Set(sentHeader, strconv.Itoa(t.s.tick()))
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if v := resp.Header.Get(Header); v != "" && resp.StatusCode == http.StatusOK {
		if seq, err := strconv.Atoi(v); err == nil {
			resp.Body = &consumeBody{ReadCloser: resp.Body, done: func() { t.s.consume(seq) }}
		}
	}
	return resp, nil
}

// CloseIdleConnections closes the transport's idle connections.
func (t *recorder) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// consumeBody calls done once when the body has been read to io.EOF.
type consumeBody struct {
	io.ReadCloser
	done func()
	seen bool
}

func (b *consumeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.seen {
		b.seen = true
		b.done()
	}
	return n, err
}
