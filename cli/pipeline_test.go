package cli

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

// onCores runs the command with GOMAXPROCS set to procs: 1 makes the
// pipeline take its sequential path.
func onCores(t *testing.T, procs int, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return agwire(t, stdin, args...)
}

// TestParallelSameAsSequential runs encode, decode and convert on spoilt
// inputs on one core and on two: standard output, standard error and the
// exit status must be the same.
func TestParallelSameAsSequential(t *testing.T) {
	demo, err := os.ReadFile("testdata/demo-run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	jsonl := bytes.Repeat(demo, 40)
	stream := encode(t, string(jsonl))
	r := rand.New(rand.NewPCG(17, 5))
	spoil := func(lines bool) []byte {
		if lines {
			var b bytes.Buffer
			for l := range bytes.Lines(jsonl) {
				switch r.IntN(300) {
				case 0:
					b.WriteString("{\"type\":\"TEXT_MESSAGE_START\",\n")
				case 1:
					b.WriteString(`{"type":"THINKING_START"}` + "\n")
				case 2:
					b.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":9007199254740993}` + "\n")
				}
				b.Write(l)
			}
			return b.Bytes()
		}
		s := bytes.Clone(stream)
		var out []byte
		for len(s) >= 4 {
			n := 4 + int(binary.BigEndian.Uint32(s))
			f := s[:n]
			s = s[n:]
			switch r.IntN(300) {
			case 0:
				f[4+r.IntN(n-4)] ^= 0x5a
			case 1:
				out = append(out, 0, 0, 0, 0)
			}
			out = append(out, f...)
		}
		return out
	}
	badLines, badFrames := spoil(true), spoil(false)
	cut := badFrames[:len(badFrames)-3]
	for _, tc := range []struct {
		input []byte
		args  []string
	}{
		{jsonl, []string{"encode"}},
		{badLines, []string{"encode"}},
		{badLines, []string{"encode", "--keep-going"}},
		{badLines, []string{"encode", "--keep-going", "--max-frame-size", "300"}},
		{stream, []string{"decode"}},
		{badFrames, []string{"decode"}},
		{badFrames, []string{"decode", "--keep-going"}},
		{cut, []string{"decode", "--keep-going"}},
		{badFrames, []string{"decode", "--keep-going", "--strict"}},
		{badLines, []string{"convert", "--to", "binary", "--keep-going"}},
		{badLines, []string{"convert", "--to", "sse", "--keep-going"}},
		{badLines, []string{"convert", "--to", "binary", "--max-frame-size", "300", "--keep-going"}},
		{append([]byte("\xEF\xBB\xBF"), badLines...), []string{"convert", "--to", "jsonl"}},
		{badFrames, []string{"convert", "--to", "jsonl", "--keep-going"}},
		{cut, []string{"convert", "--to", "sse", "--keep-going"}},
		{badFrames, []string{"convert", "--to", "binary"}},
	} {
		out1, err1, code1 := onCores(t, 1, tc.input, tc.args...)
		out2, err2, code2 := onCores(t, 2, tc.input, tc.args...)
		if out1 != out2 || err1 != err2 || code1 != code2 {
			t.Errorf("%v: one core: exit %d, %d bytes out, stderr\n%s\ntwo cores: exit %d, %d bytes out, stderr\n%s",
				tc.args, code1, len(out1), err1, code2, len(out2), err2)
		}
	}
	// The spoilt inputs do hold errors.
	if _, e, code := onCores(t, 2, badLines, "encode", "--keep-going"); code != exitFail || !bytes.Contains([]byte(e), []byte("skipped")) {
		t.Errorf("the spoilt lines encode with exit %d: %s", code, e)
	}
	if _, e, code := onCores(t, 2, badFrames, "decode", "--keep-going"); code != exitFail || !bytes.Contains([]byte(e), []byte("skipped")) {
		t.Errorf("the spoilt frames decode with exit %d: %s", code, e)
	}
}
