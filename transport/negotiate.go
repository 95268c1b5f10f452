package transport

import (
	"strings"
)

// The two media types a server can answer with.
const (
	// MediaTypeSSE is the Server-Sent Events transport: one
	// "data: <JSON event>\n\n" block per event.
	MediaTypeSSE = "text/event-stream"
	// MediaTypeBinary is the framed protobuf transport of package framing.
	MediaTypeBinary = "application/vnd.ag-ui.event+proto"
)

// offers lists what a server can serve, the carriers' media types split in
// type and subtype, in the order that breaks a full tie (see carriers).
var offers = func() []struct{ mediaType, typ, sub string } {
	out := make([]struct{ mediaType, typ, sub string }, len(carriers))
	for i, c := range carriers {
		typ, sub, _ := strings.Cut(c.mediaType, "/")
		out[i].mediaType, out[i].typ, out[i].sub = c.mediaType, typ, sub
	}
	return out
}()

// maxOffers bounds the number of carriers, for Negotiate's arrays.
const maxOffers = 8

// Negotiate picks the media type of an event stream from the values of a
// request's Accept header fields (r.Header.Values("Accept")): MediaTypeSSE
// or MediaTypeBinary, and ok = false when the client accepts neither.
//
// The rules are those of RFC 9110 §12.5.1, decided for this pair:
//
//   - Each type gets the quality (q) of the most specific media range that
//     matches it: "text/event-stream" before "text/*" before "*/*". Media
//     types and parameter names compare case-insensitively; parameters
//     other than q are ignored for matching. When ranges of equal
//     specificity match, the highest q counts.
//   - q=0 means "not acceptable": an explicit
//     "text/event-stream;q=0" rules SSE out even if "*/*" is listed.
//   - The type with the highest q wins. On equal q, the type matched by the
//     more specific range wins, so "application/vnd.ag-ui.event+proto, */*"
//     gives binary. On a full tie SSE wins, since every AG-UI client reads
//     it: binary is chosen only when the client prefers it.
//   - No Accept header, an empty one, or one in which no element parses
//     counts as "*/*" and gives SSE. Elements that do not parse (no slash,
//     "*/json", a bad q) are skipped; several header fields are read as one
//     comma-separated list.
func Negotiate(acceptHeaders []string) (mediaType string, ok bool) {
	var qa, speca [maxOffers]int
	q, spec := qa[:len(offers)], speca[:len(offers)]
	for i := range offers {
		q[i], spec[i] = -1, -1
	}
	valid := false
	for _, h := range acceptHeaders {
		for elem := range splitList(h) {
			mr, ok := parseMediaRange(elem)
			if !ok {
				continue
			}
			valid = true
			for i, o := range offers {
				s := mr.match(o.typ, o.sub)
				if s < 0 {
					continue
				}
				if s > spec[i] || (s == spec[i] && mr.q > q[i]) {
					spec[i], q[i] = s, mr.q
				}
			}
		}
	}
	if !valid {
		return MediaTypeSSE, true
	}
	best := -1
	for i := range offers {
		if q[i] <= 0 {
			continue
		}
		if best < 0 || q[i] > q[best] || (q[i] == q[best] && spec[i] > spec[best]) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return offers[best].mediaType, true
}

// mediaRange is one parsed element of an Accept header. q is the quality
// in thousandths (0..1000).
type mediaRange struct {
	typ, sub string
	q        int
}

// match returns how specifically the range matches typ/sub: 2 for an exact
// match, 1 for type/*, 0 for */*, -1 for no match.
func (m mediaRange) match(typ, sub string) int {
	switch {
	case m.typ == "*":
		return 0
	case m.typ != typ:
		return -1
	case m.sub == "*":
		return 1
	case m.sub == sub:
		return 2
	}
	return -1
}

// parseMediaRange parses `type/subtype *( OWS ";" OWS parameter )`.
func parseMediaRange(s string) (mediaRange, bool) {
	mt, params, _ := strings.Cut(s, ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(mt), "/")
	if !ok || !isToken(typ) || !isToken(sub) {
		return mediaRange{}, false
	}
	typ, sub = strings.ToLower(typ), strings.ToLower(sub)
	if typ == "*" && sub != "*" {
		return mediaRange{}, false
	}
	q, ok := parseQ(params)
	if !ok {
		return mediaRange{}, false
	}
	return mediaRange{typ: typ, sub: sub, q: q}, true
}

// parseQ finds the q parameter in a parameter list (the text after the
// first ';') and returns it in thousandths: 1000 when absent, ok = false
// when the list or the q value is malformed. Parameters after q (accept
// extensions) are not looked at.
func parseQ(params string) (int, bool) {
	for params != "" {
		var p string
		p, params = cutParam(params)
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		name, value, ok := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		if !ok || !isToken(name) {
			return 0, false
		}
		if strings.EqualFold(name, "q") {
			return parseQValue(strings.TrimSpace(value))
		}
	}
	return 1000, true
}

// cutParam splits off the first parameter of a ';'-separated list,
// honouring quoted strings.
func cutParam(s string) (param, rest string) {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ';':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// parseQValue parses a qvalue: "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ].
func parseQValue(s string) (int, bool) {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return q, true
	}
	if s[1] != '.' {
		return 0, false
	}
	scale := 100
	for _, c := range []byte(s[2:]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// splitList yields the non-empty elements of a comma-separated header
// value, honouring quoted strings.
func splitList(h string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		inQuote := false
		start := 0
		for i := 0; i <= len(h); i++ {
			if i < len(h) {
				switch c := h[i]; {
				case inQuote && c == '\\':
					i++
					continue
				case c == '"':
					inQuote = !inQuote
					continue
				case inQuote || c != ',':
					continue
				}
			}
			if e := strings.TrimSpace(h[start:min(i, len(h))]); e != "" {
				if !yield(e) {
					return
				}
			}
			start = i + 1
		}
	}
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// negotiateEncoding picks a content coding from the values of a request's
// Accept-Encoding header fields among the server's codings (in the server's
// order of preference), or "" for identity.
//
// A coding is acceptable when the client lists it (x-gzip counts as gzip)
// with q > 0, or does not list it and lists "*" with q > 0. The highest q
// wins; on equal q the server's order decides. No Accept-Encoding field, or
// nothing acceptable, gives identity: the stream is never refused for its
// coding.
func negotiateEncoding(acceptEncoding []string, server []string) string {
	if len(server) == 0 {
		return ""
	}
	listed := make([]int, len(server)) // q of each server coding, -1 = not listed
	for i := range listed {
		listed[i] = -1
	}
	star := -1
	for _, h := range acceptEncoding {
		for elem := range splitList(h) {
			name, params, _ := strings.Cut(elem, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if !isToken(name) {
				continue
			}
			q, ok := parseQ(params)
			if !ok {
				continue
			}
			if name == "x-gzip" {
				name = EncodingGzip
			}
			if name == "*" {
				star = max(star, q)
				continue
			}
			for i, s := range server {
				if s == name {
					listed[i] = max(listed[i], q)
				}
			}
		}
	}
	best, bestQ := "", 0
	for i, s := range server {
		q := listed[i]
		if q < 0 {
			q = star
		}
		if q > bestQ {
			best, bestQ = s, q
		}
	}
	return best
}
