package corpus

import (
	"bytes"
	"fmt"
	"sync"
)

// RunEvents is the size of the recorded-style run: it stops at the end of the
// first agent run that brings the total to at least this many events.
const RunEvents = 85_000

var (
	runOnce sync.Once
	runData [][]byte
)

// Run returns the recorded-style run, one AG-UI JSON event per element: a
// thread of several hundred agent runs as a production agent streams them —
// run and step lifecycle, reasoning, streamed text in token-sized deltas,
// tool calls with streamed arguments and JSON results, state snapshots and
// JSON Patch deltas, activity cards, a messages snapshot per run, custom
// events, usage on every finished message and run, and provider metadata.
// The slices are shared: do not modify them.
func Run() [][]byte {
	runOnce.Do(func() { runData = buildRun(RunEvents) })
	return runData
}

// RunJSONL returns the run as JSON lines.
func RunJSONL() []byte {
	var b bytes.Buffer
	for _, ev := range Run() {
		b.Write(ev)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func buildRun(target int) [][]byte {
	g := newGen(2026)
	var out [][]byte
	emit := func(format string, args ...any) {
		out = append(out, fmt.Appendf(nil, format, args...))
	}
	ts := int64(1773411600000)
	tick := func() int64 { ts += int64(5 + g.r.IntN(40)); return ts }
	const thread = "thread_8Fq2Lm"
	var history []string // JSON of the messages so far (the last 12 are kept)
	keep := func(m string) {
		history = append(history, m)
		if len(history) > 12 {
			history = history[len(history)-12:]
		}
	}
	models := []string{"gpt-4o-2024-08-06", "claude-sonnet-4-5", "gemini-2.5-pro"}
	for run := 0; len(out) < target; run++ {
		runID := fmt.Sprintf("run_%05d", run)
		model := models[run%len(models)]
		user := g.text(40 + g.r.IntN(200))
		userMsg := fmt.Sprintf(`{"id":"msg_u%05d","role":"user","content":%s}`, run, Quote(user))
		keep(userMsg)
		emit(`{"type":"RUN_STARTED","threadId":%q,"runId":%q,"timestamp":%d}`, thread, runID, tick())
		emit(`{"type":"STEP_STARTED","stepName":"agent","timestamp":%d}`, tick())
		if run%10 == 0 {
			var b bytes.Buffer
			b.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":{"status":"thinking","run":` + fmt.Sprint(run) + `,"itinerary":[`)
			for i := range 6 {
				if i > 0 {
					b.WriteByte(',')
				}
				g.stateItem(&b, i)
			}
			fmt.Fprintf(&b, `],"draft":null},"timestamp":%d}`, tick())
			out = append(out, b.Bytes())
		}

		// Reasoning.
		rsn := fmt.Sprintf("rsn_%05d", run)
		emit(`{"type":"REASONING_START","messageId":%q,"timestamp":%d,"metadata":{"effort":"medium"}}`, rsn, tick())
		emit(`{"type":"REASONING_MESSAGE_START","messageId":%q,"role":"reasoning"}`, rsn)
		for range 10 + g.r.IntN(30) {
			emit(`{"type":"REASONING_MESSAGE_CONTENT","messageId":%q,"delta":%s}`, rsn, Quote(g.text(8+g.r.IntN(30))))
		}
		emit(`{"type":"REASONING_MESSAGE_END","messageId":%q}`, rsn)
		emit(`{"type":"REASONING_END","messageId":%q,"metadata":{"reasoningTokens":%d}}`, rsn, 20+g.r.IntN(300))

		// Tool calls, each with streamed arguments and a JSON result.
		asst := fmt.Sprintf("msg_a%05d", run)
		for c := range g.r.IntN(4) {
			call := fmt.Sprintf("call_%05d_%d", run, c)
			emit(`{"type":"TOOL_CALL_START","toolCallId":%q,"toolCallName":"get_forecast","parentMessageId":%q,"timestamp":%d}`, call, asst, tick())
			args := fmt.Sprintf(`{"city":%s,"date":"2026-03-%02d","unit":"celsius","hourly":%t}`, Quote(g.text(6+g.r.IntN(10))), 1+g.r.IntN(28), g.r.IntN(2) == 0)
			for len(args) > 0 {
				n := min(len(args), 4+g.r.IntN(12))
				for n < len(args) && args[n]&0xC0 == 0x80 { // keep UTF-8 sequences whole
					n++
				}
				emit(`{"type":"TOOL_CALL_ARGS","toolCallId":%q,"delta":%s}`, call, Quote(args[:n]))
				args = args[n:]
			}
			emit(`{"type":"TOOL_CALL_END","toolCallId":%q,"timestamp":%d,"metadata":{"provider":"openai","latencyMs":%d}}`, call, tick(), 40+g.r.IntN(400))
			var res bytes.Buffer
			res.WriteString(`{"hours":[`)
			for h := range 4 + g.r.IntN(20) {
				if h > 0 {
					res.WriteByte(',')
				}
				fmt.Fprintf(&res, `{"h":%d,"tempC":%d.%d,"precip":0.%d,"sky":%q}`, h, 5+g.r.IntN(20), 1+g.r.IntN(9), 1+g.r.IntN(9), []string{"clear", "cloudy", "showers"}[g.r.IntN(3)])
			}
			res.WriteString(`]}`)
			result := fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":"msg_t%05d_%d","toolCallId":%q,"content":%s,"role":"tool","timestamp":%d,"metadata":{"durationMs":%d,"cache":"miss"}}`,
				run, c, call, Quote(res.String()), tick(), 100+g.r.IntN(900))
			out = append(out, []byte(result))
			keep(fmt.Sprintf(`{"id":"msg_t%05d_%d","role":"tool","content":%s,"toolCallId":%q}`, run, c, Quote(res.String()), call))
		}

		// State changes.
		var d bytes.Buffer
		d.WriteString(`{"type":"STATE_DELTA","delta":[`)
		for i := range 3 + g.r.IntN(6) {
			if i > 0 {
				d.WriteByte(',')
			}
			g.patchOp(&d, i)
		}
		fmt.Fprintf(&d, `],"timestamp":%d}`, tick())
		out = append(out, d.Bytes())
		if run%3 == 0 {
			emit(`{"type":"ACTIVITY_SNAPSHOT","messageId":"act_%05d","activityType":"forecast_card","content":{"city":"Lisbon","highC":%d,"lowC":%d,"icon":"showers","precipProb":0.%d},"replace":true}`,
				run, 10+g.r.IntN(15), g.r.IntN(10), 1+g.r.IntN(9))
		}

		// The answer, streamed in token-sized deltas.
		emit(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant","timestamp":%d}`, asst, tick())
		var answer bytes.Buffer
		for range 60 + g.r.IntN(160) {
			delta := g.text(2 + g.r.IntN(14))
			answer.WriteString(delta)
			emit(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":%s}`, asst, Quote(delta))
		}
		in, outTok := 800+g.r.IntN(3000), 40+g.r.IntN(400)
		emit(`{"type":"TEXT_MESSAGE_END","messageId":%q,"timestamp":%d,"metadata":{"ag-ui":{"usage":{"inputTokens":%d,"outputTokens":%d}},"finishReason":"stop","model":%q}}`,
			asst, tick(), in, outTok, model)
		keep(fmt.Sprintf(`{"id":%q,"role":"assistant","content":%s,"metadata":{"finishReason":"stop"}}`, asst, Quote(answer.String())))

		var snap bytes.Buffer
		snap.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
		for i, m := range history {
			if i > 0 {
				snap.WriteByte(',')
			}
			snap.WriteString(m)
		}
		snap.WriteString(`]}`)
		out = append(out, snap.Bytes())
		if run%4 == 0 {
			emit(`{"type":"CUSTOM","name":"suggested_replies","value":{"replies":["Hourly forecast","Weekend outlook","Convert to °F"]},"metadata":{"channel":"ui"}}`)
		}
		emit(`{"type":"STEP_FINISHED","stepName":"agent","timestamp":%d,"metadata":{"durationMs":%d}}`, tick(), 500+g.r.IntN(4000))
		emit(`{"type":"RUN_FINISHED","threadId":%q,"runId":%q,"outcome":{"type":"success"},"usage":[{"provider":"openai","model":%q,"inputTokens":%d,"outputTokens":%d,"totalTokens":%d}],"timestamp":%d}`,
			thread, runID, model, in, outTok, in+outTok, tick())
	}
	return out
}
