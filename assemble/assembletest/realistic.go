package assembletest

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

var words = strings.Fields(`the agent looked at the request and decided to search the catalogue first then
compare prices across three suppliers before writing a short answer with a table of options and a
recommendation based on delivery time cost and the user's stated preference for recycled materials`)

// Realistic returns a run shaped like a recorded agent turn: a user message
// in the input, a reasoning span streamed token by token, three tool calls
// whose JSON arguments stream in small pieces while an activity message and
// the state follow their progress, tool results, and a long answer streamed
// token by token with usage on its end, all inside steps — about 1,000
// events, deterministic for a seed.
func Realistic(seed uint64) Stream {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &gen{r: r}
	tok := func() string {
		w := words[r.IntN(len(words))]
		if r.IntN(8) == 0 {
			return " " + w + "."
		}
		return " " + w
	}
	ts := int64(1767225600000)
	at := func() raw {
		ts += int64(5 + r.IntN(40))
		return raw(strconv.FormatInt(ts, 10))
	}
	g.emit(obj("type", "RUN_STARTED", "timestamp", at(), "threadId", "thread-1", "runId", "run-1",
		"input", raw(obj("threadId", "thread-1", "runId", "run-1", "state", raw(`{}`),
			"messages", raw(`[{"id":"u1","role":"user","content":"Find me three suppliers of recycled packaging and compare them."}]`),
			"tools", raw(`[]`), "context", raw(`[]`))),
		"metadata", raw(`{"traceId":"trace-7f3a"}`)))
	g.emit(obj("type", "STEP_STARTED", "timestamp", at(), "stepName", "plan"))
	g.emit(obj("type", "STATE_SNAPSHOT", "timestamp", at(), "snapshot", raw(`{"phase":"planning","suppliers":[],"progress":0}`)))
	g.emit(obj("type", "REASONING_START", "timestamp", at(), "messageId", "rs1"))
	g.emit(obj("type", "REASONING_MESSAGE_START", "timestamp", at(), "messageId", "rm1", "role", "reasoning"))
	for i := 0; i < 150; i++ {
		g.emit(obj("type", "REASONING_MESSAGE_CONTENT", "timestamp", at(), "messageId", "rm1", "delta", tok()))
	}
	g.emit(obj("type", "REASONING_MESSAGE_END", "timestamp", at(), "messageId", "rm1", "metadata", raw(`{"ag-ui":{"usage":{"reasoningTokens":150}}}`)))
	g.emit(obj("type", "REASONING_END", "timestamp", at(), "messageId", "rs1"))
	g.emit(obj("type", "STEP_FINISHED", "timestamp", at(), "stepName", "plan"))
	g.emit(obj("type", "STEP_STARTED", "timestamp", at(), "stepName", "search"))
	g.emit(obj("type", "ACTIVITY_SNAPSHOT", "timestamp", at(), "messageId", "act1", "activityType", "search-progress",
		"content", raw(`{"done":0,"total":3,"log":[]}`)))
	g.emit(obj("type", "STATE_DELTA", "timestamp", at(), "delta", raw(`[{"op":"replace","path":"/phase","value":"searching"}]`)))
	for tc := 1; tc <= 3; tc++ {
		id := "call-" + strconv.Itoa(tc)
		g.emit(obj("type", "TOOL_CALL_START", "timestamp", at(), "toolCallId", id, "toolCallName", "search_suppliers", "parentMessageId", "a1",
			"metadata", raw(`{"provider":"openai"}`)))
		args := `{"query":"recycled packaging supplier ` + strconv.Itoa(tc) + `","region":"EU","max_results":10,"filters":{"certified":true}}`
		for len(args) > 0 {
			n := 2 + r.IntN(4)
			if n > len(args) {
				n = len(args)
			}
			g.emit(obj("type", "TOOL_CALL_ARGS", "timestamp", at(), "toolCallId", id, "delta", args[:n]))
			args = args[n:]
		}
		g.emit(obj("type", "TOOL_CALL_END", "timestamp", at(), "toolCallId", id, "metadata", raw(`{"latencyMs":`+strconv.Itoa(40+r.IntN(200))+`}`)))
		for i := 0; i < 8; i++ {
			g.emit(obj("type", "ACTIVITY_DELTA", "timestamp", at(), "messageId", "act1", "activityType", "search-progress",
				"patch", raw(`[{"op":"add","path":"/log/-","value":"`+id+` page `+strconv.Itoa(i)+`"}]`)))
			g.emit(obj("type", "STATE_DELTA", "timestamp", at(), "delta", raw(`[{"op":"replace","path":"/progress","value":`+strconv.Itoa((tc-1)*8+i+1)+`}]`)))
		}
		g.emit(obj("type", "TOOL_CALL_RESULT", "timestamp", at(), "messageId", "res-"+strconv.Itoa(tc), "toolCallId", id,
			"content", `{"suppliers":[{"name":"Supplier `+strconv.Itoa(tc)+`","price":`+strconv.Itoa(10+tc)+`.5}]}`, "metadata", raw(`{"cached":false}`)))
		g.emit(obj("type", "STATE_DELTA", "timestamp", at(), "delta", raw(`[{"op":"add","path":"/suppliers/-","value":{"name":"Supplier `+strconv.Itoa(tc)+`","price":`+strconv.Itoa(10+tc)+`.5}},{"op":"add","path":"/activity","value":"`+id+` done"}]`)))
		g.emit(obj("type", "ACTIVITY_DELTA", "timestamp", at(), "messageId", "act1", "activityType", "search-progress",
			"patch", raw(`[{"op":"replace","path":"/done","value":`+strconv.Itoa(tc)+`}]`)))
	}
	g.emit(obj("type", "STEP_FINISHED", "timestamp", at(), "stepName", "search"))
	g.emit(obj("type", "STEP_STARTED", "timestamp", at(), "stepName", "answer"))
	g.emit(obj("type", "STATE_DELTA", "timestamp", at(), "delta", raw(`[{"op":"replace","path":"/phase","value":"answering"}]`)))
	g.emit(obj("type", "TEXT_MESSAGE_START", "timestamp", at(), "messageId", "a2", "role", "assistant", "metadata", raw(`{"source":"openai","model":"gpt-x"}`)))
	for i := 0; i < 600; i++ {
		g.emit(obj("type", "TEXT_MESSAGE_CONTENT", "timestamp", at(), "messageId", "a2", "delta", tok()))
	}
	g.emit(obj("type", "TEXT_MESSAGE_END", "timestamp", at(), "messageId", "a2",
		"metadata", raw(`{"finishReason":"stop","ag-ui":{"usage":{"inputTokens":1200,"outputTokens":600}}}`)))
	g.emit(obj("type", "STATE_DELTA", "timestamp", at(), "delta", raw(`[{"op":"replace","path":"/phase","value":"done"},{"op":"remove","path":"/activity"}]`)))
	g.emit(obj("type", "STEP_FINISHED", "timestamp", at(), "stepName", "answer"))
	g.emit(obj("type", "RUN_FINISHED", "timestamp", at(), "threadId", "thread-1", "runId", "run-1",
		"result", raw(`{"suppliers":3}`), "outcome", raw(`{"type":"success"}`),
		"usage", raw(`[{"provider":"openai","model":"gpt-x","inputTokens":1200,"outputTokens":750,"totalTokens":1950}]`),
		"metadata", raw(`{"traceId":"trace-7f3a"}`)))
	return g.stream()
}
