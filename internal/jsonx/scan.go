// Package jsonx is agwire's strict, allocation-conscious JSON reader and
// writer. It reads RFC 8259 JSON from a byte slice without building a tree:
// callers walk objects and arrays with callbacks, take scalar tokens, or
// capture a whole value as its exact text. Every error carries the byte
// offset and, once it has bubbled up through objects and arrays, the path of
// the value that failed.
package jsonx

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Kind is the kind of the next JSON value.
type Kind byte

// The kinds of JSON values, named by their first byte.
const (
	Invalid Kind = 0
	Object  Kind = '{'
	Array   Kind = '['
	String  Kind = '"'
	Number  Kind = '0'
	True    Kind = 't'
	False   Kind = 'f'
	Null    Kind = 'n'
)

// String returns the JSON name of the kind.
func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Number:
		return "number"
	case True, False:
		return "boolean"
	case Null:
		return "null"
	}
	return "invalid"
}

// ErrSyntax reports text that is not JSON.
var ErrSyntax = errors.New("invalid JSON")

// ErrTooDeep reports nesting beyond the configured depth limit.
var ErrTooDeep = errors.New("JSON nesting too deep")

// ErrDuplicateKey reports an object that names the same key twice.
var ErrDuplicateKey = errors.New("duplicate object key")

// Error is a failure at a place in a JSON text: Path is a dotted/indexed path
// such as "messages[2].toolCalls[0].metadata" (empty at the top level) and
// Offset the byte offset where reading stopped.
type Error struct {
	Path   string
	Offset int
	Err    error
}

func (e *Error) Error() string {
	switch {
	case e.Path == "" && e.Offset < 0:
		return e.Err.Error()
	case e.Path == "":
		return fmt.Sprintf("at byte %d: %v", e.Offset, e.Err)
	case e.Offset < 0:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s (byte %d): %v", e.Path, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// MaxPathLen bounds the length of an error's path: a longer path keeps its
// outermost and innermost parts with "…" between them, so an error's size
// does not grow with the input that caused it.
const MaxPathLen = 512

// maxKeyLen bounds one object key as it appears in a path.
const maxKeyLen = 64

// WithKey prefixes the path of err with an object key. Errors that are not
// *Error are wrapped first. A nil err stays nil.
func WithKey(err error, key string) error {
	if err == nil {
		return nil
	}
	return prefix(err, pathKey(shorten(key, maxKeyLen)), false)
}

// pathKey spells an object key for a path: as it is when it is a plain
// name, in brackets as a JSON string when it is empty or holds a character
// that would make the path ambiguous (metadata["a.b"], delta[0]["["]).
func pathKey(key string) string {
	plain := key != ""
	for i := 0; i < len(key) && plain; i++ {
		switch key[i] {
		case '.', '[', ']', '"', '\\':
			plain = false
		}
	}
	if plain {
		return key
	}
	return "[" + string(AppendString(nil, key)) + "]"
}

// WithIndex prefixes the path of err with an array index.
func WithIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return prefix(err, "["+strconv.Itoa(i)+"]", true)
}

func prefix(err error, seg string, index bool) error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Path: seg, Offset: -1, Err: err}
	}
	switch {
	case e.Path == "":
		e.Path = seg
	case e.Path[0] == '[':
		// An index, or a key in brackets: no dot before it.
		e.Path = seg + e.Path
	default:
		e.Path = seg + "." + e.Path
	}
	if len(e.Path) > MaxPathLen {
		e.Path = shortenMiddle(e.Path, MaxPathLen)
	}
	return err
}

// shorten cuts s to at most n bytes (on a UTF-8 boundary), marking the cut
// with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutUTF8(s, n-len("…")) + "…"
}

// shortenMiddle keeps the start and the end of s, n bytes in all.
func shortenMiddle(s string, n int) string {
	half := (n - len("…")) / 2
	head := cutUTF8(s, half)
	tail := s[len(s)-half:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + "…" + tail
}

func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote returns s as a Go-quoted string for an error message, cut to at
// most 64 bytes of s with the length said when it was cut.
func Quote(s string) string {
	const n = 64
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutUTF8(s, n)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// QuoteBytes is Quote for a byte slice, converting no more than it shows.
func QuoteBytes(b []byte) string {
	const n = 64
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(cutUTF8(string(b[:n+utf8.UTFMax]), n)) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}

// IsNull reports whether b is the JSON literal null, surrounded by
// whitespace or not.
func IsNull(b []byte) bool {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\n' || b[j-1] == '\r') {
		j--
	}
	return string(b[i:j]) == "null"
}

// DefaultMaxDepth is the nesting limit used when a Scanner's MaxDepth is 0.
const DefaultMaxDepth = 256

// ErrStop, returned by an Object or Array callback, ends the walk early:
// the call returns ErrStop itself, unwrapped, and the scanner's position is
// then unspecified.
var ErrStop = errors.New("stop")

// Scanner reads one JSON text. The zero value is not usable; call Reset.
type Scanner struct {
	data     []byte
	pos      int
	depth    int
	MaxDepth int // nesting limit; 0 means DefaultMaxDepth
	// AliasStrings lets String and object keys share memory with the input
	// when they contain no escapes, saving a copy each. Set it only when the
	// input is never modified afterwards.
	AliasStrings bool
	// Arena puts the strings that String and object keys would copy (those
	// with escapes; with AliasStrings unset, all) in a buffer the scanner
	// owns, one after another, instead of an allocation each. They stay
	// valid until the next Reset, which reuses the buffer: set Arena only
	// when no string read from one input is used after the scanner moves
	// on to the next. Once the buffer has grown to an input's strings,
	// reading them allocates nothing. Reset lets go of a buffer larger than
	// MaxArena.
	Arena bool
	buf   []byte // StringBytes' scratch
	arena []byte // the Arena: strings handed out since Reset, then room
}

// MaxArena is the largest arena a Scanner keeps across Reset.
const MaxArena = 1 << 20

// Reset points the scanner at data.
func (s *Scanner) Reset(data []byte) {
	s.data = data
	s.pos = 0
	s.depth = 0
	if cap(s.arena) > MaxArena {
		s.arena = nil
	}
	s.arena = s.arena[:0]
}

// Offset returns the current byte offset.
func (s *Scanner) Offset() int { return s.pos }

// Errorf builds an *Error at the current offset.
func (s *Scanner) Errorf(format string, args ...any) error {
	return &Error{Offset: s.pos, Err: fmt.Errorf(format, args...)}
}

// Fail wraps err at the current offset.
func (s *Scanner) Fail(err error) error {
	return &Error{Offset: s.pos, Err: err}
}

func (s *Scanner) syntax(what string) error {
	if s.pos >= len(s.data) {
		return &Error{Offset: s.pos, Err: fmt.Errorf("%w: unexpected end of input, %s", ErrSyntax, what)}
	}
	return &Error{Offset: s.pos, Err: fmt.Errorf("%w: unexpected %q, %s", ErrSyntax, s.data[s.pos], what)}
}

func (s *Scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the kind of the next value without
// consuming it.
func (s *Scanner) Peek() Kind {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return Invalid
	}
	switch c := s.data[s.pos]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return Kind(c)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// End checks that only whitespace remains.
func (s *Scanner) End() error {
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.syntax("expected end of JSON text")
	}
	return nil
}

func (s *Scanner) enter() error {
	s.depth++
	max := s.MaxDepth
	if max <= 0 {
		max = DefaultMaxDepth
	}
	if s.depth > max {
		return &Error{Offset: s.pos, Err: fmt.Errorf("%w: more than %d levels", ErrTooDeep, max)}
	}
	return nil
}

// Object reads an object, calling fn for each member with the unescaped key;
// fn must consume the member's value. Errors from fn get the key prepended to
// their path. The key string is only valid during the call unless copied;
// it is a fresh string, so keeping it is safe.
func (s *Scanner) Object(fn func(key string) error) error {
	if s.Peek() != Object {
		return s.syntax("expected object")
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntax("expected object key")
		}
		key, err := s.readString()
		if err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntax("expected ':' after object key")
		}
		s.pos++
		if err := fn(key); err != nil {
			if err == ErrStop {
				return err
			}
			return WithKey(err, key)
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("expected ',' or '}'")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntax("expected ',' or '}'")
		}
	}
}

// Array reads an array, calling fn for each element; fn must consume it.
func (s *Scanner) Array(fn func(i int) error) error {
	if s.Peek() != Array {
		return s.syntax("expected array")
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		if err := fn(i); err != nil {
			if err == ErrStop {
				return err
			}
			return WithIndex(err, i)
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("expected ',' or ']'")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntax("expected ',' or ']'")
		}
	}
}

// String reads a string value and returns it unescaped.
func (s *Scanner) String() (string, error) {
	if s.Peek() != String {
		return "", s.syntax("expected string")
	}
	return s.readString()
}

// StringBytes reads a string value and returns it unescaped in a buffer that
// is valid until the next call on the scanner.
func (s *Scanner) StringBytes() ([]byte, error) {
	if s.Peek() != String {
		return nil, s.syntax("expected string")
	}
	return s.readStringBytes()
}

// Number reads a number and returns its exact text.
func (s *Scanner) Number() ([]byte, error) {
	if s.Peek() != Number {
		return nil, s.syntax("expected number")
	}
	start := s.pos
	d := s.data
	i := s.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return nil, s.syntax("expected digit")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.syntax("expected digit after '.'")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.syntax("expected digit in exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return d[start:i], nil
}

// Bool reads true or false.
func (s *Scanner) Bool() (bool, error) {
	switch s.Peek() {
	case True:
		return true, s.literal("true")
	case False:
		return false, s.literal("false")
	}
	return false, s.syntax("expected boolean")
}

// Null reads null.
func (s *Scanner) Null() error {
	if s.Peek() != Null {
		return s.syntax("expected null")
	}
	return s.literal("null")
}

func (s *Scanner) literal(lit string) error {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return s.syntax("expected " + lit)
	}
	s.pos += len(lit)
	return nil
}

// Skip reads and validates one value of any kind.
func (s *Scanner) Skip() error {
	switch s.Peek() {
	case Object:
		// Keys are only validated (and named in an error, which copies
		// them): read them in place even when AliasStrings is unset.
		alias := s.AliasStrings
		s.AliasStrings = true
		err := s.Object(func(string) error { return s.Skip() })
		s.AliasStrings = alias
		return err
	case Array:
		return s.Array(func(int) error { return s.Skip() })
	case String:
		return s.skipString()
	case Number:
		_, err := s.Number()
		return err
	case True:
		return s.literal("true")
	case False:
		return s.literal("false")
	case Null:
		return s.literal("null")
	}
	return s.syntax("expected a JSON value")
}

// Raw reads and validates one value and returns its exact text (without
// surrounding whitespace). The slice aliases the scanner's input.
func (s *Scanner) Raw() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if err := s.Skip(); err != nil {
		return nil, err
	}
	// Capped: an append to the value must not write over the input that
	// other parsed strings share.
	return s.data[start:s.pos:s.pos], nil
}
