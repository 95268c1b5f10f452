package transport

import (
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"time"
)

// CORSOptions lets web pages of other origins use a handler: a browser
// UI served from https://app.example talking to an agent at
// https://agent.example (HandlerOptions.CORS, FollowOptions.CORS).
//
// The handler answers the browser's preflight (an OPTIONS request with
// Origin and Access-Control-Request-Method) itself, with 204 No Content,
// allowing GET, HEAD and POST (GET on a follower route) and the request
// headers an AG-UI client sends: Content-Type, Accept, Last-Event-ID (a
// resumed run) and HeaderKeepalive, plus AllowHeaders. Its other responses
// to an allowed origin, the event stream and the errors alike, carry
// Access-Control-Allow-Origin with that origin, and expose the headers a
// client reads: HeaderCursor, HeaderKeepalive and Content-Encoding. Every
// response varies by Origin (Vary: Origin).
//
// An origin that is not allowed gets no Access-Control-* header at all:
// its preflight is answered 403 Forbidden, and the browser refuses to send
// the request. CORS is no authentication: a request from a client that is
// not a browser is served whatever its Origin says.
type CORSOptions struct {
	// AllowOrigins lists the allowed origins, each as a browser sends it:
	// scheme, host and port if not the scheme's default, with no path or
	// trailing slash, such as "https://app.example" or
	// "http://localhost:5173". "*" allows every origin. "null" is refused
	// (ErrNullOrigin): sandboxed iframes and file: pages send it, and any
	// site can open a sandboxed iframe.
	AllowOrigins []string
	// AllowOrigin, if set, allows the origins for which it returns true, in
	// addition to AllowOrigins. It is called for each cross-origin request
	// with the request's Origin header.
	AllowOrigin func(origin string) bool
	// AllowCredentials lets pages send cookies and HTTP authentication
	// with their requests (fetch's credentials: "include"), answered with
	// Access-Control-Allow-Credentials: true. Since any allowed origin may
	// then act with the user's credentials, it cannot be combined with
	// AllowOrigins "*"; write AllowOrigin to allow a wider set on purpose.
	AllowCredentials bool
	// MaxAge is how long a browser may cache a preflight's answer
	// (Access-Control-Max-Age, in whole seconds; browsers cap it, Chrome
	// at 2 hours). 0 sends none: the browser's default, 5 s. Negative is
	// an error.
	MaxAge time.Duration
	// AllowHeaders lists request headers a page may send beyond the ones
	// AG-UI uses, such as Authorization.
	AllowHeaders []string
}

// ErrNullOrigin: CORSOptions.AllowOrigins lists "null". Browsers send
// Origin: null from sandboxed iframes, file: pages and after some
// cross-origin redirects, and any web site can open a sandboxed iframe: so
// allowing "null" allows every site, and with AllowCredentials lets every
// site send requests with its visitors' credentials. NewHandler and
// NewFollowHandler refuse it, with or without credentials: without them
// "*" says the same plainly; AllowOrigin may still allow it on purpose.
var ErrNullOrigin = errors.New(`transport: CORS origin "null" allows every web site`)

// The headers of CORS, and those an AG-UI client sends or reads across
// origins.
const (
	corsRequestHeaders = "Content-Type, Accept, " + HeaderLastEventID + ", " + HeaderKeepalive
	corsExposeHeaders  = HeaderCursor + ", " + HeaderKeepalive + ", Content-Encoding"
)

// cors is CORSOptions checked and ready to serve.
type cors struct {
	any          bool            // AllowOrigins has "*"
	origins      map[string]bool // AllowOrigins, lower case
	allow        func(string) bool
	credentials  bool
	maxAge       string // the Access-Control-Max-Age value, or ""
	allowHeaders string
}

// newCORS checks o, the CORS field of the options struct name, and
// compiles it; nil gives nil, no CORS.
func newCORS(name string, o *CORSOptions) (*cors, error) {
	if o == nil {
		return nil, nil
	}
	c := &cors{origins: map[string]bool{}, allow: o.AllowOrigin, credentials: o.AllowCredentials, allowHeaders: corsRequestHeaders}
	for _, origin := range o.AllowOrigins {
		if origin == "*" {
			c.any = true
			continue
		}
		if strings.EqualFold(origin, "null") {
			why := `list "*" if every site is meant, or decide in AllowOrigin`
			if o.AllowCredentials {
				why = "with AllowCredentials every web site could send requests with its visitors' credentials; list the origins, or decide in AllowOrigin"
			}
			return nil, &textError{
				text: fmt.Sprintf(`transport: %s.CORS.AllowOrigins: "null" allows every web site, since any page can send Origin: null (sandboxed iframes, file: pages); %s`, name, why),
				errs: []error{ErrNullOrigin},
			}
		}
		if err := checkOrigin(origin); err != nil {
			return nil, fmt.Errorf("transport: %s.CORS.AllowOrigins: %w", name, err)
		}
		c.origins[strings.ToLower(origin)] = true
	}
	switch {
	case len(o.AllowOrigins) == 0 && o.AllowOrigin == nil:
		return nil, fmt.Errorf("transport: %s.CORS allows no origin: list them in AllowOrigins (\"*\" for all) or set AllowOrigin", name)
	case c.any && o.AllowCredentials:
		return nil, fmt.Errorf("transport: %s.CORS: AllowOrigins \"*\" with AllowCredentials would let every web site send requests with its visitors' credentials; list the origins, or decide in AllowOrigin", name)
	case o.MaxAge < 0:
		return nil, fmt.Errorf("transport: %s.CORS.MaxAge is negative (%v)", name, o.MaxAge)
	case o.MaxAge > 0:
		c.maxAge = strconv.FormatInt(int64(max(o.MaxAge/time.Second, 1)), 10)
	}
	for _, h := range o.AllowHeaders {
		if !isToken(h) {
			return nil, fmt.Errorf("transport: %s.CORS.AllowHeaders: %q is not a header name", name, h)
		}
		c.allowHeaders += ", " + h
	}
	return c, nil
}

// checkOrigin checks that s is an origin as a browser serializes it.
func checkOrigin(s string) error {
	u, err := neturl.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not an origin: %w", s, err)
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%q is not an origin: want scheme://host[:port], such as https://app.example", s)
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return fmt.Errorf("%q is not an origin: a browser's Origin header has no path (not even a trailing /), query, fragment or user; write %q", s, u.Scheme+"://"+u.Host)
	case strings.Contains(u.Host, "*"):
		return fmt.Errorf("%q: AllowOrigins takes no patterns; decide in AllowOrigin", s)
	}
	return nil
}

// allows reports whether origin may use the handler.
func (c *cors) allows(origin string) bool {
	return c.any || c.origins[strings.ToLower(origin)] || c.allow != nil && c.allow(origin)
}

// serve adds the CORS headers of the response to r, for a handler whose
// methods are those listed, and answers r if it is a preflight: then it
// returns true and the handler has nothing more to do. A nil c does
// nothing.
func (c *cors) serve(w http.ResponseWriter, r *http.Request, methods string) bool {
	if c == nil {
		return false
	}
	h := w.Header()
	addVary(h, "Origin")
	origin := r.Header.Get("Origin")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if preflight {
		addVary(h, "Access-Control-Request-Method", "Access-Control-Request-Headers")
	}
	if origin == "" {
		return false // not a cross-origin request of a browser
	}
	if !c.allows(origin) {
		if preflight {
			http.Error(w, "403 forbidden: origin "+strconv.Quote(origin)+" may not use this endpoint (it is not among the allowed origins of the server's CORS options)", http.StatusForbidden)
		}
		return preflight
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if c.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if !preflight {
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		return false
	}
	// A method or a header outside the lists is answered all the same: the
	// browser refuses the request, naming what was not allowed.
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", c.allowHeaders)
	if c.maxAge != "" {
		h.Set("Access-Control-Max-Age", c.maxAge)
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}
