package jsonx

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// benchProse returns about n bytes of prose, mostly ASCII words with some
// non-ASCII ones, and with escaped ones (a quote, a backslash, a newline)
// when escapes is set, quoted as a JSON string.
func benchProse(n int, escapes bool) []byte {
	words := strings.Fields(`the a of to and in is it that for on with as you this be are at
or from by not we can an will if your but they more one all about which their has would
forecast Lisbon Seoul flight hotel umbrella temperature rain showers itinerary booking price
museum café déjà-vu naïve 17°C €812,40 “quoted” — Straße São Paulo Zürich 東京 서울 🙂 ✈️`)
	if escapes {
		words = append(words, `"inline"`, `\path\to`, "line\nbreak", "tab\there")
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return AppendString(nil, b.String())
}

// benchToolArgs is a string of JSON-in-JSON, as tool-call arguments are
// carried: every quote escaped.
func benchToolArgs(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"calls":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"city":"Seoul","days":` + strconv.Itoa(i%9) + `,"units":"metric"}`)
	}
	b.WriteString(`]}`)
	return AppendString(nil, b.String())
}

// benchKeys is an object of n members with short keys and short values,
// the shape of most events.
func benchKeys(n int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":"v"`)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// BenchmarkString reads one string (or, for keys, one object's keys) per
// op: String as package event reads (AliasStrings), Copy without aliasing,
// Arena with AliasStrings and Arena, Bytes (StringBytes, a scratch), Skip
// (validation only).
func BenchmarkString(b *testing.B) {
	cases := []struct {
		name string
		in   []byte
	}{
		{"ASCII64K", AppendString(nil, strings.Repeat("plain ascii words, nothing to escape. ", 64<<10/38))},
		{"Prose64K", benchProse(64<<10, false)},
		{"ProseEsc64K", benchProse(64<<10, true)},
		{"ToolArgs4K", benchToolArgs(4 << 10)},
		{"Keys", benchKeys(16)},
	}
	ops := []struct {
		name string
		run  func(s *Scanner) error
	}{
		{"String", func(s *Scanner) error { _, err := s.String(); return err }},
		{"Copy", func(s *Scanner) error { _, err := s.String(); return err }},
		{"Arena", func(s *Scanner) error { _, err := s.String(); return err }},
		{"Bytes", func(s *Scanner) error { _, err := s.StringBytes(); return err }},
		{"Skip", func(s *Scanner) error { return s.Skip() }},
	}
	for _, c := range cases {
		for _, op := range ops {
			b.Run("case="+c.name+"/op="+op.name, func(b *testing.B) {
				var s Scanner
				s.AliasStrings = op.name != "Copy"
				s.Arena = op.name == "Arena"
				run := op.run
				if c.name == "Keys" && op.name != "Skip" {
					read := op.run
					run = func(s *Scanner) error {
						return s.Object(func(string) error { return read(s) })
					}
				}
				b.SetBytes(int64(len(c.in)))
				b.ReportAllocs()
				for b.Loop() {
					s.Reset(c.in)
					if err := run(&s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
