package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

const benchSynopsis = `Bench measures, on this machine, what one event costs to encode and to decode
with agwire, with the protobuf runtime on the generated types (protobuf-go,
gen/aguipb) and with encoding/json on a generic value (what a JSON/SSE server
without AG-UI types does), and, when node and the pinned TypeScript peer
(@ag-ui/proto, installed by "npm ci" in interop/) are found, with the
TypeScript peer in node. Every implementation gets the same events.

The inputs are built in (a short text delta, a message end with metadata, a
state delta of 20 operations, a messages snapshot of 5 messages, and the demo
run) unless -i names a file of JSON events, one per line, which is then
measured as one input.

Each figure is the median of 5 timed batches, per event; the ratios divide
the other implementation's time by agwire's (above 1: agwire is faster).
Allocations are per event. The machine's other load moves the figures: for
comparisons that matter, use the benchmarks in bench/ (bench/run.sh).`

const benchExample = `  agwire bench
  agwire bench --time 1s
  agwire bench -i run.jsonl --node=false
`

// benchInput is one measured input: one or more events in every form.
type benchInput struct {
	name   string
	json   [][]byte
	events []event.Event
	wire   [][]byte
	pb     []*aguipb.Event
	any    []any
}

// benchResult is one implementation's cost on one input, per event.
type benchResult struct {
	encNs, decNs         float64
	encAllocs, decAllocs float64 // -1: not measured
}

func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("bench", benchSynopsis, benchExample, stdin, stdout, stderr)
	c.fs.StringVar(&c.in, "i", "", "measure the JSON events of `FILE`, one per line, instead of the built-in inputs")
	budget := c.fs.Duration("time", 250*time.Millisecond, "time to spend on each measurement (`DURATION`)")
	useNode := c.fs.Bool("node", true, "also time the TypeScript peer when node and interop/node_modules are found")
	peerDir := c.fs.String("peer-dir", "", "the `DIR` whose node_modules holds @ag-ui/proto 1.0.0 (default: interop/\nin this directory or a parent)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	inputs, err := benchInputs(c.in)
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}

	var peer []benchResult
	peerNote := "TypeScript peer: not measured (--node=false)"
	if *useNode {
		dir := *peerDir
		if dir == "" {
			dir = findPeerDir()
		}
		switch {
		case dir == "":
			peerNote = "TypeScript peer: not measured (no interop/node_modules/@ag-ui/proto here or above; run npm ci in interop/, or pass --peer-dir)"
		default:
			if _, err := exec.LookPath("node"); err != nil {
				peerNote = "TypeScript peer: not measured (node not found)"
				break
			}
			peer, err = benchPeer(dir, inputs, *budget)
			if err != nil {
				peerNote = "TypeScript peer: not measured: " + err.Error()
				peer = nil
			} else {
				peerNote = "TypeScript peer: @ag-ui/proto 1.0.0 in node, in process (start-up excluded), from " + dir
			}
		}
	}

	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(c.stdout, "agwire bench: %s/%s, %d CPUs, %s; per event, median of 5 batches\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintln(tw, "input\top\tagwire\tallocs\tprotobuf-go\tallocs\tencoding/json\tTS peer\t÷ protobuf-go\t÷ encoding/json\t÷ TS peer\t")
	for i, in := range inputs {
		ag, pb, js := benchAgwire(in, *budget), benchProtobuf(in, *budget), benchJSON(in, *budget)
		for _, op := range []string{"encode", "decode"} {
			get := func(r benchResult) (float64, float64) {
				if op == "encode" {
					return r.encNs, r.encAllocs
				}
				return r.decNs, r.decAllocs
			}
			a, aAllocs := get(ag)
			p, pAllocs := get(pb)
			j, _ := get(js)
			ts, tsText, tsRatio := 0.0, "—", "—"
			if peer != nil {
				ts, _ = get(peer[i])
				tsText, tsRatio = fmtNs(ts), fmt.Sprintf("%.1f×", ts/a)
			}
			name := in.name
			if op == "decode" {
				name = ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%.1f\t%s\t%s\t%.1f×\t%.1f×\t%s\t\n", name, op, fmtNs(a), aAllocs, fmtNs(p), pAllocs, fmtNs(j), tsText, p/a, j/a, tsRatio)
		}
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "\n%s\n", peerNote)
	fmt.Fprintln(c.stdout, "÷ X: X's time divided by agwire's (above 1: agwire is faster). encoding/json works on a generic value\n(map[string]any), the JSON text an SSE stream carries, without the \"data:\" framing.")
	return exitOK
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// benchInputs returns the built-in inputs, or the events of file.
func benchInputs(file string) ([]*benchInput, error) {
	type src struct {
		name  string
		lines [][]byte
	}
	var srcs []src
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src{filepath.Base(file), jsonLines(data)})
	} else {
		var delta strings.Builder
		delta.WriteString(`{"type":"STATE_DELTA","delta":[`)
		for i := range 20 {
			if i > 0 {
				delta.WriteByte(',')
			}
			switch i % 4 {
			case 0:
				fmt.Fprintf(&delta, `{"op":"replace","path":"/progress","value":0.%d}`, i+1)
			case 1:
				fmt.Fprintf(&delta, `{"op":"add","path":"/steps/-","value":{"id":%d,"title":"Step %d","done":false}}`, i, i)
			case 2:
				fmt.Fprintf(&delta, `{"op":"remove","path":"/draft/%d"}`, i)
			default:
				fmt.Fprintf(&delta, `{"op":"replace","path":"/status","value":"working on %d"}`, i)
			}
		}
		delta.WriteString(`]}`)
		srcs = []src{
			{"text delta", [][]byte{[]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_01JD8Y3K2V","delta":"The capital of South Korea is Seoul, a "}`)}},
			{"end+metadata", [][]byte{[]byte(`{"type":"TEXT_MESSAGE_END","messageId":"msg_01JD8Y3K2V","metadata":{"ag-ui":{"usage":{"inputTokens":1183,"outputTokens":341}},"finishReason":"stop","model":"gpt-4o-2024-08-06","traceId":"4bf92f3577b34da6","latencyMs":812.5,"cached":false,"labels":["prod","eu-west-1"],"parentRunId":null}}`)}},
			{"state delta×20", [][]byte{[]byte(delta.String())}},
			{"snapshot×5", [][]byte{[]byte(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"system","content":"You are a travel agent."},{"id":"m2","role":"user","content":"Find me a flight to Seoul next Friday."},{"id":"m3","role":"assistant","content":"Looking up flights.","toolCalls":[{"id":"call_1","type":"function","function":{"name":"search_flights","arguments":"{\"to\":\"ICN\",\"date\":\"2026-12-11\"}"},"metadata":{"provider":"anthropic","latencyMs":84}}]},{"id":"m4","role":"tool","content":"[{\"flight\":\"KE082\",\"price\":812.4}]","toolCallId":"call_1"},{"id":"m5","role":"assistant","content":"KE082 departs at 13:00 for $812.40.","metadata":{"finishReason":"stop"}}]}`)}},
		}
		lines := jsonLines(demoRun)
		srcs = append(srcs, src{fmt.Sprintf("demo run (%d)", len(lines)), lines})
	}
	var out []*benchInput
	for _, s := range srcs {
		in := &benchInput{name: s.name}
		for n, line := range s.lines {
			ev, err := event.Parse(line)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", s.name, n+1, err)
			}
			wire, err := codec.Append(nil, ev)
			if errors.Is(err, event.ErrUnsupportedEvent) {
				continue // no protobuf form: not part of a binary comparison
			}
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", s.name, n+1, err)
			}
			m := new(aguipb.Event)
			if err := proto.Unmarshal(wire, m); err != nil {
				return nil, fmt.Errorf("%s: line %d: protobuf-go: %w", s.name, n+1, err)
			}
			var v any
			if err := json.Unmarshal(line, &v); err != nil {
				return nil, fmt.Errorf("%s: line %d: encoding/json: %w", s.name, n+1, err)
			}
			in.json = append(in.json, line)
			in.events = append(in.events, ev)
			in.wire = append(in.wire, wire)
			in.pb = append(in.pb, m)
			in.any = append(in.any, v)
		}
		if len(in.events) == 0 {
			return nil, fmt.Errorf("%s: no event with a protobuf form", s.name)
		}
		out = append(out, in)
	}
	return out, nil
}

func jsonLines(data []byte) [][]byte {
	var out [][]byte
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// measure times pass (one pass over all events) and returns the median of
// 5 batches and the allocations of one pass, both per event.
func measure(events int, budget time.Duration, pass func()) (ns, allocs float64) {
	pass() // warm up
	n, start := 1, time.Now()
	pass()
	one := time.Since(start)
	if batch := budget / 5; one < batch {
		n = int(batch / max(one, time.Nanosecond))
	}
	var times []float64
	for range 5 {
		start := time.Now()
		for range n {
			pass()
		}
		times = append(times, float64(time.Since(start).Nanoseconds())/float64(n))
	}
	slices.Sort(times)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		pass()
	}
	runtime.ReadMemStats(&after)
	return times[2] / float64(events), float64(after.Mallocs-before.Mallocs) / float64(10*events)
}

func benchAgwire(in *benchInput, budget time.Duration) (r benchResult) {
	var buf []byte
	r.encNs, r.encAllocs = measure(len(in.events), budget, func() {
		for _, ev := range in.events {
			buf, _ = codec.Append(buf[:0], ev)
		}
	})
	r.decNs, r.decAllocs = measure(len(in.events), budget, func() {
		for _, w := range in.wire {
			codec.Unmarshal(w)
		}
	})
	return r
}

func benchProtobuf(in *benchInput, budget time.Duration) (r benchResult) {
	var buf []byte
	r.encNs, r.encAllocs = measure(len(in.events), budget, func() {
		for _, m := range in.pb {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], m)
		}
	})
	r.decNs, r.decAllocs = measure(len(in.events), budget, func() {
		for _, w := range in.wire {
			proto.Unmarshal(w, new(aguipb.Event))
		}
	})
	return r
}

func benchJSON(in *benchInput, budget time.Duration) (r benchResult) {
	r.encNs, r.encAllocs = measure(len(in.events), budget, func() {
		for _, v := range in.any {
			json.Marshal(v)
		}
	})
	r.decNs, r.decAllocs = measure(len(in.events), budget, func() {
		for _, js := range in.json {
			var v any
			json.Unmarshal(js, &v)
		}
	})
	return r
}

// findPeerDir looks for interop/node_modules/@ag-ui/proto in the working
// directory and its parents.
func findPeerDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "interop")
		if _, err := os.Stat(filepath.Join(cand, "node_modules", "@ag-ui", "proto", "package.json")); err == nil {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// peerScript times @ag-ui/proto's encode (plus a 4-byte length prefix) and
// decode in node on the inputs given as JSON on stdin; it prints one result
// per input as JSON. It is run in the peer directory so that @ag-ui/proto
// resolves from its node_modules.
const peerScript = `
import { createRequire } from "node:module";
const require = createRequire(process.cwd() + "/");
const proto = require("@ag-ui/proto");
const version = require("@ag-ui/proto/package.json").version;
if (version !== "1.0.0") { console.error("@ag-ui/proto is " + version + ", want 1.0.0"); process.exit(2); }
console.warn = () => {};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { ms, inputs } = JSON.parse(input);
function measure(events, pass) {
  // Warm up (the JIT compiles hot code after some runs) for a fifth of the budget.
  let t = process.hrtime.bigint();
  do pass(); while (Number(process.hrtime.bigint() - t) < ms * 1e6 / 5);
  let n = 1;
  t = process.hrtime.bigint(); pass();
  const one = Number(process.hrtime.bigint() - t);
  const batch = ms * 1e6 / 5;
  if (one < batch) n = Math.max(1, Math.floor(batch / Math.max(one, 1)));
  const times = [];
  for (let b = 0; b < 5; b++) {
    t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) pass();
    times.push(Number(process.hrtime.bigint() - t) / n);
  }
  times.sort((a, b) => a - b);
  return times[2] / events;
}
const out = inputs.map((lines) => {
  const events = lines.map((l) => JSON.parse(l));
  const payloads = events.map((e) => proto.encode(e));
  const encNs = measure(events.length, () => {
    for (const e of events) {
      const p = proto.encode(e);
      const f = new Uint8Array(4 + p.length);
      new DataView(f.buffer).setUint32(0, p.length, false);
      f.set(p, 4);
    }
  });
  const decNs = measure(events.length, () => { for (const p of payloads) proto.decode(p); });
  return { encNs, decNs };
});
process.stdout.write(JSON.stringify(out));
`

func benchPeer(dir string, inputs []*benchInput, budget time.Duration) ([]benchResult, error) {
	req := struct {
		MS     float64    `json:"ms"`
		Inputs [][]string `json:"inputs"`
	}{MS: float64(budget.Milliseconds())}
	for _, in := range inputs {
		var lines []string
		for _, js := range in.json {
			lines = append(lines, string(js))
		}
		req.Inputs = append(req.Inputs, lines)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", "--input-type=module", "-e", peerScript)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var res []struct{ EncNs, DecNs float64 }
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, err
	}
	if len(res) != len(inputs) {
		return nil, fmt.Errorf("node returned %d results for %d inputs", len(res), len(inputs))
	}
	var rs []benchResult
	for _, x := range res {
		rs = append(rs, benchResult{encNs: x.EncNs, decNs: x.DecNs, encAllocs: -1, decAllocs: -1})
	}
	return rs, nil
}
