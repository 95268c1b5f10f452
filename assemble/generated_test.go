package assemble_test

import (
	"math/rand/v2"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
)

// Every generated stream passes sequence checking and applies without error:
// the generator makes only valid runs.
func TestGeneratedStreamsAreValid(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 1)))
		if _, err := fromEvents(s.Events, assemble.Options{Check: true}); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s.Lines)
		}
	}
}
