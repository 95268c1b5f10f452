package main

import (
	"bytes"
	"os"
	"testing"
)

// TestOutputIsCurrent: the committed codec/coders_gen.go is what the
// generator writes from today's tables (scripts/check-generated.sh checks
// the same in CI by regenerating).
func TestOutputIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../codec/coders_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("codec/coders_gen.go is not current: run go generate ./codec and commit it")
	}
}
