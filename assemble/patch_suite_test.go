package assemble

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agwire/agwire/event"
)

// suiteCase is one record of the json-patch-tests suite (testdata/json-patch-tests).
type suiteCase struct {
	Comment  string            `json:"comment"`
	Doc      json.RawMessage   `json:"doc"`
	Patch    []json.RawMessage `json:"patch"`
	Expected json.RawMessage   `json:"expected"`
	Error    string            `json:"error"`
	Disabled bool              `json:"disabled"`
}

// suitePatch turns a patch of the suite into agwire's form by parsing it
// as the delta of a STATE_DELTA event, the way every patch reaches a
// Conversation. A patch the event parser refuses (an op or path that is not
// a string, say) never reaches the patch code; for the suite that counts as
// the expected error.
func suitePatch(raw []json.RawMessage) ([]event.PatchOp, error) {
	b, _ := json.Marshal(map[string]any{"type": "STATE_DELTA", "delta": raw})
	// RFC 6902 says members an operation does not define are ignored; the
	// strict parser refuses them, so the suite is read as
	// DropUnknownFields reads it.
	ev, err := event.Parser{DropUnknownFields: true}.Parse(b)
	if err != nil {
		return nil, err
	}
	return ev.(*event.StateDelta).Delta, nil
}

func TestJSONPatchSuite(t *testing.T) {
	for _, file := range []string{"tests.json", "spec_tests.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "json-patch-tests", file))
		if err != nil {
			t.Fatal(err)
		}
		var cases []suiteCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatal(err)
		}
		var passed, disabled, unrepresentable int
		for i, c := range cases {
			if c.Doc == nil || c.Patch == nil {
				continue // a comment-only record
			}
			if c.Disabled {
				disabled++
				continue
			}
			ops, err := suitePatch(c.Patch)
			if err != nil {
				if c.Error == "" {
					t.Errorf("%s #%d %q: the event parser refuses a valid patch: %v", file, i, c.Comment, err)
				}
				unrepresentable++
				continue
			}
			doc, err := parseValue(c.Doc)
			if err != nil {
				t.Fatalf("%s #%d: doc: %v", file, i, err)
			}
			before := string(doc.AppendJSON(nil))
			err = applyPatch(&doc, ops, &limits{})
			switch {
			case c.Error != "":
				var pe *PatchError
				if err == nil || !errors.As(err, &pe) {
					t.Errorf("%s #%d %q: want error %q, got %v", file, i, c.Comment, c.Error, err)
					continue
				}
				if got := string(doc.AppendJSON(nil)); got != before {
					t.Errorf("%s #%d %q: failed patch changed the document: %s -> %s", file, i, c.Comment, before, got)
					continue
				}
			case err != nil:
				t.Errorf("%s #%d %q: %v", file, i, c.Comment, err)
				continue
			case c.Expected != nil:
				want, err := parseValue(c.Expected)
				if err != nil {
					t.Fatal(err)
				}
				if eq, _ := equal(doc, want, nil); !eq {
					t.Errorf("%s #%d %q: got %s, want %s", file, i, c.Comment, doc.AppendJSON(nil), c.Expected)
					continue
				}
			}
			passed++
		}
		t.Logf("%s: %d passed, %d disabled, %d error cases refused by the event parser", file, passed, disabled, unrepresentable)
	}
}
