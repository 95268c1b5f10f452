package interop

import (
	"go/build"
	"testing"
)

// TestTestOnly keeps the package out of the module's API: a non-test Go file
// here would make github.com/agwire/agwire/interop importable.
func TestTestOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return
		}
		t.Fatal(err)
	}
	if len(pkg.GoFiles) > 0 || len(pkg.CgoFiles) > 0 {
		t.Fatalf("interop has non-test Go files %v: it must stay test-only", append(pkg.GoFiles, pkg.CgoFiles...))
	}
}
