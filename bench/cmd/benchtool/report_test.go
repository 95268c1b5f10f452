package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sideLine is one line of go test -bench output for a side-by-side
// benchmark with the given CPU time.
func sideLine(c, op, impl, cpu string) string {
	return "BenchmarkSide/case=" + c + "/op=" + op + "/impl=" + impl + "-2 \t 1000\t " + cpu + " ns/op\t " + cpu + " cpu-ns/op\t 0 B/op\t 0 allocs/op\n"
}

// writeRun writes a synthetic run's raw files into dir and returns the
// README path and the raw files to give report.
func writeRun(t *testing.T, dir string) (readme string, raw []string) {
	t.Helper()
	var side strings.Builder
	side.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/agwire/agwire/bench\n")
	for _, l := range [][4]string{
		// Decode ≤ 1.0× vtproto+utf8.
		{"SmallText", "Decode", "agwire", "100"}, // exactly at the bound
		{"SmallText", "Decode", "vtproto+utf8", "100"},
		{"SmallText", "Decode", "vtproto", "80"},
		{"EndMetadata", "Decode", "agwire", "101"}, // 1.01×: missed
		{"EndMetadata", "Decode", "vtproto+utf8", "100"},
		{"StateDelta20", "Decode", "agwire", "100"}, // no vtproto+utf8 at all
		{"Snapshot5", "Decode", "agwire", "100.4"},  // 1.004×: prints as 1.00× but misses
		{"Snapshot5", "Decode", "vtproto+utf8", "100"},
		{"Snapshot1M", "Decode", "agwire", "300"}, // shown, not a target
		{"Snapshot1M", "Decode", "vtproto+utf8", "100"},
		// Encode ≤ 1.2× vtproto+utf8; SmallText's agwire has three runs.
		{"SmallText", "Encode", "agwire", "110"},
		{"SmallText", "Encode", "agwire", "900"},
		{"SmallText", "Encode", "agwire", "120"}, // median 120: exactly 1.2×
		{"SmallText", "Encode", "vtproto+utf8", "100"},
		{"EndMetadata", "Encode", "agwire", "121"}, // 1.21×: missed, profiled
		{"EndMetadata", "Encode", "vtproto+utf8", "100"},
		// JSON → frame ≤ 2× the typed encode.
		{"SmallText", "Encode", "agwire-json", "240"},   // 240 ÷ 120: at the bound
		{"EndMetadata", "Encode", "agwire-json", "484"}, // 4.00×
		// event.Parse ≤ 1.3× the frame decode.
		{"SmallText", "Decode", "agwire-sse", "130"}, // at the bound
		{"EndMetadata", "Decode", "agwire-sse", "200"},
	} {
		side.WriteString(sideLine(l[0], l[1], l[2], l[3]))
		if l[2] == "agwire" {
			// The targets against vtproto and event.Parse's read the codec
			// alone (agwire-codec); JSON → frame's reads agwire's.
			side.WriteString(sideLine(l[0], l[1], "agwire-codec", l[3]))
		}
	}
	side.WriteString("PASS\n")
	pipeline := "BenchmarkPipeline/encode/workers=1-2 \t 5\t 30000000 ns/op\t 200.0 MB/s\t 1000 cpu-ns/event\t 3000000 events/s\n" +
		"BenchmarkPipeline/encode/workers=2-2 \t 5\t 20000000 ns/op\t 300.0 MB/s\t 1000 cpu-ns/event\t 4e+06 events/s\n"
	e2e := "| Direction (85008 events) | agwire CLI | node + @ag-ui/proto | node / agwire |\n|---|--:|--:|--:|\n" +
		"| JSON lines → frames | 100 ms | 2500 ms | 25.0× |\n"
	files := map[string]string{
		"side.txt":     side.String(),
		"pipeline.txt": pipeline,
		"e2e.md":       e2e,
		"machine.txt":  "date: 2026-12-03 10:00 UTC\ntree: abc1234, clean\n",
		// The profile run.sh would have written for one missed row.
		"profile-EndMetadata-Encode-agwire-codec.txt": "Type: cpu\n",
		"README.md": "# title\n\nprose before\n\n" + beginMark + "\nold generated text\n" + endMark + "\n\nprose after\n",
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "README.md"), []string{filepath.Join(dir, "side.txt"), filepath.Join(dir, "pipeline.txt")}
}

// row returns the cells of the row labelled label in the table under the
// heading that starts with heading.
func row(t *testing.T, doc, heading, label string) []string {
	t.Helper()
	i := strings.Index(doc, "#### "+heading)
	if i < 0 {
		t.Fatalf("no heading %q in:\n%s", heading, doc)
	}
	section := doc[i+5:]
	if j := strings.Index(section, "####"); j >= 0 {
		section = section[:j]
	}
	for _, l := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		if len(cells) > 1 && cells[0] == label {
			return cells
		}
	}
	t.Fatalf("no row %q under %q in:\n%s", label, heading, section)
	return nil
}

// check compares the value, baseline and verdict cells of a target row.
func check(t *testing.T, doc, heading, label, value, baseline, verdict string) {
	t.Helper()
	cells := row(t, doc, heading, label)
	// Columns from the end: [value, baseline, verdict] or
	// [value, baseline, verdict, extra].
	n := len(cells)
	if strings.HasPrefix(heading, "Target: decode") || strings.HasPrefix(heading, "Target: encode") {
		n--
	}
	got := cells[n-3 : n]
	if want := []string{value, baseline, verdict}; !slices.Equal(got, want) {
		t.Errorf("%s / %s: value, baseline, verdict = %q, want %q", heading, label, got, want)
	}
}

func TestReportTargets(t *testing.T) {
	dir := t.TempDir()
	readme, raw := writeRun(t, dir)
	if err := report(readme, filepath.Join(dir, "plots"), raw); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(out)
	if !strings.HasPrefix(doc, "# title\n\nprose before\n\n"+beginMark) || !strings.HasSuffix(doc, endMark+"\n\nprose after\n") || strings.Contains(doc, "old generated text") {
		t.Errorf("the text around the markers changed, or the old section stayed:\n%s", doc)
	}
	if !strings.Contains(doc, "Tree measured: commit `abc1234`, clean") {
		t.Errorf("no tree line from machine.txt in:\n%s", doc)
	}

	dec, enc := "Target: decode ≤ 1.0× vtproto+utf8", "Target: encode ≤ 1.2× vtproto+utf8"
	check(t, doc, dec, "SmallText", "1.00×", "0.88×", "met")
	check(t, doc, dec, "EndMetadata", "1.01×", "1.26×", "**missed**")
	check(t, doc, dec, "StateDelta20", "—", "1.08×", "—")
	check(t, doc, dec, "Snapshot5", "1.004×", "1.08×", "**missed**")
	check(t, doc, dec, "Text64K", "—", "", "—")
	check(t, doc, dec, "Snapshot1M", "3.00×", "", "for information")
	if c := row(t, doc, dec, "SmallText"); c[len(c)-1] != "1.25×" {
		t.Errorf("decode ÷ plain vtproto on SmallText = %q, want 1.25×", c[len(c)-1])
	}
	if c := row(t, doc, dec, "SmallText"); c[1] != "100 ns" || c[2] != "100 ns" {
		t.Errorf("SmallText decode times = %q, %q, want 100 ns each", c[1], c[2])
	}

	check(t, doc, enc, "SmallText", "1.20×", "0.97×", "met")
	check(t, doc, enc, "EndMetadata", "1.21×", "1.29×", "**missed** ([profile](profile-EndMetadata-Encode-agwire-codec.txt))")
	check(t, doc, enc, "Run", "—", "0.65×", "—")

	js := "Target: JSON → frame ≤ 2× the typed encode"
	check(t, doc, js, "SmallText", "2.00×", "4.60×", "met")
	check(t, doc, js, "EndMetadata", "4.00×", "", "**missed**")
	check(t, doc, js, "Snapshot5", "—", "4.10×", "—")
	check(t, doc, js, "Snapshot200", "—", "4.90×", "—")

	ps := "Target: `event.Parse` ≤ 1.3× the frame decode"
	check(t, doc, ps, "SmallText", "1.30×", "", "met")
	check(t, doc, ps, "EndMetadata", "1.98×", "", "**missed**")

	e2e := "Target: end to end ≥ 25× the TypeScript peer"
	check(t, doc, e2e, e2eEncode, "25.0×", "20.3×", "met")
	check(t, doc, e2e, e2eDecode, "—", "19.7×", "—")

	pl := "Target: JSON lines → frames ≥ 4 M events/s on 2 cores"
	check(t, doc, pl, "encode, 2 workers", "4.00 M", "", "met")
	check(t, doc, pl, "encode, 1 workers", "3.00 M", "", "for information")
	check(t, doc, pl, "decode, 2 workers", "—", "", "—")

	for _, s := range []string{
		"Met on 1 of 8 rows; **missed** on `EndMetadata`, `Snapshot5`; 5 not measured in this run.",
		"Met on 1 of 1 rows.",
	} {
		if !strings.Contains(doc, s) {
			t.Errorf("no summary %q in:\n%s", s, doc)
		}
	}
}

func TestMissedProfiles(t *testing.T) {
	dir := t.TempDir()
	_, raw := writeRun(t, dir)
	r, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range missedProfiles(targets(r, parseE2E(filepath.Join(dir, "e2e.md")))) {
		got = append(got, m.bench+" "+m.file)
	}
	want := []string{
		`^BenchmarkSide$/^case=EndMetadata$/^op=Decode$/^impl=agwire-codec$ profile-EndMetadata-Decode-agwire-codec.txt`,
		`^BenchmarkSide$/^case=Snapshot5$/^op=Decode$/^impl=agwire-codec$ profile-Snapshot5-Decode-agwire-codec.txt`,
		`^BenchmarkSide$/^case=EndMetadata$/^op=Encode$/^impl=agwire-codec$ profile-EndMetadata-Encode-agwire-codec.txt`,
		`^BenchmarkSide$/^case=EndMetadata$/^op=Encode$/^impl=agwire-json$ profile-EndMetadata-Encode-agwire-json.txt`,
		`^BenchmarkSide$/^case=EndMetadata$/^op=Decode$/^impl=agwire-sse$ profile-EndMetadata-Decode-agwire-sse.txt`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("missed profiles:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := sideBench("Run", "Decode", "vtproto+utf8"); s != `^BenchmarkSide$/^case=Run$/^op=Decode$/^impl=vtproto\+utf8$` {
		t.Errorf("the impl is not quoted for -test.bench: %s", s)
	}
}

func TestValueText(t *testing.T) {
	le := &target{bound: 1.2, scale: 1, digits: 2, suffix: "×"}
	ge := &target{bound: 25, atLeast: true, scale: 1, digits: 1, suffix: "×"}
	for _, tc := range []struct {
		t    *target
		v    float64
		want string
	}{
		{le, 1.2, "1.20×"},
		{le, 1.1999, "1.20×"}, // met: rounds as usual
		{le, 1.2001, "1.2001×"},
		{le, 1.203, "1.203×"}, // "1.20×" would read as met
		{le, 1.2000004, "1.2000004×"},
		{le, 1.3, "1.30×"},
		{ge, 25, "25.0×"},
		{ge, 24.96, "24.96×"},
		{ge, 25.04, "25.0×"},
		{le, math.NaN(), "—"},
		{le, math.Inf(1), "—"},
	} {
		if got := tc.t.valueText(tc.v); got != tc.want {
			t.Errorf("valueText(%v) with bound %v = %q, want %q", tc.v, tc.t.bound, got, tc.want)
		}
	}
}

func TestParseE2E(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e2e.md")
	if got := parseE2E(path); len(got) != 0 {
		t.Errorf("a missing file gave %v", got)
	}
	os.WriteFile(path, []byte("| Direction (85008 events) | agwire CLI | node + @ag-ui/proto | node / agwire |\n|---|--:|--:|--:|\n| JSON lines → frames | 86 ms | 1552 ms | 18.0× |\n| frames → JSON lines | 90 ms | 1677 ms | 18.6× |\n"), 0o644)
	got := parseE2E(path)
	if got[e2eEncode] != (e2eResult{86, 1552}) || got[e2eDecode] != (e2eResult{90, 1677}) {
		t.Errorf("parseE2E = %v", got)
	}
}

func TestMeasuredTree(t *testing.T) {
	if tree, ok := measuredTree([]byte("date: x\ntree: 0123abc, dirty: 1 paths differ from it (codec/x.go)\nrounds: 1\n")); !ok || tree != "0123abc, dirty: 1 paths differ from it (codec/x.go)" {
		t.Errorf("measuredTree = %q, %v", tree, ok)
	}
	if _, ok := measuredTree([]byte("date: x\n")); ok {
		t.Error("a machine.txt without a tree line counted as recorded")
	}
}
