package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/event"
)

// TestConsumeAcceptsWhatZodAccepts runs generated events, valid and
// mutated (a member removed, set to null, to a value of the wrong kind, to
// -1, emptied, an extra member added; at the top level and inside nested
// objects), through @ag-ui/client 1.0.0's own consumer stages (its
// compatibility boundary, then enforceEvents: strip, warn, validate with
// @ag-ui/core's schemas) and through event.Parser.Consume, and checks that
// agwire refuses, drops and keeps exactly the events the client does, and
// warns about the same paths.
func TestConsumeAcceptsWhatZodAccepts(t *testing.T) {
	nodePath, dir := requireNode(t, "enforce.mjs")
	r := rand.New(rand.NewPCG(7, 11))
	var lines []string
	for i := 0; i < 40; i++ {
		for _, l := range assembletest.Generate(r).Lines {
			lines = append(lines, l)
			lines = append(lines, mutations(t, r, l)...)
		}
	}
	lines = append(lines, fiveMisses...)
	lines = append(lines, `{"type":"FUTURE_EVENT","x":1}`, `{"x":1}`, `{"type":42}`, `{"type":"THINKING_START","title":"t"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*nodeScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, "enforce.mjs")
	cmd.Dir, cmd.Env = dir, nodeEnv()
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node enforce.mjs: %v\n%s", err, errOut.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	i, mismatches := 0, map[string]int{}
	var refused, dropped, warned int
	for sc.Scan() {
		var js struct {
			Delivered, OK bool
			Error         string
			Warnings      []string
		}
		if err := json.Unmarshal(sc.Bytes(), &js); err != nil {
			t.Fatal(err)
		}
		line := lines[i]
		i++
		var paths []string
		ev, err := event.Parser{Consume: true, Warn: func(w event.Warning) {
			if strings.HasPrefix(w.Reason, "removed an unrecognised") {
				paths = append(paths, w.Path)
			}
		}}.Parse([]byte(line))
		ok, delivered := err == nil, err == nil && ev != nil
		switch {
		case !js.OK:
			refused++
		case !js.Delivered:
			dropped++
		case len(js.Warnings) > 0:
			warned++
		}
		sort.Strings(paths)
		sort.Strings(js.Warnings)
		if ok != js.OK || delivered != js.Delivered || js.OK && strings.Join(paths, " ") != strings.Join(js.Warnings, " ") {
			typ, _ := event.TypeOf([]byte(line))
			key := string(typ)
			if mismatches[key] < 3 {
				t.Errorf("%s\n  client: ok=%v delivered=%v warnings=%q (%s)\n  agwire: ok=%v delivered=%v warnings=%q (%v)",
					line, js.OK, js.Delivered, js.Warnings, js.Error, ok, delivered, paths, err)
			}
			mismatches[key]++
		}
	}
	if i != len(lines) {
		t.Fatalf("node answered %d lines of %d\n%s", i, len(lines), errOut.Bytes())
	}
	if refused == 0 || warned == 0 || dropped == 0 || refused == len(lines) {
		t.Fatalf("the client refused %d and warned about %d of %d events: the mutations test too little", refused, warned, len(lines))
	}
	var keys []string
	for k := range mismatches {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("%s: %d disagreements", k, mismatches[k])
	}
	t.Logf("%d events: the client refused %d, dropped %d, kept %d with warnings; agwire did the same with each", len(lines), refused, dropped, warned)
}

// fiveMisses are events the strict parser used to accept and the client
// refuses.
var fiveMisses = []string{
	`{"type":"CUSTOM","name":"x"}`,
	`{"type":"RAW"}`,
	`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`,
	`{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1}]}`,
	`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"tool","content":"x"}]}`,
}

// mutations returns a few mutated copies of one JSON event: each changes
// one top-level member other than "type".
func mutations(t *testing.T, r *rand.Rand, line string) []string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		if k != "type" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	emit := func(k string, v json.RawMessage) {
		c := map[string]json.RawMessage{}
		for kk, vv := range m {
			c[kk] = vv
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	emit("futureProp", json.RawMessage(`{"x":1}`))
	out = append(out, nestedMutations(t, r, line)...)
	if len(keys) == 0 {
		return out
	}
	for _, v := range []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`42`), json.RawMessage(`"s"`), json.RawMessage(`-1`), json.RawMessage(`[]`), json.RawMessage(`{}`)} {
		emit(keys[r.IntN(len(keys))], v)
	}
	return out
}

// nestedMutations returns mutated copies of one JSON event that each change
// one member of an object nested inside it (a message, a tool call, a
// content part, an interrupt, a usage entry, a patch operation), or empty
// one of its lists.
func nestedMutations(t *testing.T, r *rand.Rand, line string) []string {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	type spot struct {
		obj map[string]any
		arr *[]any
	}
	var spots []spot
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			if depth > 0 && len(x) > 0 {
				spots = append(spots, spot{obj: x})
			}
			for _, e := range x {
				walk(e, depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		}
	}
	walk(root, 0)
	if len(spots) == 0 {
		return nil
	}
	var out []string
	for range 4 {
		s := spots[r.IntN(len(spots))]
		var keys []string
		for k := range s.obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		k := keys[r.IntN(len(keys))]
		old, had := s.obj[k]
		values := []any{nil, json.Number("42"), "s", json.Number("-1"), []any{}, map[string]any{}, "delete"}
		v := values[r.IntN(len(values))]
		if v == "delete" {
			delete(s.obj, k)
		} else {
			s.obj[k] = v
		}
		b, err := json.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
		if had {
			s.obj[k] = old
		}
	}
	return out
}
