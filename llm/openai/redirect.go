package openai

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is net/http's default limit, kept when the caller's client
// has no CheckRedirect of its own.
const maxRedirects = 10

// sameOriginRedirects wraps a redirect policy (nil: net/http's default) so
// that a redirect to another origin (scheme, host and port, RFC 6454) drops
// the Authorization header: net/http drops it only when the host name
// changes, so a key would follow a redirect to another port of the server,
// or from https to http on the same host.
func sameOriginRedirects(inner func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !sameOrigin(via[0].URL, req.URL) {
			req.Header.Del("Authorization")
		}
		if inner != nil {
			return inner(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// sameOrigin reports whether a and b have one scheme, host and port (an
// omitted port being the scheme's default).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "https":
			return "443"
		case "http":
			return "80"
		}
		return ""
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}
