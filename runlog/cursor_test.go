package runlog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agwire/agwire/runlog"
)

func TestCursorText(t *testing.T) {
	for _, c := range []struct {
		cur  runlog.Cursor
		text string
	}{
		{runlog.Cursor{Run: "run-42", Seq: 17}, "run-42/17"},
		{runlog.Cursor{Run: "r/1 é", Seq: 0}, "r%2F1%20%C3%A9/0"},
		{runlog.Cursor{Run: "a\nb\x00", Seq: 18446744073709551615}, "a%0Ab%00/18446744073709551615"},
		{runlog.Cursor{Run: "~._-", Seq: 1}, "~._-/1"},
		{runlog.Cursor{Run: "run-42", Seq: 17, Inc: "Qm9vLWJhci1iYXot"}, "run-42/Qm9vLWJhci1iYXot/17"},
		{runlog.Cursor{Run: "r/1", Seq: 0, Inc: "x"}, "r%2F1/x/0"},
		{runlog.Cursor{Run: "r", Seq: 3, Inc: strings.Repeat("_-9Z", runlog.MaxIncLen/4)}, "r/" + strings.Repeat("_-9Z", runlog.MaxIncLen/4) + "/3"},
	} {
		if got := c.cur.String(); got != c.text {
			t.Errorf("%+v.String() = %q, want %q", c.cur, got, c.text)
		}
		got, err := runlog.ParseCursor(c.text)
		if err != nil || got != c.cur {
			t.Errorf("ParseCursor(%q) = %+v, %v", c.text, got, err)
		}
	}
}

func TestParseCursorRefuses(t *testing.T) {
	for _, s := range []string{
		"", "run", "run/", "/5", "run/-1", "run/+1", "run/01", "run/1.0", "run/ 1", "run/18446744073709551616",
		"r%2f/1",   // lower-case hex is not canonical
		"r%41/1",   // 'A' is written as itself
		"r%4/1",    // cut short
		"r%/1",     // cut short
		"r%GG/1",   // not hex
		"r x/1",    // space must be escaped
		"r/x/y/1",  // a slash in the run id must be escaped
		"r//1",     // an empty incarnation token
		"r/a.b/1",  // '.' is not in a token
		"r/a%20/1", // nor an escape
		"r/" + strings.Repeat("a", runlog.MaxIncLen+1) + "/1",
		"/x/1",   // no run id
		"r%FF/1", // not UTF-8
		strings.Repeat("a", runlog.MaxRunIDLen+1) + "/1",
		strings.Repeat("%20", runlog.MaxRunIDLen) + "/123456789012345678901",
		strings.Repeat("%20", runlog.MaxRunIDLen) + "/" + strings.Repeat("a", runlog.MaxIncLen) + "/123456789012345678901",
		strings.Repeat("a", 1<<20),
	} {
		if c, err := runlog.ParseCursor(s); !errors.Is(err, runlog.ErrBadCursor) {
			t.Errorf("ParseCursor(%.40q) = %+v, %v; want ErrBadCursor", s, c, err)
		}
	}
}

func FuzzCursor(f *testing.F) {
	f.Add("run-42/17")
	f.Add("r%2F1%20%C3%A9/0")
	f.Add("a/b/c")
	f.Add("a/b/1")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := runlog.ParseCursor(s)
		if err != nil {
			if !errors.Is(err, runlog.ErrBadCursor) {
				t.Fatalf("ParseCursor(%q): untyped error %v", s, err)
			}
			// Any valid run id makes a cursor that reads back.
			if runlog.CheckRunID(s) == nil {
				cur := runlog.Cursor{Run: s, Seq: uint64(len(s)), Inc: runlog.NewIncarnation()}
				back, err := runlog.ParseCursor(cur.String())
				if err != nil || back != cur {
					t.Fatalf("round trip of %+v: %+v, %v", cur, back, err)
				}
			}
			return
		}
		if c.String() != s {
			t.Fatalf("ParseCursor(%q) accepted a non-canonical form of %q", s, c.String())
		}
	})
}
