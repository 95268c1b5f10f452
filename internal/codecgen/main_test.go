package main

import (
	"bytes"
	"os"
	"testing"
)

// TestOutputIsCurrent: the committed codec/coders_gen.go and
// event/json_gen.go are what the generator writes from today's tables
// (scripts/check-generated.sh checks the same in CI by regenerating).
func TestOutputIsCurrent(t *testing.T) {
	coders, jsonGen, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]byte{"codec/coders_gen.go": coders, "event/json_gen.go": jsonGen} {
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
	coders, jsonGen, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	src := append(coders, jsonGen...)
	for _, bad := range []string{".Wire[", ".Fields[", ".Names", "_ = ", "(&p.Base).", "d.depth--\n\tif d.depth++", "d.depth++\n\td.depth--", "d.charge(8)", "d.charge(16)"} {
		if i := bytes.Index(src, []byte(bad)); i >= 0 {
			line := bytes.Count(src[:i], []byte("\n")) + 1
			t.Errorf("the output holds %q (line %d)", bad, line)
		}
	}
}
