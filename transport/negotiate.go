package transport

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The two media types a server can answer with.
const (
	// MediaTypeSSE is the Server-Sent Events transport: one
	// "data: <JSON event>\n\n" block per event.
	MediaTypeSSE = "text/event-stream"
	// MediaTypeBinary is the framed protobuf transport of package framing.
	MediaTypeBinary = "application/vnd.ag-ui.event+proto"
)

// Negotiate picks the media type of an event stream from the values of a
// request's Accept header fields (r.Header.Values("Accept")): MediaTypeSSE
// or MediaTypeBinary, and ok = false when the client accepts neither.
//
// It decides as @ag-ui/encoder 1.0.0's EventEncoder.getContentType and the
// draft AG-UI HTTP transport do: the binary stream whenever the header
// admits application/vnd.ag-ui.event+proto, by name or by a wildcard
// ("application/*", "*/*") with q > 0; otherwise SSE. q values of the two
// types are not compared: "text/event-stream;q=1,
// application/vnd.ag-ui.event+proto;q=0.1" gives binary. No Accept header,
// or an empty one, gives SSE. In detail, as the encoder reads a header:
//
//   - Fields are joined with ", " and split at commas outside quotes.
//   - An element is type/subtype, then parameters after ';'. The media
//     range that decides is the most specific one that matches the binary
//     type (type and subtype named before a wildcard subtype before
//     "*/*"; a range with parameters other than q matches only when each
//     is "*" or empty, and is then more specific still), then the one with
//     the highest q, then the later one.
//   - q is read as a decimal number from the start of its value (a value
//     that does not start with one is not acceptable); parameters after q
//     are not looked at.
//
// When the binary type is not admitted, SSE is chosen if the header
// accepts it by RFC 9110 §12.5.1 (the most specific matching range's q is
// above 0, parameters other than q ignored; a header in which no element
// parses counts as "*/*"), and otherwise the client accepts neither: a
// handler answers 406. The encoder itself never refuses: it answers SSE.
func Negotiate(acceptHeaders []string) (mediaType string, ok bool) {
	return negotiate(acceptHeaders, false)
}

// negotiate is Negotiate; with wildcardSSE a client that admits the binary
// type only by a wildcard gets SSE when it accepts SSE
// (HandlerOptions.WildcardSSE).
func negotiate(acceptHeaders []string, wildcardSSE bool) (string, bool) {
	sseOK := acceptsSSE(acceptHeaders)
	if spec, ok := admitsBinary(strings.Join(acceptHeaders, ", ")); ok && !(wildcardSSE && spec < specNamed && sseOK) {
		return MediaTypeBinary, true
	}
	if sseOK {
		return MediaTypeSSE, true
	}
	return "", false
}

// The specificity of a media range that matches the binary type, as the
// encoder ranks them: type named, subtype named, parameters matched.
const (
	specType   = 4
	specSub    = 2
	specParams = 1
	specNamed  = specType | specSub
)

// admitsBinary reports whether the Accept header value h admits
// MediaTypeBinary as the encoder decides it, and the specificity of the
// range that decided.
func admitsBinary(h string) (spec int, ok bool) {
	if strings.TrimSpace(h) == "" {
		return 0, false
	}
	const typ, sub = "application", "vnd.ag-ui.event+proto"
	// The decision so far, starting from a virtual range of specificity 0,
	// q 0 and order -1.
	best := struct {
		s     int
		q     float64
		order int
	}{0, 0, -1}
	for i, elem := range splitQuoted(h, ',') {
		rt, rs, params, ok := cutMediaType(elem)
		if !ok {
			continue
		}
		s := 0
		switch {
		case strings.EqualFold(rt, typ):
			s |= specType
		case rt != "*":
			continue
		}
		switch {
		case strings.EqualFold(rs, sub):
			s |= specSub
		case rs != "*":
			continue
		}
		q, matched, hasParams := 1.0, true, false
		if params != "" {
			for _, p := range splitQuoted(params, ';') {
				p = trimJS(p)
				k, v, _ := strings.Cut(p, "=")
				k = strings.ToLower(k)
				if len(v) >= 1 && v[0] == '"' && v[len(v)-1] == '"' {
					v = v[1:max(len(v)-1, 1)] // a lone quote leaves nothing
				}
				if k == "q" {
					q = parseJSFloat(v)
					break
				}
				hasParams = true
				if v != "*" && v != "" {
					matched = false
				}
			}
		}
		if hasParams {
			if !matched {
				continue
			}
			s |= specParams
		}
		// Replace the decision when this range is more specific, or as
		// specific with a higher q, or as specific and as good (a q that
		// does not compare counts as equal) and later.
		if d := best.s - s; d != 0 {
			if d < 0 {
				best.s, best.q, best.order = s, q, i
			}
			continue
		}
		if d := best.q - q; d != 0 && !math.IsNaN(d) {
			if d < 0 {
				best.s, best.q, best.order = s, q, i
			}
			continue
		}
		if best.order < i {
			best.s, best.q, best.order = s, q, i
		}
	}
	return best.s, best.q > 0
}

// cutMediaType splits one Accept element as the encoder's pattern does:
// optional space, a type (no space, '/' or ';'), '/', a subtype (no space
// or ';'), optional space, and optionally ';' and the parameters.
func cutMediaType(elem string) (typ, sub, params string, ok bool) {
	e := strings.TrimLeftFunc(elem, isJSSpace)
	i := strings.IndexFunc(e, func(r rune) bool { return r == '/' || r == ';' || isJSSpace(r) })
	if i <= 0 || e[i] != '/' {
		return "", "", "", false
	}
	typ, e = e[:i], e[i+1:]
	j := strings.IndexFunc(e, func(r rune) bool { return r == ';' || isJSSpace(r) })
	if j == 0 {
		return "", "", "", false
	}
	if j < 0 {
		return typ, e, "", true
	}
	sub, e = e[:j], strings.TrimLeftFunc(e[j:], isJSSpace)
	switch {
	case e == "":
		return typ, sub, "", true
	case e[0] != ';':
		return "", "", "", false
	}
	return typ, sub, e[1:], true
}

// splitQuoted splits s at each sep outside double quotes, as the encoder
// does (it splits at every sep, then rejoins pieces while the joined text
// holds an odd number of quotes). One pass: linear in len(s) whatever the
// quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case sep:
			if !inQuote {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// isJSSpace reports whether r is white space or a line terminator to
// JavaScript (String.prototype.trim, \s in a pattern).
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }

func trimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }

// parseJSFloat reads a number from the start of s as JavaScript's
// parseFloat does: leading white space skipped, the longest prefix that is
// a decimal literal (or Infinity), NaN when there is none.
func parseJSFloat(s string) float64 {
	s = strings.TrimLeftFunc(s, isJSSpace)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if strings.HasPrefix(s[i:], "Infinity") {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return math.NaN()
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() > 0 {
			end = i
		}
	}
	f, err := strconv.ParseFloat(s[:end], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// acceptsSSE reports whether the Accept header fields accept MediaTypeSSE
// by RFC 9110 §12.5.1: the most specific matching range (the highest q
// among equally specific ones) has q > 0. No field, or none that parses,
// accepts everything.
func acceptsSSE(acceptHeaders []string) bool {
	typ, sub, _ := strings.Cut(MediaTypeSSE, "/")
	q, spec, valid := -1, -1, false
	for _, h := range acceptHeaders {
		for elem := range splitList(h) {
			mr, ok := parseMediaRange(elem)
			if !ok {
				continue
			}
			valid = true
			if s := mr.match(typ, sub); s > spec || (s == spec && s >= 0 && mr.q > q) {
				spec, q = s, mr.q
			}
		}
	}
	return !valid || q > 0
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
