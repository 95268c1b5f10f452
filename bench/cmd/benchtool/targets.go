package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The targets of the compiled core, each measured in one run of bench/run.sh
// (CPU-time medians of the side-by-side rounds, the pipeline's events/s,
// the end-to-end medians), with the figures recorded before the work on them
// began. targets builds them from the parsed results; report renders them
// and missedProfiles names the benchmark to profile for each missed row.

// Every per-input target covers the inputs of caseOrder but these, which
// are shown beside them and do not count.
var shownCases = map[string]bool{"Snapshot1M": true}

// baselineLabel heads the column of the figures recorded before the work.
const baselineLabel = "issue baseline (2026-12, load < 1)"

// The issue baseline: the ratios recorded when the targets were set, on an
// unloaded machine. A case missing from a map had no figure recorded.
var (
	baselineDecode = map[string]float64{"SmallText": 0.88, "EndMetadata": 1.26, "StateDelta20": 1.08, "Snapshot5": 1.08, "Snapshot200": 1.08, "State64K": 1.51, "Run": 0.90}
	baselineEncode = map[string]float64{"SmallText": 0.97, "EndMetadata": 1.29, "StateDelta20": 1.85, "Snapshot5": 1.44, "Snapshot200": 1.48, "State64K": 2.19, "Run": 0.65}
	// JSON → frame ÷ typed encode: 4.6 on SmallText, "4.1–4.9" on the two
	// message snapshots.
	baselineJSON = map[string]float64{"SmallText": 4.6, "Snapshot5": 4.1, "Snapshot200": 4.9}
	// event.Parse ÷ frame decode: recorded only as 1.6–2.1 over all inputs.
	baselineParse = map[string]float64{}
	// End to end, node ÷ the CLI.
	baselineE2E = map[string]float64{e2eEncode: 20.3, e2eDecode: 19.7}
)

const (
	e2eEncode = "JSON lines → frames"
	e2eDecode = "frames → JSON lines"
)

// target is one kind of target: a table of rows, each a value compared
// with one bound.
type target struct {
	title   string // the heading
	note    string // a paragraph under the heading
	bound   float64
	atLeast bool // met when value ≥ bound; otherwise when value ≤ bound

	// Column headings; an empty numLabel or denLabel leaves that column out.
	rowLabel, numLabel, denLabel, valueLabel, extraLabel string
	fmtSide                                              func(float64) string // num and den
	// Values, bounds and baselines print as value/scale with digits
	// decimals and suffix.
	scale  float64
	digits int
	suffix string
	rows   []targetRow
}

// targetRow is one input (or direction) of a target.
type targetRow struct {
	label    string
	num, den float64 // what the value is computed from (NaN: not measured)
	value    float64 // compared with the bound; NaN when not measured
	extra    float64 // an extra figure for information (NaN: none)
	baseline float64 // the issue baseline (NaN: none recorded)
	counted  bool    // false: shown, but not part of the target
	bench    string  // -test.bench pattern that measures the row, for its profile
	profile  string  // the profile's file name in results/
}

// met reports whether v meets the bound. A value at the bound meets it; the
// tolerance only absorbs the rounding of a division.
func (t *target) met(v float64) bool {
	eps := 1e-9 * math.Abs(t.bound)
	if t.atLeast {
		return v >= t.bound-eps
	}
	return v <= t.bound+eps
}

// verdict is "met", "missed", "—" (not measured) or "for information".
func (t *target) verdict(r targetRow) string {
	switch {
	case math.IsNaN(r.value) || math.IsInf(r.value, 0):
		return "—"
	case !r.counted:
		return "for information"
	case t.met(r.value):
		return "met"
	}
	return "missed"
}

// num spells v in the target's unit with the given number of decimals.
func (t *target) num(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(v/t.scale, 'f', digits, 64) + t.suffix
}

// fmtValue spells a value, bound or baseline.
func (t *target) fmtValue(v float64) string { return t.num(v, t.digits) }

// valueText spells a row's value; a value that misses the bound but would
// print as the bound takes as many more decimals as it needs to differ.
func (t *target) valueText(v float64) string {
	s := t.fmtValue(v)
	if math.IsNaN(v) || math.IsInf(v, 0) || t.met(v) || s != t.fmtValue(t.bound) {
		return s
	}
	for d := t.digits + 1; d <= 12; d++ {
		if s := t.num(v, d); s != t.num(t.bound, d) {
			return s
		}
	}
	return s
}

// e2eResult is one direction of results/e2e.md: the medians in ms.
type e2eResult struct{ agwire, node float64 }

// parseE2E reads the table benchtool e2e writes. A missing file or row
// gives no entry.
func parseE2E(path string) map[string]e2eResult {
	out := map[string]e2eResult{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	ms := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "ms")), 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		cells := strings.Split(strings.Trim(strings.TrimSpace(sc.Text()), "|"), "|")
		if len(cells) < 3 {
			continue
		}
		dir := strings.TrimSpace(cells[0])
		if dir == e2eEncode || dir == e2eDecode {
			out[dir] = e2eResult{agwire: ms(cells[1]), node: ms(cells[2])}
		}
	}
	return out
}

// sideBench is the -test.bench pattern of one side-by-side benchmark.
func sideBench(c, op, impl string) string {
	return "^BenchmarkSide$/^case=" + regexp.QuoteMeta(c) + "$/^op=" + op + "$/^impl=" + regexp.QuoteMeta(impl) + "$"
}

// sideProfile names the profile of one side-by-side benchmark.
func sideProfile(c, op, impl string) string {
	return "profile-" + c + "-" + op + "-" + impl + ".txt"
}

func pipelineName(dir string, workers int) string {
	return fmt.Sprintf("BenchmarkPipeline/%s/workers=%d", dir, workers)
}

func pipelineBench(dir string, workers int) string {
	return fmt.Sprintf("^BenchmarkPipeline$/^%s$/^workers=%d$", dir, workers)
}

func pipelineProfile(dir string, workers int) string {
	return fmt.Sprintf("profile-Pipeline-%s-workers%d.txt", dir, workers)
}

func baseline(m map[string]float64, key string) float64 {
	if v, ok := m[key]; ok {
		return v
	}
	return math.NaN()
}

func nan() float64 { return math.NaN() }

// targets builds every target's table from the results of one run and the
// end-to-end table (dir/e2e.md).
func targets(r results, e2e map[string]e2eResult) []*target {
	perEvent := func(c, op, impl string) float64 { return r.cpu(side(c, op, impl)) / events(c) }
	// byCase builds a per-input table: num's impl ÷ den's impl for op.
	byCase := func(t *target, op, num, den string, base map[string]float64, extra func(c string) float64) *target {
		for _, c := range caseOrder {
			n, d := perEvent(c, op, num), perEvent(c, op, den)
			x := nan()
			if extra != nil {
				x = extra(c)
			}
			t.rows = append(t.rows, targetRow{
				label: c, num: n, den: d, value: n / d, extra: x, baseline: baseline(base, c),
				counted: !shownCases[c], bench: sideBench(c, op, num), profile: sideProfile(c, op, num),
			})
		}
		return t
	}
	vsVT := func(op string) func(c string) float64 {
		return func(c string) float64 { return perEvent(c, op, "agwire-codec") / perEvent(c, op, "vtproto") }
	}
	out := []*target{
		byCase(&target{
			title:    "Target: decode ≤ 1.0× vtproto+utf8",
			note:     "`agwire-codec`'s decode (`codec.Unmarshal` of each payload, split from the stream beforehand as vtproto's are) ÷ `vtproto+utf8`'s (vtproto's `UnmarshalVT` plus the UTF-8 check of every string, which agwire must make), CPU time per event. The ratio to plain vtproto is for information. The issue's baseline was measured with the `agwire` row (through `framing.Reader`, one more copy of every frame).",
			bound:    1.0,
			rowLabel: "Input", numLabel: "agwire-codec", denLabel: "vtproto+utf8", valueLabel: "agwire-codec ÷ vtproto+utf8", extraLabel: "agwire-codec ÷ vtproto (information)",
			fmtSide: fmtTime, scale: 1, digits: 2, suffix: "×",
		}, "Decode", "agwire-codec", "vtproto+utf8", baselineDecode, vsVT("Decode")),
		byCase(&target{
			title:    "Target: encode ≤ 1.2× vtproto+utf8",
			note:     "`agwire-codec`'s encode (`codec.Append` after a reused buffer's length prefix, as vtproto's) ÷ `vtproto+utf8`'s, CPU time per event. The ratio to plain vtproto is for information. The issue's baseline was measured with the `agwire` row (through `framing.Writer`).",
			bound:    1.2,
			rowLabel: "Input", numLabel: "agwire-codec", denLabel: "vtproto+utf8", valueLabel: "agwire-codec ÷ vtproto+utf8", extraLabel: "agwire-codec ÷ vtproto (information)",
			fmtSide: fmtTime, scale: 1, digits: 2, suffix: "×",
		}, "Encode", "agwire-codec", "vtproto+utf8", baselineEncode, vsVT("Encode")),
		byCase(&target{
			title:    "Target: JSON → frame ≤ 2× the typed encode",
			note:     "`agwire-json`'s encode (`framing.Writer.WriteJSON`, AG-UI JSON text to a frame) ÷ `agwire`'s (a Go event to a frame), CPU time per event. The issue recorded 4.1–4.9 for the two message snapshots without saying which was which: 4.1 and 4.9 are shown.",
			bound:    2.0,
			rowLabel: "Input", numLabel: "agwire-json encode", denLabel: "agwire encode", valueLabel: "JSON → frame ÷ typed encode",
			fmtSide: fmtTime, scale: 1, digits: 2, suffix: "×",
		}, "Encode", "agwire-json", "agwire", baselineJSON, nil),
		byCase(&target{
			title:    "Target: `event.Parse` ≤ 1.3× the frame decode",
			note:     "`agwire-sse`'s decode (`event.Parse` of the SSE block's JSON) ÷ `agwire-codec`'s (`codec.Unmarshal` of the payload; both are handed one event's bytes), CPU time per event. The issue recorded 1.6–2.1 over all inputs, no figure per input; the earlier raw files (`raw-*.txt`, `REPORT.md`) measured the codec alone, not `event.Parse`.",
			bound:    1.3,
			rowLabel: "Input", numLabel: "event.Parse", denLabel: "agwire decode", valueLabel: "event.Parse ÷ frame decode",
			fmtSide: fmtTime, scale: 1, digits: 2, suffix: "×",
		}, "Decode", "agwire-sse", "agwire-codec", baselineParse, nil),
	}

	e := &target{
		title:    "Target: end to end ≥ 25× the TypeScript peer",
		note:     "The whole recorded run through `agwire encode`/`decode` and through node with `@ag-ui/proto` (`results/e2e.md`): node's median time ÷ the CLI's. A missed row links the profile of the pipeline on two workers, which is what the CLI runs.",
		bound:    25,
		atLeast:  true,
		rowLabel: "Direction", numLabel: "node + @ag-ui/proto", denLabel: "agwire CLI", valueLabel: "node ÷ agwire",
		fmtSide: fmtMS, scale: 1, digits: 1, suffix: "×",
	}
	for _, d := range []struct{ name, dir string }{{e2eEncode, "encode"}, {e2eDecode, "decode"}} {
		res, ok := e2e[d.name]
		if !ok {
			res = e2eResult{nan(), nan()}
		}
		e.rows = append(e.rows, targetRow{
			label: d.name, num: res.node, den: res.agwire, value: res.node / res.agwire, extra: nan(),
			baseline: baseline(baselineE2E, d.name), counted: true,
			bench: pipelineBench(d.dir, 2), profile: pipelineProfile(d.dir, 2),
		})
	}
	out = append(out, e)

	p := &target{
		title:    "Target: JSON lines → frames ≥ 4 M events/s on 2 cores",
		note:     "`BenchmarkPipeline` (`pipeline_test.go`, `results/pipeline.txt`): the recorded run through `agwire encode`/`decode` (`cli.Main`) on GOMAXPROCS workers, median events per second of wall time. Only encode on two workers is the target; the other rows are for information.",
		bound:    4e6,
		atLeast:  true,
		rowLabel: "Direction", valueLabel: "events/s",
		scale: 1e6, digits: 2, suffix: " M",
	}
	for _, dir := range []string{"encode", "decode"} {
		for _, w := range []int{1, 2} {
			v := r.get(pipelineName(dir, w), "events/s")
			p.rows = append(p.rows, targetRow{
				label: fmt.Sprintf("%s, %d workers", dir, w), num: nan(), den: nan(), value: v, extra: nan(), baseline: nan(),
				counted: dir == "encode" && w == 2, bench: pipelineBench(dir, w), profile: pipelineProfile(dir, w),
			})
		}
	}
	out = append(out, p)
	return out
}

func fmtMS(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f ms", v)
}

// missedProfile is a benchmark to profile and the file its profile goes to.
type missedProfile struct{ bench, file string }

// missedProfiles lists, once each, the benchmarks of the missed rows.
func missedProfiles(ts []*target) []missedProfile {
	var out []missedProfile
	seen := map[string]bool{}
	for _, t := range ts {
		for _, row := range t.rows {
			if t.verdict(row) != "missed" || seen[row.profile] {
				continue
			}
			seen[row.profile] = true
			out = append(out, missedProfile{row.bench, row.profile})
		}
	}
	return out
}

// missed prints "pattern<TAB>file" for each benchmark bench/run.sh should
// profile: the rows that missed their target in the raw output given (the
// end-to-end table is read from beside the first file).
func missed(w *os.File, raw []string) error {
	if len(raw) == 0 {
		return fmt.Errorf("missed: no raw benchmark output given")
	}
	r, err := parse(raw)
	if err != nil {
		return err
	}
	for _, m := range missedProfiles(targets(r, parseE2E(filepath.Join(filepath.Dir(raw[0]), "e2e.md")))) {
		fmt.Fprintf(w, "%s\t%s\n", m.bench, m.file)
	}
	return nil
}

// writeTargets renders each target as a table; a missed row links its
// profile when profileDir holds it (link gives the link's path).
func writeTargets(b *strings.Builder, ts []*target, profileDir string, link func(string) string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, t := range ts {
		w("#### %s\n\n%s\n\n", t.title, t.note)
		var met, missed, unmeasured int
		var missedRows []string
		for _, row := range t.rows {
			if !row.counted {
				continue
			}
			switch t.verdict(row) {
			case "met":
				met++
			case "missed":
				missed++
				missedRows = append(missedRows, "`"+row.label+"`")
			default:
				unmeasured++
			}
		}
		w("Met on %d of %d rows", met, met+missed+unmeasured)
		if missed > 0 {
			w("; **missed** on %s", strings.Join(missedRows, ", "))
		}
		if unmeasured > 0 {
			w("; %d not measured in this run", unmeasured)
		}
		w(".\n\n")

		head, align := []string{t.rowLabel}, []string{"---"}
		for _, l := range []string{t.numLabel, t.denLabel, t.valueLabel, baselineLabel} {
			if l != "" {
				head, align = append(head, l), append(align, "--:")
			}
		}
		head, align = append(head, "verdict"), append(align, "---")
		if t.extraLabel != "" {
			head, align = append(head, t.extraLabel), append(align, "--:")
		}
		w("| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
		for _, row := range t.rows {
			w("| %s |", row.label)
			if t.numLabel != "" {
				w(" %s |", t.fmtSide(row.num))
			}
			if t.denLabel != "" {
				w(" %s |", t.fmtSide(row.den))
			}
			base := ""
			if !math.IsNaN(row.baseline) {
				base = t.fmtValue(row.baseline)
			}
			v := t.verdict(row)
			switch v {
			case "missed":
				v = "**missed**"
				if _, err := os.Stat(filepath.Join(profileDir, row.profile)); err == nil {
					v += fmt.Sprintf(" ([profile](%s))", link(filepath.Join(profileDir, row.profile)))
				}
			}
			w(" %s | %s | %s |", t.valueText(row.value), base, v)
			if t.extraLabel != "" {
				w(" %s |", fmtRatio(row.extra))
			}
			w("\n")
		}
		w("\n")
	}
}

// treeState describes the checkout bench/run.sh measures: the short commit
// and whether anything outside run.sh's own outputs (results/, plots/,
// README.md of this directory) differs from it.
func treeState() string {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", args...).Output()
		return strings.TrimRight(string(out), "\n"), err
	}
	head, err := git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown (not a git checkout)"
	}
	status, err := git("status", "--porcelain", "--", ":(top)", ":(exclude)results", ":(exclude)plots", ":(exclude)README.md")
	if err != nil {
		return head + ", state unknown"
	}
	if status == "" {
		return head + ", clean"
	}
	var paths []string
	for _, l := range strings.Split(status, "\n") {
		if len(l) > 3 {
			paths = append(paths, l[3:])
		}
	}
	const show = 5
	list := strings.Join(paths[:min(show, len(paths))], ", ")
	if len(paths) > show {
		list += fmt.Sprintf(" and %d more", len(paths)-show)
	}
	return fmt.Sprintf("%s, dirty: %d paths differ from it (%s)", head, len(paths), list)
}

// treeLine is machine.txt's line recording the tree a run measured.
const treeLine = "tree: "

// measuredTree returns the tree a run measured: machine.txt's record from
// the run's start, or, without one, the tree now.
func measuredTree(machine []byte) (tree string, recorded bool) {
	for _, l := range strings.Split(string(machine), "\n") {
		if s, ok := strings.CutPrefix(l, treeLine); ok {
			return strings.TrimSpace(s), true
		}
	}
	return treeState(), false
}
