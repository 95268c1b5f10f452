package jsonx

import (
	"testing"
)

// walkTokens reads any JSON value with the token API, skipping scalars.
func walkTokens(s *Scanner) error {
	switch s.Peek() {
	case Object:
		if err := s.ObjectStart(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, more, err := s.ObjectNext(first)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := walkTokens(s); err != nil {
				return err
			}
		}
	case Array:
		if err := s.ArrayStart(); err != nil {
			return err
		}
		for first := true; ; first = false {
			more, err := s.ArrayNext(first)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := walkTokens(s); err != nil {
				return err
			}
		}
	}
	return s.Skip()
}

// TestTokensAcceptWhatSkipAccepts: the token API accepts a text exactly
// when Object/Array (through Skip) do, and leaves the scanner at the same
// place, on valid texts and on broken ones.
func TestTokensAcceptWhatSkipAccepts(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"d"}`, ` { "a" : [ ] , "b" : { } } `,
		`{"a":1,}`, `[1,]`, `{,}`, `[,1]`, `{"a" 1}`, `{"a":1 "b":2}`, `[1 2]`, `{`, `[`, `{"a":`,
		`{"a":1}}`, `[[[[]]]]`, `{"\u00e9":true}`, `{"a":"\xff"}`, `{1:2}`, `[}`, `{]`,
	} {
		var a, b Scanner
		a.Reset([]byte(in))
		b.Reset([]byte(in))
		errA := walkTokens(&a)
		errB := b.Skip()
		if (errA == nil) != (errB == nil) {
			t.Errorf("%q: tokens %v, Skip %v", in, errA, errB)
			continue
		}
		if errA == nil && a.Offset() != b.Offset() {
			t.Errorf("%q: tokens end at %d, Skip at %d", in, a.Offset(), b.Offset())
		}
	}
	var s Scanner
	s.MaxDepth = 2
	s.Reset([]byte(`[[[1]]]`))
	if err := walkTokens(&s); err == nil {
		t.Error("the depth limit does not hold")
	}
}
