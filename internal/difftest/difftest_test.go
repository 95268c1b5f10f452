package difftest

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestOnlyTestsImport: no file of the repository but a _test.go file
// imports this package (nested modules included: their import paths lie
// under the module's, so the internal rule would let them).
func TestOnlyTestsImport(t *testing.T) {
	const self = "github.com/agwire/agwire/internal/difftest"
	root := Root(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == self {
				t.Errorf("%s imports %s: only tests may", path, self)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files walked under %s", files, root)
	}
}

// TestMembersCoverEveryType: Members holds a valid event of every event
// type, and each of its members absent and null.
func TestMembersCoverEveryType(t *testing.T) {
	texts := Members(LoadGolden(t))
	types := event.Types()
	if len(texts) <= 3*len(types) {
		t.Fatalf("%d texts for %d types", len(texts), len(types))
	}
	for i, ty := range types {
		ev, err := event.Parse(texts[i])
		if err != nil || ev.Type() != ty {
			t.Errorf("richest text %d is not a valid %s: %v\n%s", i, ty, err, texts[i])
		}
	}
}

// TestMemberEdits: the member scanner finds every member at every depth,
// and removes or nulls each one alone.
func TestMemberEdits(t *testing.T) {
	b := []byte(`{"a":1,"b":{"c":"x\"}","d":[{"e":null},[]]},"f":{}}`)
	var ms []member
	if end := scanValue(b, 0, "", &ms); end != len(b) {
		t.Fatalf("scanValue ends at %d of %d", end, len(b))
	}
	var absent, null []string
	for _, m := range ms {
		absent = append(absent, string(without(b, m)))
		null = append(null, string(withNull(b, m)))
	}
	wantAbsent := []string{
		`{"b":{"c":"x\"}","d":[{"e":null},[]]},"f":{}}`,
		`{"a":1,"b":{"d":[{"e":null},[]]},"f":{}}`,
		`{"a":1,"b":{"c":"x\"}","d":[{},[]]},"f":{}}`,
		`{"a":1,"b":{"c":"x\"}"},"f":{}}`,
		`{"a":1,"f":{}}`,
		`{"a":1,"b":{"c":"x\"}","d":[{"e":null},[]]}}`,
	}
	wantNull := []string{
		`{"a":null,"b":{"c":"x\"}","d":[{"e":null},[]]},"f":{}}`,
		`{"a":1,"b":{"c":null,"d":[{"e":null},[]]},"f":{}}`,
		`{"a":1,"b":{"c":"x\"}","d":[{"e":null},[]]},"f":{}}`,
		`{"a":1,"b":{"c":"x\"}","d":null},"f":{}}`,
		`{"a":1,"b":null,"f":{}}`,
		`{"a":1,"b":{"c":"x\"}","d":[{"e":null},[]]},"f":null}`,
	}
	if fmt.Sprint(absent) != fmt.Sprint(wantAbsent) {
		t.Errorf("absent:\n%s\nwant\n%s", strings.Join(absent, "\n"), strings.Join(wantAbsent, "\n"))
	}
	if fmt.Sprint(null) != fmt.Sprint(wantNull) {
		t.Errorf("null:\n%s\nwant\n%s", strings.Join(null, "\n"), strings.Join(wantNull, "\n"))
	}
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.path)
	}
	if got, want := strings.Join(paths, " "), `/"a" /"b"/"c" /"b"/"d"/"e" /"b"/"d" /"b" /"f"`; got != want {
		t.Errorf("paths %s, want %s", got, want)
	}
}

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Fatalf(string, ...any) { r.failed = true }

// TestAgreeAndWithin: the comparisons fail on every kind of difference
// and pass on the same answer.
func TestAgreeAndWithin(t *testing.T) {
	e1, e2 := errors.New("one"), errors.New("two")
	in := Text(`{}`)
	for _, c := range []struct {
		a, b Answer
		fail bool
	}{
		{Answer{"a", []byte("x"), nil}, Answer{"b", []byte("x"), nil}, false},
		{Answer{"a", []byte{}, nil}, Answer{"b", []byte(nil), nil}, false},
		{Answer{"a", nil, e1}, Answer{"b", nil, errors.New("one")}, false},
		{Answer{"a", []byte("x"), nil}, Answer{"b", []byte("y"), nil}, true},
		{Answer{"a", nil, e1}, Answer{"b", nil, e2}, true},
		{Answer{"a", nil, e1}, Answer{"b", []byte("x"), nil}, true},
		{Answer{"a", &event.StepStarted{StepName: "s"}, nil}, Answer{"b", &event.StepStarted{StepName: "s"}, nil}, false},
		{Answer{"a", &event.StepStarted{StepName: "s"}, nil}, Answer{"b", &event.StepStarted{StepName: "t"}, nil}, true},
	} {
		r := &recorder{TB: t}
		Agree(r, in, c.a, c.b)
		if r.failed != c.fail {
			t.Errorf("Agree(%v, %v) failed %v, want %v", c.a, c.b, r.failed, c.fail)
		}
		r = &recorder{TB: t}
		if ok := Within(r, in, c.a, true, c.b); !ok || r.failed != (c.fail || c.b.Err != nil) {
			t.Errorf("Within(%v, %v) = %v, failed %v", c.a, c.b, ok, r.failed)
		}
		r = &recorder{TB: t}
		if ok := Within(r, in, c.a, false, c.b); ok || r.failed {
			t.Errorf("Within(%v, not ok, %v) = %v, failed %v", c.a, c.b, ok, r.failed)
		}
	}
}

// TestMutator: a seed gives the same changes every run, each a copy with
// at most one byte changed, each cut a proper prefix.
func TestMutator(t *testing.T) {
	b := []byte("abcdefghij")
	m1, m2 := NewMutator(7), NewMutator(7)
	changedSome := false
	for range 100 {
		c1, k1 := m1.Next(b)
		c2, k2 := m2.Next(b)
		if string(c1) != string(c2) || string(k1) != string(k2) {
			t.Fatal("one seed, two sequences")
		}
		diff := 0
		for i := range b {
			if c1[i] != b[i] {
				diff++
			}
		}
		changedSome = changedSome || diff == 1
		if diff > 1 || len(k1) >= len(b) || string(k1) != string(b[:len(k1)]) {
			t.Fatalf("change %q, cut %q of %q", c1, k1, b)
		}
	}
	if string(b) != "abcdefghij" || !changedSome {
		t.Fatalf("the input changed (%q) or nothing did", b)
	}
}
