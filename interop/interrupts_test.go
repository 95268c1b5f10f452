package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/event"
)

// A thread of runs with interrupts behaves in agwire's agent.Thread as in
// @ag-ui/client@1.0.0's runAgent: the same runs are refused (a pending
// interrupt not addressed by resume, an expired one answered), the same
// inputs are sent (activity messages left out), and the same interrupts are
// pending, and the same conversation kept, after every step.

type interruptStep struct {
	RunID  string              `json:"runId"`
	Resume []event.ResumeEntry `json:"resume,omitempty"`
}

type interruptScenario struct {
	name     string
	messages string // a JSON array
	runs     []string
	steps    []interruptStep
	disallow []string // tool calls filtered out, by a FilterToolCalls middleware
}

func finished(runID, outcome string) string {
	s := `{"type":"RUN_FINISHED","threadId":"t","runId":"` + runID + `"`
	if outcome != "" {
		s += `,"outcome":` + outcome
	}
	return s + `}`
}

func started(runID string) string {
	return `{"type":"RUN_STARTED","threadId":"t","runId":"` + runID + `"}`
}

func interrupts(list ...string) string {
	return `{"type":"interrupt","interrupts":[` + strings.Join(list, ",") + `]}`
}

func resume(pairs ...string) []event.ResumeEntry {
	var out []event.ResumeEntry
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, event.ResumeEntry{InterruptID: pairs[i], Status: pairs[i+1]})
	}
	return out
}

var interruptScenarios = []interruptScenario{
	{
		name: "tool calls filtered by name, chunks too",
		runs: []string{
			started("r1") + "\n" +
				`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"p"}` + "\n" +
				`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}` + "\n" +
				`{"type":"TOOL_CALL_END","toolCallId":"c1"}` + "\n" +
				`{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"secret","parentMessageId":"p","delta":"{\"k\":1}"}` + "\n" +
				`{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"found"}` + "\n" +
				`{"type":"TOOL_CALL_RESULT","messageId":"t2","toolCallId":"c2","content":"hidden"}` + "\n" +
				`{"type":"TOOL_CALL_RESULT","messageId":"t3","toolCallId":"c2","content":"second"}` + "\n" +
				finished("r1", interrupts(`{"id":"i","reason":"tool_approval","toolCallId":"c1"}`)),
			started("r2") + "\n" + finished("r2", ""),
		},
		steps:    []interruptStep{{RunID: "r1"}, {RunID: "r2", Resume: resume("i", "resolved")}},
		disallow: []string{"secret"},
	},
	{
		name:     "interrupt, unaddressed, then answered",
		messages: `[{"id":"u1","role":"user","content":"book it"}]`,
		runs: []string{
			started("r1") + "\n" + `{"type":"TEXT_MESSAGE_CHUNK","messageId":"a1","delta":"Approve?"}` + "\n" +
				`{"type":"ACTIVITY_SNAPSHOT","messageId":"act1","activityType":"plan","content":{"step":1}}` + "\n" +
				`{"type":"STATE_SNAPSHOT","snapshot":{"booking":"held"}}` + "\n" +
				finished("r1", interrupts(`{"id":"i1","reason":"tool_approval","toolCallId":"c1"}`, `{"id":"i2","reason":"input_required"}`)),
			started("r2") + "\n" + `{"type":"TEXT_MESSAGE_CHUNK","messageId":"a2","delta":"Booked."}` + "\n" + finished("r2", ""),
		},
		steps: []interruptStep{
			{RunID: "r1"},
			{RunID: "r2"},
			{RunID: "r2", Resume: resume("i1", "resolved")},
			{RunID: "r2", Resume: resume("i2", "cancelled", "i1", "resolved", "extra", "resolved")},
			{RunID: "r3", Resume: resume("stale", "resolved")},
		},
	},
	{
		name: "expired interrupts may only be cancelled",
		runs: []string{
			started("r1") + "\n" + finished("r1", interrupts(
				`{"id":"old","reason":"input_required","expiresAt":"2000-01-01T00:00:00Z"}`,
				`{"id":"day","reason":"input_required","expiresAt":"2000-01-01"}`,
				`{"id":"later","reason":"input_required","expiresAt":"2999-01-01T00:00:00.000Z"}`,
				`{"id":"odd","reason":"input_required","expiresAt":"not a date"}`)),
			started("r2") + "\n" + finished("r2", ""),
		},
		steps: []interruptStep{
			{RunID: "r1"},
			{RunID: "r2", Resume: resume("old", "resolved", "day", "cancelled", "later", "resolved", "odd", "resolved")},
			{RunID: "r2", Resume: resume("old", "cancelled", "day", "resolved", "later", "resolved", "odd", "resolved")},
			{RunID: "r2", Resume: resume("old", "cancelled", "day", "cancelled", "later", "resolved", "odd", "resolved")},
		},
	},
	{
		name: "a run that fails keeps the interrupts; a new interrupt replaces them",
		runs: []string{
			started("r1") + "\n" + finished("r1", interrupts(`{"id":"a","reason":"r"}`)),
			started("r2") + "\n" + `{"type":"RUN_ERROR","message":"boom"}`,
			started("r3") + "\n" + finished("r3", interrupts(`{"id":"b","reason":"r"}`)),
			started("r4") + "\n" + finished("r4", `{"type":"success"}`),
		},
		steps: []interruptStep{
			{RunID: "r1"},
			{RunID: "r2", Resume: resume("a", "resolved")},
			{RunID: "r3"},
			{RunID: "r3", Resume: resume("a", "resolved")},
			{RunID: "r4", Resume: resume("a", "resolved")},
			{RunID: "r4", Resume: resume("b", "resolved")},
		},
	},
}

type clientStep struct {
	ID       int                   `json:"id"`
	Step     int                   `json:"step"`
	OK       bool                  `json:"ok"`
	Error    string                `json:"error"`
	Input    json.RawMessage       `json:"input"`
	Pending  []struct{ ID string } `json:"pending"`
	Messages json.RawMessage       `json:"messages"`
	State    json.RawMessage       `json:"state"`
}

func runInterruptClient(t *testing.T) [][]clientStep {
	t.Helper()
	dir := sourceDir()
	nodePath, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: %s (CI is set, so this fails instead of skipping)", err, InstallHint)
		}
		t.Skipf("%v: %s", err, InstallHint)
	}
	var in bytes.Buffer
	for i, sc := range interruptScenarios {
		var runs []string
		for _, r := range sc.runs {
			runs = append(runs, "["+strings.Join(strings.Split(r, "\n"), ",")+"]")
		}
		steps, _ := json.Marshal(sc.steps)
		msgs := sc.messages
		if msgs == "" {
			msgs = "[]"
		}
		disallow := ""
		if sc.disallow != nil {
			b, _ := json.Marshal(sc.disallow)
			disallow = `,"disallow":` + string(b)
		}
		fmt.Fprintf(&in, `{"id":%d,"threadId":"t","messages":%s,"state":{},"runs":[%s],"steps":%s%s}`+"\n", i, msgs, strings.Join(runs, ","), steps, disallow)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, "interrupts.mjs")
	cmd.Dir = dir
	cmd.Env = nodeEnv()
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node interrupts.mjs: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	results := make([][]clientStep, len(interruptScenarios))
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var s clientStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("interrupts.mjs: %v: %s", err, sc.Bytes())
		}
		results[s.ID] = append(results[s.ID], s)
	}
	return results
}

// jsonValue decodes JSON text into a comparable value.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func TestInterruptsMatchClient(t *testing.T) {
	client := runInterruptClient(t)
	refused, sent := 0, 0
	for i, sc := range interruptScenarios {
		var scripted [][]event.Event
		for _, r := range sc.runs {
			var evs []event.Event
			for _, l := range strings.Split(r, "\n") {
				ev, err := event.Parse([]byte(l))
				if err != nil {
					t.Fatalf("%s: %s: %v", sc.name, l, err)
				}
				evs = append(evs, ev)
			}
			scripted = append(scripted, evs)
		}
		var initial []event.Message
		if sc.messages != "" {
			ev, err := event.Parse([]byte(`{"type":"MESSAGES_SNAPSHOT","messages":` + sc.messages + `}`))
			if err != nil {
				t.Fatal(err)
			}
			initial = ev.(*event.MessagesSnapshot).Messages
		}
		var inputs []*event.RunAgentInput
		opts := agent.Options{ThreadID: "t", Messages: initial}
		if sc.disallow != nil {
			f, err := agent.FilterToolCalls(agent.FilterOptions{Disallowed: sc.disallow})
			if err != nil {
				t.Fatal(err)
			}
			opts.Middleware = []agent.Middleware{f}
		}
		thread := agent.New(agent.Script(&inputs, scripted...), opts)
		if len(client[i]) != len(sc.steps) {
			t.Fatalf("%s: the client answered %d of %d steps", sc.name, len(client[i]), len(sc.steps))
		}
		for j, step := range sc.steps {
			want := client[i][j]
			name := fmt.Sprintf("%s, step %d", sc.name, j)
			n := len(inputs)
			_, err := thread.Run(context.Background(), agent.RunParams{RunID: step.RunID, Resume: step.Resume})
			switch {
			case want.OK != (err == nil):
				t.Errorf("%s: agwire says %v, the client %q", name, err, want.Error)
			case strings.Contains(want.Error, "not addressed by resume") != errors.Is(err, agent.ErrInterruptsNotAddressed),
				strings.Contains(want.Error, "expired at") != errors.Is(err, agent.ErrInterruptExpired):
				t.Errorf("%s: agwire refuses with %v, the client with %q", name, err, want.Error)
			}
			if err != nil {
				refused++
			}
			if (len(inputs) > n) != (want.Input != nil) {
				t.Errorf("%s: agwire sent %d inputs, the client sent %s", name, len(inputs)-n, want.Input)
			} else if want.Input != nil {
				sent++
				got, err := json.Marshal(inputs[len(inputs)-1])
				if err != nil {
					t.Fatal(err)
				}
				// The client leaves resume out when there is none, and so
				// does agwire.
				w := jsonValue(t, want.Input).(map[string]any)
				if g := jsonValue(t, got); !reflect.DeepEqual(g, any(w)) {
					t.Errorf("%s: agwire sent\n%s\nthe client\n%s", name, got, want.Input)
				}
			}
			var pending []string
			for _, p := range thread.PendingInterrupts() {
				pending = append(pending, p.ID)
			}
			var wantPending []string
			for _, p := range want.Pending {
				wantPending = append(wantPending, p.ID)
			}
			if strings.Join(pending, ",") != strings.Join(wantPending, ",") {
				t.Errorf("%s: pending %v, the client's %v", name, pending, wantPending)
			}
			msgs, err := assemble.MarshalMessages(thread.Messages())
			if err != nil {
				t.Fatal(err)
			}
			if g, w := conversationValue(t, msgs, thread.State()), conversationValue(t, want.Messages, want.State); !reflect.DeepEqual(g, w) {
				t.Errorf("%s: agwire keeps\n%s %s\nthe client\n%s %s", name, msgs, thread.State(), want.Messages, want.State)
			}
		}
	}
	// The filter did filter, on both sides: the second result of a dropped
	// call passes, as the client forgets the call after its first result.
	if kept := string(client[0][0].Messages); strings.Contains(kept, "hidden") || strings.Contains(kept, "secret") || !strings.Contains(kept, "second") {
		t.Errorf("the filtered run keeps %s", kept)
	}
	t.Logf("%d scenarios: %d runs sent with the same input, %d refused as the client refuses them", len(interruptScenarios), sent, refused)
}
