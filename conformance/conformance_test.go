package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/cli"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// corpusLane is one corpus and how agwire's client side runs it.
type corpusLane struct {
	// name is the corpus's folder under testdata.
	name string
	// protocol is the version the thread speaks (agent.Options.ProtocolVersion).
	protocol string
	// strict runs the thread under the draft's fatal rules (agent.Options.Strict).
	strict bool
	// relaxed and deliberate are the lane's two tables.
	relaxed    map[string]relaxation
	deliberate map[string]difference
	// unlisted are fixtures the copy holds that its MANIFEST.txt does not
	// list; missing is how many it lists that the copy does not hold (the
	// draft copy is incomplete: see its SOURCE.md).
	unlisted []string
	missing  int
	// needsStrict are the fixtures whose outcome differs without strict:
	// the lane fails when one of them no longer needs it, or another does.
	needsStrict []string
}

func (l *corpusLane) dir() string { return filepath.Join("testdata", l.name, "streams") }

// The three lanes. The 1.0 lane is a 1.0 client over the 1.0 corpus (whose
// copies are mostly the 1.1 files, see testdata/1.0/SOURCE.md); the 1.1 lane
// a 1.1 client over the 1.1 corpus; the draft lane a 1.0 client (what the
// draft fixtures expect it to declare) with the draft's fatal rules on.
var lanes = []*corpusLane{
	{name: "1.0", protocol: agent.ProtocolVersion, relaxed: relaxed, deliberate: deliberate10},
	{name: "1.1", protocol: agent.ProtocolVersion11, relaxed: relaxed11, deliberate: deliberateRules},
	{name: "draft", protocol: agent.ProtocolVersion, strict: true, relaxed: relaxedDraft, deliberate: deliberateDraft,
		unlisted: []string{"duplicate-interrupt-id-fatal", "run-finished-wrong-run-id-fatal", "run-finished-wrong-thread-id-fatal",
			"second-run-on-another-thread-fatal", "tool-result-file-source-passes-through", "truncated-run-reported-as-completed",
			"truncated-stream-fails-the-run"},
		missing: 58,
		needsStrict: []string{"duplicate-interrupt-id-fatal", "run-finished-wrong-run-id-fatal",
			"run-finished-wrong-thread-id-fatal", "second-run-on-another-thread-fatal"}},
}

// fixture is one streams/*.json file (see testdata/1.0/README.md).
type fixture struct {
	Name        string `json:"name"`
	Area        string `json:"area"`
	Description string `json:"description"`
	Client      *struct {
		MaxProtocolVersion string `json:"maxProtocolVersion"`
	} `json:"client"`
	Input *struct {
		Messages json.RawMessage `json:"messages"`
	} `json:"input"`
	Stream          []json.RawMessage                     `json:"stream"`
	Expect          map[string]json.RawMessage            `json:"expect"`
	ExpectOverrides map[string]map[string]json.RawMessage `json:"expectOverrides"`
}

// relaxation is expectations a lane does not check, with the reason.
type relaxation struct {
	keys   []string
	reason string
}

// difference is a deliberate difference: the keys of override replace the
// fixture's expectations.
type difference struct {
	override map[string]any
	// is, when set, is the error the run's error must wrap (errors.Is), so
	// that a reworded errorContains still pins the rule.
	is     error
	reason string
}

// relaxed lists the expectations the corpus README allows a third-party
// client to drop, each with the README's reason. A relaxed key is not
// checked.
var relaxed = map[string]relaxation{
	// The era-* translations: the specification permits a downgrade for an
	// older peer, it does not require one, and agwire ships no era shims.
	"era-0-0-39-flattens-content": {[]string{"warnings", "request"},
		"era translation (0.0.39 content flattening) is permitted, not required; agwire sends modern content to every peer"},
	"era-0-0-45-thinking-translated": {[]string{"messages"},
		"era translation (THINKING_* to REASONING_*) is permitted, not required; agwire skips the retired events, with a warning naming each"},
	"era-0-0-47-upgrades-binary-content": {[]string{"request"},
		"era fixture: agwire reads a legacy binary part as a document part (its 1.0 wire form), not as the image part the TypeScript client upgrades it to"},
	"era-0-0-57-subagent-dropped-with-warning": {[]string{"warnings", "eventTypesAbsent"},
		"era translation (dropping subagent events for a 0.0.57 peer) is permitted, not required; agwire delivers them"},
	"era-pinned-peer-omits-protocol-version": {[]string{"requestAbsentPaths"},
		"era pin: agwire has no per-peer version pin and always declares the version it speaks"},
	"era-current-peer-keeps-modern-content": {[]string{"request"},
		"era fixture: the legacy binary part in the input is read as a document part (its 1.0 wire form) rather than upgraded to an image part"},
	// The two admitted gaps assert behaviour the specification contradicts.
	"truncated-run-reported-as-completed": {[]string{"outcome"},
		"admitted gap: the Truncation rule says a truncated run MUST NOT be reported as succeeded; the fixture pins a client that does, and agwire follows the rule (agent.ErrRunTruncated)"},
	// Not relaxed: unknown-enum-value-role-fatal, the other admitted gap. The
	// specification wants an unrecognised role stripped; agwire refuses it,
	// as @ag-ui/client 1.0.0 does, because its consumer stage accepts
	// exactly what that client accepts. The fixture passes as written.
}

// relaxed11 is the 1.1 lane's: the same era relaxations (the 1.1 corpus
// holds no admitted-gap fixture).
var relaxed11 = func() map[string]relaxation {
	out := map[string]relaxation{}
	for k, v := range relaxed {
		if strings.HasPrefix(k, "era-") {
			out[k] = v
		}
	}
	return out
}()

// relaxedDraft is the draft lane's: the draft copy holds one era fixture
// and the truncation admitted gap (next to the fixture of the rule, which
// passes as written).
var relaxedDraft = map[string]relaxation{
	"era-pinned-peer-omits-protocol-version": relaxed["era-pinned-peer-omits-protocol-version"],
	"truncated-run-reported-as-completed":    relaxed["truncated-run-reported-as-completed"],
}

// deliberate10 is the 1.0 lane's table: where the 1.1 copies expect a 1.1
// client, and the rules agwire words its own way.
var deliberate10 = with(deliberateRules, map[string]difference{
	"current-peer-declares-protocol-version": {map[string]any{"request": map[string]any{"protocolVersion": "1.0"}}, nil,
		"the copy is the 1.1 fixture; agwire is a 1.0 client and declares 1.0"},
	"producer-declares-newer-version-warns": {map[string]any{"warnings": []any{"1.2", "1.0"}}, nil,
		"the copy is the 1.1 fixture, whose warning names the client's 1.1; agwire's names the producer's 1.2 and its own 1.0"},
})

// deliberateDraft is the draft lane's: of the rules agwire words its own
// way, the one fixture the draft copy holds.
var deliberateDraft = map[string]difference{
	"reasoning-discipline-verified": deliberateRules["reasoning-discipline-verified"],
}

func with(a, b map[string]difference) map[string]difference {
	out := map[string]difference{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// deliberateRules lists where agwire's lane expects something else than
// the fixture says, each with its reason, in the form of the corpus's
// expectOverrides: the keys given replace the fixture's.
var deliberateRules = map[string]difference{
	"unknown-outcome-array-fatal": {map[string]any{"errorContains": "outcome must be an object, found array"}, event.ErrInvalidField,
		"the fixture's text is zod's; agwire's error names the same field and the same reason in its own words (a *event.PathError wrapping event.ErrInvalidField)"},
	"reasoning-message-wrong-role-fatal": {map[string]any{"errorContains": `unknown role value "assistant"`}, event.ErrInvalidField,
		"the fixture's text is zod's; agwire's error names the role field and the value it refuses"},
	"state-delta-unappliable-warns-and-keeps": {map[string]any{"warnings": []any{"STATE_DELTA", "patch"}}, nil,
		"the fixture's text is the TypeScript client's console message; agwire reports the skipped delta as an *assemble.ApplyError wrapping a *assemble.PatchError"},
	// The sequence rules: the fixtures' texts are the TypeScript client's
	// messages; agwire refuses the same event for the same rule with an
	// *assemble.SequenceError wrapping the rule's sentinel.
	"chunk-conflicting-role-fatal": {map[string]any{"errorContains": `role "assistant", the open stream's is "user"`}, assemble.ErrChunkMismatch,
		"same rule, agwire's words: the chunk's role does not match the open stream's"},
	"chunk-conflicting-tool-name-fatal": {map[string]any{"errorContains": `toolCallName "delete", the open stream's is "search"`}, assemble.ErrChunkMismatch,
		"same rule, agwire's words: the chunk's toolCallName does not match the open stream's"},
	"content-without-start-fatal": {map[string]any{"errorContains": `not in progress: text message "orphan-content-m1"`}, assemble.ErrSeqNotActive,
		"same rule, agwire's words: no text message orphan-content-m1 is in progress"},
	"custom-closes-chunk-stream-fatal": {map[string]any{"errorContains": "TEXT_MESSAGE_CHUNK without messageId"}, assemble.ErrChunkNoID,
		"same rule, agwire's words: the first chunk of a stream must carry its id"},
	"first-chunk-missing-id-fatal": {map[string]any{"errorContains": "TEXT_MESSAGE_CHUNK without messageId"}, assemble.ErrChunkNoID,
		"same rule, agwire's words: the first chunk of a stream must carry its id"},
	"first-tool-chunk-missing-name-fatal": {map[string]any{"errorContains": "the first TOOL_CALL_CHUNK must carry toolCallName"}, assemble.ErrChunkNoName,
		"same rule, agwire's words"},
	"event-after-run-finished-fatal": {map[string]any{"errorContains": "event after RUN_FINISHED"}, assemble.ErrSeqAfterFinish,
		"same rule, agwire's words"},
	"first-event-not-run-started-fatal": {map[string]any{"errorContains": "the first event must be RUN_STARTED"}, assemble.ErrSeqFirstEvent,
		"same rule, agwire's words"},
	"nested-run-started-fatal": {map[string]any{"errorContains": "RUN_STARTED while a run is still active"}, assemble.ErrSeqRunActive,
		"same rule, agwire's words"},
	"open-message-at-run-finished-fatal": {map[string]any{"errorContains": `RUN_FINISHED while work is still open: text messages "open-message-at-run-finished-m-1"`}, assemble.ErrSeqOpenAtFinish,
		"same rule, agwire's words, naming the open message"},
	"reasoning-discipline-verified": {map[string]any{"errorContains": `not in progress: reasoning message "m-reasoning-discipline-1"`}, assemble.ErrSeqNotActive,
		"same rule, agwire's words, naming the reasoning message"},
	"step-finished-without-start-fatal": {map[string]any{"errorContains": `not in progress: step "step-finished-without-start-never-opened"`}, assemble.ErrSeqNotActive,
		"same rule, agwire's words, naming the step"},
}

// versionNote: fixtures copied from the 1.1 corpus declare protocolVersion
// "1.1", newer than the 1.0 agwire speaks, so agwire warns about it (the
// processing model's version warning). Where such a fixture asks for
// noWarnings, that one warning is allowed, and the fixture counts as a
// deliberate difference.
const versionNote = "the copy is the 1.1 fixture; its producer declares protocol 1.1, newer than agwire's 1.0, and agwire warns about that"

type result struct {
	err           error
	delivered     []event.Event
	warnings      []event.Warning
	applyWarnings []error
	messages      []event.Message
	state         event.RawValue
	request       []byte // the request body the thread sent
}

// TestConformance runs each lane: go test -v -run 'TestConformance/1.1' …
func TestConformance(t *testing.T) {
	for _, l := range lanes {
		t.Run(l.name, func(t *testing.T) { runLane(t, l) })
	}
}

func runLane(t *testing.T, l *corpusLane) {
	names := manifest(t, l)
	byArea := map[string]*[3]int{}
	var areas []string
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(l.dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		var fx fixture
		if err := json.Unmarshal(data, &fx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fx.Name+".json" != name {
			t.Fatalf("%s: name %q does not match the file", name, fx.Name)
		}
		if byArea[fx.Area] == nil {
			byArea[fx.Area] = new([3]int)
			areas = append(areas, fx.Area)
		}
		kind := 0
		t.Run(fx.Name, func(t *testing.T) {
			kind = check(t, l, &fx)
		})
		byArea[fx.Area][kind]++
	}
	for name := range l.relaxed {
		if !slices.Contains(names, name+".json") {
			t.Errorf("relaxed names %s, which is not in the corpus", name)
		}
	}
	for name := range l.deliberate {
		if !slices.Contains(names, name+".json") {
			t.Errorf("deliberate names %s, which is not in the corpus", name)
		}
	}
	sort.Strings(areas)
	var total [3]int
	var b strings.Builder
	mode := ""
	if l.strict {
		mode = ", strict (the draft's fatal rules)"
	}
	fmt.Fprintf(&b, "AG-UI %s conformance, agwire lane (a %s client%s): %d fixtures\n", l.name, l.protocol, mode, len(names))
	fmt.Fprintf(&b, "%-14s %7s %8s %10s\n", "area", "passed", "relaxed", "deliberate")
	for _, a := range areas {
		c := byArea[a]
		fmt.Fprintf(&b, "%-14s %7d %8d %10d\n", a, c[0], c[1], c[2])
		for i := range total {
			total[i] += c[i]
		}
	}
	fmt.Fprintf(&b, "%-14s %7d %8d %10d", "total", total[0], total[1], total[2])
	t.Log("\n" + b.String())
}

// manifest reads MANIFEST.txt and checks it lists exactly the fixtures in
// the directory, but for the lane's recorded gaps; it returns the fixtures
// present.
func manifest(t *testing.T, l *corpusLane) []string {
	data, err := os.ReadFile(filepath.Join(l.dir(), "MANIFEST.txt"))
	if err != nil {
		t.Fatalf("the conformance corpus is missing: %v", err)
	}
	var listed []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		listed = append(listed, line)
	}
	files, err := filepath.Glob(filepath.Join(l.dir(), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var present []string
	for _, f := range files {
		present = append(present, filepath.Base(f))
	}
	missing := 0
	for _, n := range listed {
		if !slices.Contains(present, n) {
			if l.missing == 0 {
				t.Errorf("MANIFEST.txt lists %s, which is missing", n)
			}
			missing++
		}
	}
	if l.missing > 0 && missing != l.missing {
		t.Errorf("MANIFEST.txt lists %d fixtures the copy does not hold, the lane records %d", missing, l.missing)
	}
	for _, n := range present {
		unlisted := slices.Contains(l.unlisted, strings.TrimSuffix(n, ".json"))
		switch listedHere := slices.Contains(listed, n); {
		case !listedHere && !unlisted:
			t.Errorf("%s is present but not listed in MANIFEST.txt", n)
		case listedHere && unlisted:
			t.Errorf("%s is recorded as unlisted, but MANIFEST.txt lists it", n)
		}
	}
	for _, n := range l.unlisted {
		if !slices.Contains(present, n+".json") {
			t.Errorf("%s is recorded as unlisted, but the copy does not hold it", n)
		}
	}
	if len(present) == 0 {
		t.Fatal("the corpus holds no fixture")
	}
	if missing > 0 || len(l.unlisted) > 0 {
		t.Logf("MANIFEST.txt lists %d fixtures, %d of them not in the copy; the copy holds %d it does not list", len(listed), missing, len(l.unlisted))
	}
	sort.Strings(present)
	return present
}

// run serves the fixture's stream over HTTP as SSE, verbatim, and runs a
// Thread against it through agwire's transport client reading as a client
// (ClientOptions.Consume), as the TypeScript lane serves it into an
// HttpAgent. The request is what the thread sent on the wire.
func run(t *testing.T, l *corpusLane, fx *fixture) *result {
	res := &result{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res.request = body
		w.Header().Set("Content-Type", transport.MediaTypeSSE)
		for _, raw := range fx.Stream {
			var line bytes.Buffer
			if err := json.Compact(&line, raw); err != nil {
				t.Errorf("stream: %v", err)
				return
			}
			fmt.Fprintf(w, "data: %s\n\n", line.Bytes())
		}
	}))
	defer srv.Close()

	opts := agent.Options{ProtocolVersion: l.protocol, Strict: l.strict}
	// The thread is the fixture's: its first RUN_STARTED names it (the
	// draft's rules hold every run to the input's threadId).
	for _, raw := range fx.Stream {
		var head struct{ Type, ThreadID string }
		if json.Unmarshal(raw, &head) == nil && head.Type == "RUN_STARTED" {
			opts.ThreadID = head.ThreadID
			break
		}
	}
	if fx.Input != nil && fx.Input.Messages != nil {
		snap, err := event.Parse([]byte(`{"type":"MESSAGES_SNAPSHOT","messages":` + string(fx.Input.Messages) + `}`))
		if err != nil {
			t.Fatalf("input messages: %v", err)
		}
		opts.Messages = snap.(*event.MessagesSnapshot).Messages
	}
	warn := func(w event.Warning) { res.warnings = append(res.warnings, w) }
	opts.Warn = warn
	// The outermost middleware sees the events as they are applied.
	opts.Middleware = []agent.Middleware{agent.Func(func(ev event.Event) []event.Event {
		res.delivered = append(res.delivered, ev)
		return []event.Event{ev}
	})}
	client, err := transport.NewClient(srv.URL, transport.ClientOptions{Prefer: transport.PreferSSEOnly, Consume: true, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	th := agent.New(agent.Adapt(client.Run), opts)
	r, err := th.Run(context.Background(), agent.RunParams{RunID: "conformance-run"})
	var se *assemble.SequenceError
	if errors.As(err, &se) && len(res.delivered) > 0 {
		// Refused by the sequence check before it was applied: not delivered.
		res.delivered = res.delivered[:len(res.delivered)-1]
	}
	res.err = err
	if r != nil {
		res.applyWarnings = r.Warnings
	}
	res.messages, res.state = th.Messages(), th.State()
	return res
}

// check runs one fixture and returns 0 (passed as written), 1 (relaxed) or
// 2 (deliberate difference). A relaxation or an override that the lane
// would not need (the fixture's own expectation passes) is an error too, so
// that the tables only ever list real differences.
func check(t *testing.T, cl *corpusLane, fx *fixture) int {
	expect := map[string]json.RawMessage{}
	for k, v := range fx.Expect {
		expect[k] = v
	}
	// agwire's client side is @ag-ui/client's: the TypeScript lane's
	// overrides are its expectations; the .NET lane's describe another
	// client and are dropped, as the corpus README says.
	for k, v := range fx.ExpectOverrides["typescript"] {
		if k != "intentional" {
			expect[k] = v
		}
	}
	if fx.Client != nil && fx.Client.MaxProtocolVersion != "" {
		if _, ok := cl.relaxed[fx.Name]; !ok {
			t.Errorf("the fixture pins a %s peer, which agwire has no shim for, and is not relaxed", fx.Client.MaxProtocolVersion)
		}
	}
	res := run(t, cl, fx)
	checkCLI(t, cl, fx, res)
	if cl.strict {
		loose := *cl
		loose.strict = false
		differs := (run(t, &loose, fx).err == nil) != (res.err == nil)
		if want := slices.Contains(cl.needsStrict, fx.Name); differs != want {
			t.Errorf("without the strict rules the outcome differs: %v; the lane records %v", differs, want)
		}
	}
	var warnings []string
	for _, w := range res.warnings {
		warnings = append(warnings, w.String())
	}
	for _, w := range res.applyWarnings {
		warnings = append(warnings, w.Error())
	}
	kind := 0
	if _, ok := expect["noWarnings"]; ok && cl.protocol == agent.ProtocolVersion && declares11(fx) {
		var rest []string
		for _, w := range warnings {
			if !strings.Contains(w, "/protocolVersion") {
				rest = append(rest, w)
			}
		}
		if len(rest) < len(warnings) {
			t.Logf("deliberate: %s", versionNote)
			kind = 2
		}
		warnings = rest
	}
	l := &lane{res: res, warnings: warnings}
	if d, ok := cl.deliberate[fx.Name]; ok {
		for k, v := range d.override {
			if orig, ok := expect[k]; ok && len(l.verify(t, k, orig)) == 0 {
				t.Errorf("the override of %s is not needed: the fixture's own expectation passes", k)
			}
			if v == false {
				delete(expect, k)
				continue
			}
			b, _ := json.Marshal(v)
			expect[k] = b
		}
		if d.is != nil && !errors.Is(res.err, d.is) {
			t.Errorf("error %v, want one wrapping %v", res.err, d.is)
		}
		t.Logf("deliberate: %s", d.reason)
		kind = 2
	}
	if r, ok := cl.relaxed[fx.Name]; ok {
		for _, k := range r.keys {
			orig, ok := expect[k]
			if !ok {
				t.Errorf("relaxed key %s is not asserted by the fixture", k)
				continue
			}
			if len(l.verify(t, k, orig)) == 0 {
				t.Errorf("the relaxation of %s is not needed: the fixture's own expectation passes", k)
			}
			delete(expect, k)
		}
		t.Logf("relaxed (%s): %s", strings.Join(r.keys, ", "), r.reason)
		kind = 1
	}
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, e := range l.verify(t, k, expect[k]) {
			t.Error(e)
		}
	}
	return kind
}

// lane is what agwire did with one fixture.
type lane struct {
	res      *result
	warnings []string
}

// verify checks one expectation and returns what failed.
func (l *lane) verify(t *testing.T, k string, v json.RawMessage) []string {
	res, warnings := l.res, l.warnings
	var fails []string
	errorf := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	var want any
	if err := json.Unmarshal(v, &want); err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	switch k {
	case "outcome":
		got := "completed"
		if res.err != nil {
			got = "failed"
		}
		if got != want {
			errorf("outcome %s, want %s (error: %v)", got, want, res.err)
		}
	case "errorContains":
		if res.err == nil || !strings.Contains(res.err.Error(), want.(string)) {
			errorf("error %v, want one containing %q", res.err, want)
		}
	case "runError":
		msg := ""
		found := false
		for _, ev := range res.delivered {
			if e, ok := ev.(*event.RunError); ok {
				found, msg = true, e.Message
			}
		}
		if s, ok := want.(string); ok {
			if !found || !strings.Contains(msg, s) {
				errorf("run error %q (delivered: %v), want one containing %q", msg, found, s)
			}
		} else if found != want.(bool) {
			errorf("run error delivered: %v, want %v", found, want)
		}
	case "eventTypes":
		var got []any
		for _, ev := range res.delivered {
			got = append(got, string(ev.Type()))
		}
		if !reflect.DeepEqual(got, want) {
			errorf("delivered %v, want %v", got, want)
		}
	case "eventTypesAbsent":
		for _, ty := range want.([]any) {
			for _, ev := range res.delivered {
				if string(ev.Type()) == ty {
					errorf("%s delivered", ty)
				}
			}
		}
	case "eventPaths", "eventAbsentPaths":
		paths := map[string]any{}
		if k == "eventPaths" {
			paths = want.(map[string]any)
		} else {
			for _, p := range want.([]any) {
				paths[p.(string)] = nil
			}
		}
		for p, w := range paths {
			got, ok := eventPath(t, res.delivered, p)
			switch {
			case k == "eventAbsentPaths" && ok:
				errorf("%s present (%v), want absent", p, got)
			case k == "eventPaths" && !ok:
				errorf("%s absent, want %v", p, w)
			case k == "eventPaths" && !reflect.DeepEqual(got, w):
				errorf("%s = %v, want %v", p, got, w)
			}
		}
	case "warnings":
		for _, s := range want.([]any) {
			if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, s.(string)) }) {
				errorf("no warning contains %q; warnings: %q", s, warnings)
			}
		}
	case "noWarnings":
		if want == true && len(warnings) > 0 {
			errorf("warnings %q, want none", warnings)
		}
	case "messageCount":
		if len(res.messages) != int(want.(float64)) {
			errorf("%d messages, want %v", len(res.messages), want)
		}
	case "messages":
		b, err := assemble.MarshalMessages(res.messages)
		if err != nil {
			t.Fatal(err)
		}
		fails = append(fails, subset("messages", decode(t, b), want)...)
	case "state":
		fails = append(fails, subset("state", decode(t, res.state), want)...)
	case "request", "requestAbsentPaths":
		if res.request == nil {
			errorf("no request was sent")
			break
		}
		req := decode(t, res.request)
		if k == "request" {
			fails = append(fails, subset("request", req, want)...)
			break
		}
		for _, p := range want.([]any) {
			if _, ok := walk(req, p.(string)); ok {
				errorf("request carries %s", p)
			}
		}
	default:
		errorf("expectation %s is not one this lane knows", k)
	}
	return fails
}

func declares11(fx *fixture) bool {
	for _, raw := range fx.Stream {
		if bytes.Contains(raw, []byte(`"protocolVersion": "1.1"`)) || bytes.Contains(raw, []byte(`"protocolVersion":"1.1"`)) {
			return true
		}
	}
	return false
}

func decode(t *testing.T, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// eventPath reads "<index>.<dotted path>" in the delivered events.
func eventPath(t *testing.T, evs []event.Event, p string) (any, bool) {
	idx, rest, _ := strings.Cut(p, ".")
	i, err := strconv.Atoi(idx)
	if err != nil || i >= len(evs) {
		return nil, false
	}
	b, err := event.Marshal(evs[i])
	if err != nil {
		t.Fatal(err)
	}
	return walk(decode(t, b), rest)
}

func walk(v any, p string) (any, bool) {
	if p == "" {
		return v, true
	}
	for _, seg := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// subset compares as the corpus README defines: arrays the same length,
// objects only on the keys want names, anything else equal. It returns
// what differs.
func subset(at string, got, want any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %v, want an object", at, got)}
		}
		var fails []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				fails = append(fails, fmt.Sprintf("%s.%s: absent, want %v", at, k, wv))
				continue
			}
			fails = append(fails, subset(at+"."+k, gv, wv)...)
		}
		return fails
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want %d elements %v", at, got, len(w), w)}
		}
		var fails []string
		for i := range w {
			fails = append(fails, subset(fmt.Sprintf("%s[%d]", at, i), g[i], w[i])...)
		}
		return fails
	default:
		if !reflect.DeepEqual(got, want) {
			return []string{fmt.Sprintf("%s: got %#v, want %#v", at, got, want)}
		}
	}
	return nil
}

// checkCLI holds agwire assemble to the thread: given the fixture's stream
// as JSON lines (with --profile 1.1 in the 1.1 lane and --strict in the
// draft's), it succeeds where the thread's run succeeds and fails where it
// fails, and prints the same messages (the thread's history aside) and
// state. The one difference is the thread's own: a truncated run fails the
// thread always (AG-UI 1.0's Truncation rule), the command only under
// --strict, as the client does not.
func checkCLI(t *testing.T, cl *corpusLane, fx *fixture, res *result) {
	t.Helper()
	var in bytes.Buffer
	for _, raw := range fx.Stream {
		if err := json.Compact(&in, raw); err != nil {
			t.Fatal(err)
		}
		in.WriteByte('\n')
	}
	args := []string{"assemble", "--from", "jsonl"}
	if cl.protocol == agent.ProtocolVersion11 {
		args = append(args, "--profile", "1.1")
	}
	if cl.strict {
		args = append(args, "--strict")
	}
	var out, errOut bytes.Buffer
	code := cli.Main(args, &in, &out, &errOut)
	wantOK := res.err == nil || !cl.strict && errors.Is(res.err, agent.ErrRunTruncated)
	if (code == 0) != wantOK {
		t.Errorf("agwire %s: exit %d, the thread's run: %v\n%s", strings.Join(args, " "), code, res.err, errOut.String())
		return
	}
	if code != 0 {
		return
	}
	var got struct {
		Messages []any `json:"messages"`
		State    any   `json:"state"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("agwire assemble printed %s: %v", out.Bytes(), err)
	}
	if want := decode(t, res.state); !reflect.DeepEqual(got.State, want) {
		t.Errorf("agwire assemble: state %v, the thread's %v", got.State, want)
	}
	if fx.Input != nil && fx.Input.Messages != nil {
		return // the thread's messages start with its history
	}
	b, err := assemble.MarshalMessages(res.messages)
	if err != nil {
		t.Fatal(err)
	}
	if want := decode(t, b); !reflect.DeepEqual(any(got.Messages), want) && !(len(got.Messages) == 0 && len(res.messages) == 0) {
		t.Errorf("agwire assemble: messages %v, the thread's %v", got.Messages, want)
	}
}
