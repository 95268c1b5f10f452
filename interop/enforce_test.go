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
// -1, an extra member added), through @ag-ui/core 1.0.0's EventSchemas and
// through event.Parser.Consume, and checks that agwire refuses exactly the
// events the schema refuses. (Union members with an unknown discriminator
// are not generated: the client's stripper removes them before the schema
// runs, and the conformance corpus covers them.)
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
	ctx, cancel := context.WithTimeout(context.Background(), nodeScriptTimeout)
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
	i, mismatches, refused := 0, map[string]int{}, 0
	for sc.Scan() {
		var z struct {
			Known, OK bool
			Error     string
		}
		if err := json.Unmarshal(sc.Bytes(), &z); err != nil {
			t.Fatal(err)
		}
		line := lines[i]
		i++
		ev, err := event.Parser{Consume: true}.Parse([]byte(line))
		ok := err == nil && ev != nil
		if !z.Known {
			if ev != nil || err != nil {
				t.Errorf("an unknown event was not dropped: %s (%v)", line, err)
			}
			continue
		}
		if !z.OK {
			refused++
		}
		if ok != z.OK {
			typ, _ := event.TypeOf([]byte(line))
			key := string(typ)
			if mismatches[key] < 3 {
				t.Errorf("%s\n  zod ok=%v (%s), agwire ok=%v (%v)", line, z.OK, z.Error, ok, err)
			}
			mismatches[key]++
		}
	}
	if i != len(lines) {
		t.Fatalf("node answered %d lines of %d\n%s", i, len(lines), errOut.Bytes())
	}
	if refused == 0 || refused == len(lines) {
		t.Fatalf("the schema refused %d of %d events: the mutations test nothing", refused, len(lines))
	}
	var keys []string
	for k := range mismatches {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("%s: %d disagreements", k, mismatches[k])
	}
	t.Logf("%d events, %d refused by the schema; agwire agreed on every one", len(lines), refused)
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
	if len(keys) == 0 {
		return out
	}
	for _, v := range []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`42`), json.RawMessage(`"s"`), json.RawMessage(`-1`), json.RawMessage(`[]`), json.RawMessage(`{}`)} {
		emit(keys[r.IntN(len(keys))], v)
	}
	return out
}
