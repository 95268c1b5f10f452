// Command runframes writes the recorded-style run of package corpus (the
// bench corpus's Run) for the JavaScript decoder's benchmark
// (clients/js/bench/decode.bench.mjs): DIR/run.jsonl, one AG-UI JSON event
// a line, and DIR/run.frames, the same events as agwire's encoder writes
// them on the binary stream (each a 4-byte big-endian length and an
// ag_ui.Event).
//
//	go run ./cmd/runframes DIR   (from bench/)
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/codec"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: runframes DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	var frames []byte
	for i, ev := range corpus.Run() {
		at := len(frames)
		frames = append(frames, 0, 0, 0, 0)
		var err error
		if frames, err = codec.AppendFromJSON(frames, ev); err != nil {
			fmt.Fprintf(os.Stderr, "runframes: event %d: %v\n", i, err)
			os.Exit(1)
		}
		binary.BigEndian.PutUint32(frames[at:], uint32(len(frames)-at-4))
	}
	for name, b := range map[string][]byte{"run.jsonl": corpus.RunJSONL(), "run.frames": frames} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "runframes:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("runframes: %d events, %d bytes of JSON lines, %d bytes of frames\n", len(corpus.Run()), len(corpus.RunJSONL()), len(frames))
}
