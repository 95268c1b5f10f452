// Package assembletest generates random, valid AG-UI event streams for
// tests: runs a producer could send that the TypeScript client accepts
// (they pass its verifier), with text, chunk, interleaved tool call,
// tool result, reasoning, activity, state, messages-snapshot, subagent and
// lifecycle events and random metadata. Generation is deterministic for a seed.
package assembletest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/agwire/agwire/event"
)

// Stream is one generated event stream: its JSON lines and the parsed events.
type Stream struct {
	Lines  []string
	Events []event.Event
}

// raw is JSON text written as is.
type raw string

// obj writes a JSON object from alternating keys and values, in order;
// a nil value or a nil *string omits its key.
func obj(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		var text string
		switch x := v.(type) {
		case nil:
			continue
		case *string:
			if x == nil {
				continue
			}
			text = quote(*x)
		case raw:
			if x == "" {
				continue
			}
			text = string(x)
		case string:
			text = quote(x)
		default:
			bb, err := json.Marshal(x)
			if err != nil {
				panic(err)
			}
			text = string(bb)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(quote(kv[i].(string)))
		b.WriteByte(':')
		b.WriteString(text)
	}
	b.WriteByte('}')
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	// encoding/json escapes <, > and & for HTML; AG-UI JSON does not need it
	// but it is still valid JSON, so it is kept.
	return string(b)
}

type gen struct {
	r     *rand.Rand
	lines []string
	seq   int

	texts     []string // open text messages (explicit START)
	reasoning []string // open reasoning messages
	spans     []string // open reasoning spans
	tools     []string // open tool calls (explicit START)
	steps     []string // open steps
	ended     []string // ended tool calls without a result yet
	answered  []string
	msgIDs    []string // ids of messages that exist (any role), for parents and encrypted values
	assistant []string // assistant message ids
	activity  map[string]map[string]string
	actIDs    []string
	state     map[string]string // root members of the state (it is always an object), value JSON
	stateKeys []string
	chunkText string // the open text chunk stream's id, if any
	chunkTool string

	// Subagents: sub is the running subagent ("" for none); owner records
	// the agent that opened each message, tool call and reasoning message
	// (events addressing it may name only that agent).
	sub      string
	subs     int
	owner    map[string]string
	chunkOwn map[string]string
}

// tag returns the running subagent as an event's subagentRunId.
func (g *gen) tag() *string {
	if g.sub == "" {
		return nil
	}
	s := g.sub
	return &s
}

// ownerTag returns, half the time, id's owner as subagentRunId (never for
// the parent agent, which no subagentRunId names).
func (g *gen) ownerTag(id string) *string {
	if o := g.owner[id]; o != "" && g.r.IntN(2) == 0 {
		return &o
	}
	return nil
}

func (g *gen) id(prefix string) string {
	g.seq++
	return prefix + strconv.Itoa(g.seq)
}

func (g *gen) emit(s string) { g.lines = append(g.lines, s) }

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func remove(list []string, s string) []string {
	for i, x := range list {
		if x == s {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

var texts = []string{"Hello", " world", "é", "😀", "line\nbreak", `"quoted"`, "\\", "tab\t", "", "ok", " ", "1.0", "{"}

func (g *gen) text() string {
	n := 1 + g.r.IntN(3)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(g.pick(texts))
	}
	return b.String()
}

// value returns random JSON: numbers are ones a double holds exactly and
// every peer prints the same way.
func (g *gen) value(depth int) string {
	switch k := g.r.IntN(9); {
	case k == 0:
		return "null"
	case k == 1:
		return []string{"true", "false"}[g.r.IntN(2)]
	case k == 2:
		return strconv.Itoa(g.r.IntN(2000) - 1000)
	case k == 3:
		return []string{"0.5", "1.25", "-2.75", "100", "0"}[g.r.IntN(5)]
	case k <= 5 || depth > 2:
		return quote(g.text())
	case k == 6:
		n := g.r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = g.value(depth + 1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	n := g.r.IntN(3)
	var kv []any
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.pick(metaKeys)
		if !seen[k] {
			seen[k] = true
			kv = append(kv, k, raw(g.value(depth+1)))
		}
	}
	return obj(kv...)
}

var metaKeys = []string{"source", "stage", "usage", "tags", "ag-ui", "traceId", "n", "finishReason", "x"}

// metadata returns a random metadata object, or "" (absent) half the time.
func (g *gen) metadata() raw {
	switch g.r.IntN(6) {
	case 0, 1, 2:
		return ""
	case 3:
		return "{}"
	}
	n := 1 + g.r.IntN(3)
	var kv []any
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.pick(metaKeys)
		if seen[k] {
			continue
		}
		seen[k] = true
		kv = append(kv, k, raw(g.value(0)))
	}
	return raw(obj(kv...))
}

func (g *gen) optName() *string {
	if g.r.IntN(4) == 0 {
		s := "name-" + strconv.Itoa(g.r.IntN(3))
		return &s
	}
	return nil
}

// closeChunks notes that an event closing the chunk lanes was sent.
func (g *gen) closeChunks() { g.chunkText, g.chunkTool = "", "" }

// Generate returns a random valid stream of one or two runs.
func Generate(r *rand.Rand) Stream {
	g := &gen{r: r, activity: map[string]map[string]string{}, state: map[string]string{}, owner: map[string]string{}, chunkOwn: map[string]string{}}
	runs := 1 + r.IntN(2)
	for run := 0; run < runs; run++ {
		g.run(run)
	}
	return g.stream()
}

func (g *gen) stream() Stream {
	s := Stream{Lines: g.lines}
	for _, l := range g.lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			panic(fmt.Sprintf("assembletest: generated an invalid event %s: %v", l, err))
		}
		s.Events = append(s.Events, ev)
	}
	return s
}

func (g *gen) run(n int) {
	g.emit(obj("type", "RUN_STARTED", "threadId", "t", "runId", "r"+strconv.Itoa(n), "metadata", g.metadata()))
	g.closeChunks()
	steps := 4 + g.r.IntN(22)
	for i := 0; i < steps; i++ {
		g.step()
	}
	if g.r.IntN(8) == 0 {
		g.emit(obj("type", "RUN_ERROR", "message", "boom", "metadata", g.metadata()))
		g.sub = ""
		g.texts, g.reasoning, g.spans, g.tools, g.steps = nil, nil, nil, nil, nil
		g.ended = nil
		g.closeChunks()
		return
	}
	if g.sub != "" {
		g.emit(obj("type", "SUBAGENT_FINISHED", "subagentRunId", g.sub))
		g.sub = ""
	}
	for len(g.texts) > 0 {
		g.endText(g.texts[0])
	}
	for len(g.tools) > 0 {
		g.endTool(g.tools[0])
	}
	for len(g.reasoning) > 0 {
		id := g.reasoning[0]
		g.emit(obj("type", "REASONING_MESSAGE_END", "messageId", id, "metadata", g.metadata()))
		g.reasoning = remove(g.reasoning, id)
	}
	for len(g.spans) > 0 {
		id := g.spans[0]
		g.emit(obj("type", "REASONING_END", "messageId", id))
		g.spans = remove(g.spans, id)
	}
	for len(g.steps) > 0 {
		s := g.steps[0]
		g.emit(obj("type", "STEP_FINISHED", "stepName", s))
		g.steps = remove(g.steps, s)
	}
	var result raw
	if g.r.IntN(2) == 0 {
		result = raw(g.value(0))
	}
	g.emit(obj("type", "RUN_FINISHED", "threadId", "t", "runId", "r"+strconv.Itoa(n), "result", result, "metadata", g.metadata()))
	g.ended = nil
	g.closeChunks()
}

func (g *gen) endText(id string) {
	g.emit(obj("type", "TEXT_MESSAGE_END", "messageId", id, "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
	g.texts = remove(g.texts, id)
	g.closeChunks()
}

func (g *gen) endTool(id string) {
	g.emit(obj("type", "TOOL_CALL_END", "toolCallId", id, "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
	g.tools = remove(g.tools, id)
	g.ended = append(g.ended, id)
	g.closeChunks()
}

func (g *gen) step() {
	switch k := g.r.IntN(30); {
	case k < 3: // open a text message
		id := g.id("m")
		role := []string{"", "assistant", "assistant", "user", "system", "developer"}[g.r.IntN(6)]
		var rp *string
		if role != "" {
			rp = &role
		}
		g.emit(obj("type", "TEXT_MESSAGE_START", "messageId", id, "role", rp, "name", g.optName(), "subagentRunId", g.tag(), "metadata", g.metadata()))
		g.owner[id] = g.sub
		g.texts = append(g.texts, id)
		g.msgIDs = append(g.msgIDs, id)
		if role == "" || role == "assistant" {
			g.assistant = append(g.assistant, id)
		}
		g.closeChunks()
	case k < 8 && len(g.texts) > 0:
		id := g.pick(g.texts)
		g.emit(obj("type", "TEXT_MESSAGE_CONTENT", "messageId", id, "delta", g.text(), "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
		g.closeChunks()
	case k < 9 && len(g.texts) > 0:
		g.endText(g.pick(g.texts))
	case k < 11: // open a tool call
		id := g.id("tc")
		var parent *string
		sameOwner := func(ids []string) []string {
			var out []string
			for _, x := range ids {
				if g.owner[x] == g.sub {
					out = append(out, x)
				}
			}
			return out
		}
		switch g.r.IntN(4) {
		case 0:
			if c := sameOwner(g.assistant); len(c) > 0 {
				p := g.pick(c)
				parent = &p
			}
		case 1:
			p := g.id("p")
			parent = &p
			g.msgIDs = append(g.msgIDs, p)
			g.assistant = append(g.assistant, p)
			g.owner[p] = g.sub
		case 2:
			if c := sameOwner(g.texts); len(c) > 0 {
				p := g.pick(c)
				parent = &p
			}
		}
		if parent == nil {
			g.msgIDs = append(g.msgIDs, id)
			g.assistant = append(g.assistant, id)
		}
		g.owner[id] = g.sub
		g.emit(obj("type", "TOOL_CALL_START", "toolCallId", id, "toolCallName", "tool"+strconv.Itoa(g.r.IntN(3)), "parentMessageId", parent, "subagentRunId", g.tag(), "metadata", g.metadata()))
		g.tools = append(g.tools, id)
		g.closeChunks()
	case k < 14 && len(g.tools) > 0:
		id := g.pick(g.tools)
		g.emit(obj("type", "TOOL_CALL_ARGS", "toolCallId", id, "delta", g.text(), "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
		g.closeChunks()
	case k < 15 && len(g.tools) > 0:
		g.endTool(g.pick(g.tools))
	case k < 16 && len(g.ended) > 0:
		tc := g.pick(g.ended)
		g.ended = remove(g.ended, tc)
		id := g.id("res")
		var content raw
		if g.r.IntN(4) == 0 {
			content = raw(`[{"type":"text","text":` + quote(g.text()) + `}]`)
		} else {
			content = raw(quote(g.text()))
		}
		g.emit(obj("type", "TOOL_CALL_RESULT", "messageId", id, "toolCallId", tc, "content", content, "metadata", g.metadata()))
		g.owner[id] = ""
		g.msgIDs = append(g.msgIDs, id)
		g.closeChunks()
	case k < 17: // a text chunk (always with its id: an id-less chunk after a lane closed is an error)
		id := g.chunkText
		if id == "" || g.chunkOwn[id] != g.sub || g.r.IntN(3) == 0 {
			id = g.id("c")
			g.msgIDs = append(g.msgIDs, id)
			g.assistant = append(g.assistant, id)
			g.owner[id], g.chunkOwn[id] = g.sub, g.sub
		}
		var delta *string
		if g.r.IntN(5) > 0 {
			d := g.text()
			delta = &d
		}
		g.emit(obj("type", "TEXT_MESSAGE_CHUNK", "messageId", id, "delta", delta, "subagentRunId", g.tag(), "metadata", g.metadata()))
		g.chunkText, g.chunkTool = id, ""
	case k < 18: // a tool call chunk
		id := g.chunkTool
		var name *string
		if id == "" || g.chunkOwn[id] != g.sub || g.r.IntN(3) == 0 {
			id = g.id("ct")
			n := "chunked"
			name = &n
			g.msgIDs = append(g.msgIDs, id)
			g.assistant = append(g.assistant, id)
			g.owner[id], g.chunkOwn[id] = g.sub, g.sub
		}
		g.emit(obj("type", "TOOL_CALL_CHUNK", "toolCallId", id, "toolCallName", name, "delta", g.text(), "subagentRunId", g.tag(), "metadata", g.metadata()))
		g.chunkTool, g.chunkText = id, ""
	case k < 19: // reasoning
		switch {
		case len(g.reasoning) > 0 && g.r.IntN(3) > 0:
			id := g.pick(g.reasoning)
			if g.r.IntN(3) == 0 {
				g.emit(obj("type", "REASONING_MESSAGE_END", "messageId", id, "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
				g.reasoning = remove(g.reasoning, id)
			} else {
				g.emit(obj("type", "REASONING_MESSAGE_CONTENT", "messageId", id, "delta", g.text(), "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
			}
		case len(g.spans) > 0 && g.r.IntN(2) == 0:
			id := g.pick(g.spans)
			g.emit(obj("type", "REASONING_END", "messageId", id, "subagentRunId", g.ownerTag(id), "metadata", g.metadata()))
			g.spans = remove(g.spans, id)
		case g.r.IntN(2) == 0:
			id := g.id("rs")
			g.emit(obj("type", "REASONING_START", "messageId", id, "subagentRunId", g.tag(), "metadata", g.metadata()))
			g.owner[id] = g.sub
			g.spans = append(g.spans, id)
		default:
			id := g.id("rm")
			g.emit(obj("type", "REASONING_MESSAGE_START", "messageId", id, "role", "reasoning", "subagentRunId", g.tag(), "metadata", g.metadata()))
			g.owner[id] = g.sub
			g.reasoning = append(g.reasoning, id)
			g.msgIDs = append(g.msgIDs, id)
		}
		g.closeChunks()
	case k < 21:
		g.activityEvent()
	case k < 24:
		g.stateEvent()
	case k < 25:
		g.snapshot()
		g.closeChunks()
	case k < 26:
		if len(g.steps) > 0 && g.r.IntN(2) == 0 {
			s := g.pick(g.steps)
			g.emit(obj("type", "STEP_FINISHED", "stepName", s, "metadata", g.metadata()))
			g.steps = remove(g.steps, s)
		} else {
			s := g.id("step")
			g.emit(obj("type", "STEP_STARTED", "stepName", s, "metadata", g.metadata()))
			g.steps = append(g.steps, s)
		}
		g.closeChunks()
	case k < 27:
		g.emit(obj("type", "CUSTOM", "name", "c", "value", raw(g.value(0)), "metadata", g.metadata()))
		g.closeChunks()
	case k < 28 && g.r.IntN(2) == 0:
		g.emit(obj("type", "RAW", "event", raw(g.value(0)), "metadata", g.metadata()))
	case k < 28: // a subagent starts, or the running one ends
		if g.sub == "" {
			g.subs++
			g.sub = "sub" + strconv.Itoa(g.subs)
			g.emit(obj("type", "SUBAGENT_STARTED", "subagentRunId", g.sub, "name", "helper"))
		} else {
			if g.r.IntN(3) == 0 {
				g.emit(obj("type", "SUBAGENT_ERROR", "subagentRunId", g.sub, "message", "failed"))
			} else {
				g.emit(obj("type", "SUBAGENT_FINISHED", "subagentRunId", g.sub))
			}
			g.sub = ""
		}
	case k < 29 && len(g.msgIDs) > 0:
		if g.r.IntN(2) == 0 && len(g.tools)+len(g.ended) > 0 {
			g.emit(obj("type", "REASONING_ENCRYPTED_VALUE", "subtype", "tool-call", "entityId", g.pick(append(append([]string{}, g.tools...), g.ended...)), "encryptedValue", g.id("enc"), "metadata", g.metadata()))
		} else {
			g.emit(obj("type", "REASONING_ENCRYPTED_VALUE", "subtype", "message", "entityId", g.pick(g.msgIDs), "encryptedValue", g.id("enc"), "metadata", g.metadata()))
		}
	}
}

func (g *gen) activityEvent() {
	if len(g.actIDs) == 0 || g.r.IntN(3) == 0 {
		id := g.id("act")
		keys := map[string]string{}
		content := g.content(keys)
		g.emit(obj("type", "ACTIVITY_SNAPSHOT", "messageId", id, "activityType", "plan", "content", raw(content), "metadata", g.metadata()))
		g.activity[id] = keys
		g.actIDs = append(g.actIDs, id)
		g.msgIDs = append(g.msgIDs, id)
		return
	}
	id := g.pick(g.actIDs)
	if g.r.IntN(3) == 0 {
		keys := map[string]string{}
		content := g.content(keys)
		var replace any
		switch g.r.IntN(3) {
		case 0:
			replace = false
		case 1:
			replace = true
		}
		g.emit(obj("type", "ACTIVITY_SNAPSHOT", "messageId", id, "activityType", []string{"plan", "search"}[g.r.IntN(2)], "content", raw(content), "replace", replace, "metadata", g.metadata()))
		if replace != false {
			g.activity[id] = keys
		}
		return
	}
	ops := g.patch(g.activity[id], "")
	g.emit(obj("type", "ACTIVITY_DELTA", "messageId", id, "activityType", "plan", "patch", raw(ops), "metadata", g.metadata()))
}

func (g *gen) content(keys map[string]string) string {
	n := g.r.IntN(3)
	var kv []any
	for i := 0; i < n; i++ {
		k := "k" + strconv.Itoa(g.r.IntN(5))
		if _, ok := keys[k]; ok {
			continue
		}
		v := g.value(1)
		keys[k] = v
		kv = append(kv, k, raw(v))
	}
	return obj(kv...)
}

// patch returns valid operations on an object whose root members are keys
// (updating keys as it goes).
func (g *gen) patch(keys map[string]string, _ string) string {
	n := 1 + g.r.IntN(3)
	var ops []string
	sorted := func() []string {
		var s []string
		for k := range keys {
			s = append(s, k)
		}
		sort.Strings(s)
		return s
	}
	for i := 0; i < n; i++ {
		existing := sorted()
		switch k := g.r.IntN(7); {
		case k == 0 || len(existing) == 0:
			key := "k" + strconv.Itoa(g.r.IntN(6))
			v := g.value(1)
			keys[key] = v
			ops = append(ops, obj("op", "add", "path", "/"+key, "value", raw(v)))
		case k == 1:
			key := g.pick(existing)
			v := g.value(1)
			keys[key] = v
			ops = append(ops, obj("op", "replace", "path", "/"+key, "value", raw(v)))
		case k == 2:
			key := g.pick(existing)
			delete(keys, key)
			ops = append(ops, obj("op", "remove", "path", "/"+key))
		case k == 3:
			key := g.pick(existing)
			ops = append(ops, obj("op", "test", "path", "/"+key, "value", raw(keys[key])))
		case k == 4:
			from := g.pick(existing)
			to := "k" + strconv.Itoa(g.r.IntN(6))
			if from == to {
				continue
			}
			keys[to] = keys[from]
			delete(keys, from)
			ops = append(ops, obj("op", "move", "from", "/"+from, "path", "/"+to))
		case k == 5:
			from := g.pick(existing)
			to := "k" + strconv.Itoa(g.r.IntN(6))
			keys[to] = keys[from]
			ops = append(ops, obj("op", "copy", "from", "/"+from, "path", "/"+to))
		default: // an array member grows at its end
			key := "list"
			if _, ok := keys[key]; !ok {
				keys[key] = "[]"
				ops = append(ops, obj("op", "add", "path", "/list", "value", raw("[]")))
			} else if !strings.HasPrefix(keys[key], "[") {
				keys[key] = "[]"
				ops = append(ops, obj("op", "replace", "path", "/list", "value", raw("[]")))
			}
			v := g.value(2)
			keys[key] = appendJSONArray(keys[key], v)
			ops = append(ops, obj("op", "add", "path", "/list/-", "value", raw(v)))
		}
	}
	return "[" + strings.Join(ops, ",") + "]"
}

func appendJSONArray(arr, v string) string {
	if arr == "[]" {
		return "[" + v + "]"
	}
	return arr[:len(arr)-1] + "," + v + "]"
}

func (g *gen) stateEvent() {
	if g.r.IntN(4) == 0 {
		keys := map[string]string{}
		content := g.content(keys)
		g.state = keys
		g.emit(obj("type", "STATE_SNAPSHOT", "snapshot", raw(content), "metadata", g.metadata()))
	} else {
		g.emit(obj("type", "STATE_DELTA", "delta", raw(g.patch(g.state, "")), "metadata", g.metadata()))
	}
	g.closeChunks()
}

// snapshot sends a MESSAGES_SNAPSHOT that keeps some known messages (with
// new content), adds new ones of several roles, and may land inside open
// streams.
func (g *gen) snapshot() {
	var msgs, ids []string
	for _, id := range g.msgIDs {
		if _, isActivity := g.activity[id]; isActivity || g.r.IntN(2) == 0 {
			continue
		}
		var own *string
		if o := g.owner[id]; o != "" {
			own = &o
		}
		msgs = append(msgs, obj("id", id, "role", "assistant", "content", g.text(), "subagentRunId", own, "metadata", g.metadata()))
		ids = append(ids, id)
	}
	hasActivity, hasReasoning := false, false
	var newActs []string
	for i := g.r.IntN(3); i > 0; i-- {
		id := g.id("s")
		switch g.r.IntN(6) {
		case 0:
			msgs = append(msgs, obj("id", id, "role", "user", "content", g.text(), "metadata", g.metadata()))
		case 1:
			msgs = append(msgs, obj("id", id, "role", "user", "content", raw(`[{"type":"text","text":`+quote(g.text())+`}]`)))
		case 2:
			tc := g.id("stc")
			msgs = append(msgs, obj("id", id, "role", "assistant", "toolCalls", raw("["+obj("id", tc, "type", "function", "function", raw(obj("name", "f", "arguments", "{}")), "metadata", g.metadata())+"]")))
		case 3:
			msgs = append(msgs, obj("id", id, "role", "reasoning", "content", g.text()))
			hasReasoning = true
		case 4:
			keys := map[string]string{}
			msgs = append(msgs, obj("id", id, "role", "activity", "activityType", "plan", "content", raw(g.content(keys))))
			g.activity[id] = keys
			newActs = append(newActs, id)
			hasActivity = true
		default:
			msgs = append(msgs, obj("id", id, "role", "system", "content", g.text()))
		}
		ids = append(ids, id)
	}
	g.emit(obj("type", "MESSAGES_SNAPSHOT", "messages", raw("["+strings.Join(msgs, ",")+"]"), "metadata", g.metadata()))
	// Track what is left: the ids the snapshot named, plus the activity and
	// reasoning messages the client keeps when the snapshot carries none.
	if hasActivity {
		for _, id := range g.actIDs {
			delete(g.activity, id)
		}
		g.actIDs = newActs
	} else {
		ids = append(ids, g.actIDs...)
	}
	_ = hasReasoning
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	filter := func(list []string) []string {
		var out []string
		for _, id := range list {
			if keep[id] {
				out = append(out, id)
			}
		}
		return out
	}
	g.msgIDs = ids
	g.assistant = filter(g.assistant)
}
