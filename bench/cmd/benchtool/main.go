// Command benchtool does the bench module's chores for bench/run.sh:
//
//	benchtool data DIR            write every benchmark input as DIR/<case>.jsonl
//	benchtool sizes               print the wire-size table (SSE vs binary, raw/gzip/zstd)
//	benchtool e2e BIN DIR ROUNDS  time `BIN encode`/`BIN decode` against node on DIR/Run.jsonl
//	benchtool report README SVGDIR RAW...
//	                              medians of the raw benchmark output → tables in
//	                              README (between the results markers) and SVG plots;
//	                              the targets' verdicts link the profiles beside RAW
//	benchtool missed RAW...       the benchmarks of the targets RAW misses, one
//	                              "-test.bench pattern<TAB>profile file" a line
//	benchtool tree                the commit checked out and whether the tree is dirty
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/bench/harness"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtool data|sizes|e2e|report|missed|tree ...")
		os.Exit(2)
	}
	var err error
	switch args := os.Args[2:]; os.Args[1] {
	case "data":
		err = writeData(args[0])
	case "sizes":
		err = sizes(os.Stdout)
	case "e2e":
		rounds, _ := strconv.Atoi(args[2])
		err = e2e(os.Stdout, args[0], args[1], rounds)
	case "report":
		err = report(args[0], args[1], args[2:])
	case "missed":
		err = missed(os.Stdout, args)
	case "tree":
		fmt.Println(treeState())
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func writeData(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range corpus.Cases() {
		if err := os.WriteFile(filepath.Join(dir, c.Name+".jsonl"), append(slices.Clone(c.JSON), '\n'), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "Run.jsonl"), corpus.RunJSONL(), 0o644)
}

func gz(b []byte) int {
	var out bytes.Buffer
	w, _ := gzip.NewWriterLevel(&out, gzip.DefaultCompression)
	w.Write(b)
	w.Close()
	return out.Len()
}

func zs(b []byte) int {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	defer enc.Close()
	return len(enc.EncodeAll(b, nil))
}

// sizes prints, per input, the bytes of the SSE stream ("data: " + JSON +
// "\n\n" per event) and of the binary stream (4-byte length + payload per
// event), each raw and compressed whole with gzip (level 6) and zstd
// (default level).
func sizes(w *os.File) error {
	ins, err := harness.Cases(true)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "| Input | Events | SSE raw | SSE gzip | SSE zstd | Binary raw | Binary gzip | Binary zstd | Binary / SSE raw | gzip | zstd |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, in := range ins {
		sse := bytes.Join(in.SSE, nil)
		s := [3]int{len(sse), gz(sse), zs(sse)}
		bn := [3]int{len(in.Framed), gz(in.Framed), zs(in.Framed)}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", in.Name, len(in.Events),
			hb(s[0]), hb(s[1]), hb(s[2]), hb(bn[0]), hb(bn[1]), hb(bn[2]),
			float64(bn[0])/float64(s[0]), float64(bn[1])/float64(s[1]), float64(bn[2])/float64(s[2]))
	}
	return nil
}

func hb(n int) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// e2e times whole processes, start-up and file I/O included, interleaved:
// agwire encode, node encode, agwire decode, node decode, ROUNDS times; it
// prints the medians and the ratios.
func e2e(w *os.File, bin, dir string, rounds int) error {
	in := filepath.Join(dir, "Run.jsonl")
	tmp, err := os.MkdirTemp("", "agwire-e2e")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	script, err := filepath.Abs("peer/tsbench.mjs")
	if err != nil {
		return err
	}
	runs := []struct {
		name string
		argv []string
	}{
		{"agwire encode", []string{bin, "encode", "-i", in, "-o", filepath.Join(tmp, "go.bin")}},
		{"node encode", []string{"node", script, "encode", in, filepath.Join(tmp, "ts.bin")}},
		{"agwire decode", []string{bin, "decode", "-i", filepath.Join(tmp, "go.bin"), "-o", filepath.Join(tmp, "go.jsonl")}},
		{"node decode", []string{"node", script, "decode", filepath.Join(tmp, "go.bin"), filepath.Join(tmp, "ts.jsonl")}},
	}
	times := make([][]float64, len(runs))
	for range rounds {
		for i, r := range runs {
			cmd := exec.Command(r.argv[0], r.argv[1:]...)
			cmd.Stderr = os.Stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			times[i] = append(times[i], float64(time.Since(start).Milliseconds()))
		}
	}
	n := len(corpus.Run())
	med := make([]float64, len(runs))
	for i := range runs {
		med[i] = median(times[i])
	}
	fmt.Fprintf(w, "| Direction (%d events) | agwire CLI | node + @ag-ui/proto | node / agwire |\n|---|--:|--:|--:|\n", n)
	fmt.Fprintf(w, "| JSON lines → frames | %.0f ms | %.0f ms | %.1f× |\n", med[0], med[1], med[1]/med[0])
	fmt.Fprintf(w, "| frames → JSON lines | %.0f ms | %.0f ms | %.1f× |\n", med[2], med[3], med[3]/med[2])
	fmt.Fprintf(w, "\nMedian of %d interleaved rounds; each time is one whole process (start-up, reading and writing the files included). Every round: %v ms.\n", rounds, times)
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// results holds every metric of every benchmark, all runs.
type results map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

func parse(files []string) (results, error) {
	res := results{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
				continue
			}
			name := procSuffix.ReplaceAllString(fields[0], "")
			m := res[name]
			if m == nil {
				m = map[string][]float64{}
				res[name] = m
			}
			for i := 2; i+1 < len(fields); i += 2 {
				v, err := strconv.ParseFloat(fields[i], 64)
				if err != nil {
					continue
				}
				m[fields[i+1]] = append(m[fields[i+1]], v)
			}
		}
	}
	return res, nil
}

// get returns the median of a metric, or NaN.
func (r results) get(name, unit string) float64 {
	if m := r[name]; m != nil {
		if v := m[unit]; len(v) > 0 {
			return median(v)
		}
	}
	return math.NaN()
}

func (r results) runs(name string) int { return len(r[name]["ns/op"]) }

// cpu returns the median CPU time per op (cpu-ns/op), or the median wall
// time where a benchmark has no CPU figure.
func (r results) cpu(name string) float64 {
	if v := r.get(name, "cpu-ns/op"); !math.IsNaN(v) {
		return v
	}
	return r.get(name, "ns/op")
}

// size returns the bytes one op processes, from the first run's MB/s and
// ns/op.
func (r results) size(name string) float64 {
	m := r[name]
	if m == nil || len(m["MB/s"]) == 0 || len(m["ns/op"]) == 0 {
		return math.NaN()
	}
	return m["MB/s"][0] * m["ns/op"][0] / 1e3
}
