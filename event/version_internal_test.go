package event

import (
	"slices"
	"testing"
)

// TestLaterTypes: the types MayHoldLater names are exactly those whose
// tables can hold a field of a later version: a versioned field anywhere
// else would be read by a 1.0 parser and written by a 1.0 codec.
func TestLaterTypes(t *testing.T) {
	looked := []Type{}
	for _, typ := range Types() {
		if MayHoldLater(New(typ)) {
			looked = append(looked, typ)
		}
	}
	var versioned []Type
	for _, typ := range Types() {
		if plan, _, err := planOf(New(typ)); err == nil && plan.Versioned() {
			versioned = append(versioned, typ)
		}
	}
	if !slices.Equal(versioned, looked) {
		t.Errorf("versioned types %v, the parser looks into %v", versioned, looked)
	}
}
