package main

import (
	"bytes"
	"os"
	"testing"
)

// TestOutputIsCurrent: the committed codec/coders_gen.go,
// event/json_gen.go, internal/schema/names_gen.go and
// clients/js/decode.gen.js are what the
// generator writes from today's tables (scripts/check-generated.sh checks
// the same in CI by regenerating).
func TestOutputIsCurrent(t *testing.T) {
	out, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	files := out.files()
	if len(files) != 4 {
		t.Fatalf("the generator writes %d files, the test knows 4", len(files))
	}
	for file, want := range files {
		got, err := os.ReadFile("../../" + file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not current: run go generate ./codec and commit it", file)
		}
	}
}

// TestOutputStatesNoTable: the generated code reads no field table by
// position (names and sizes are constants; only rules and the reference
// decoder's finish take a table), writes no no-op line and no adjacent
// depth++/depth--.
func TestOutputStatesNoTable(t *testing.T) {
	out, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	src := append(append(out.coders, out.json...), out.names...)
	for _, bad := range []string{".Wire[", ".Fields[", ".Names", "_ = ", "(&p.Base).", "d.depth--\n\tif d.depth++", "d.depth++\n\td.depth--", "d.charge(8)", "d.charge(16)"} {
		if i := bytes.Index(src, []byte(bad)); i >= 0 {
			line := bytes.Count(src[:i], []byte("\n")) + 1
			t.Errorf("the output holds %q (line %d)", bad, line)
		}
	}
}
