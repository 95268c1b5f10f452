// Command structsize prints the size of a STATE_SNAPSHOT of 1,000 members
// of four shapes as an SSE event (data: line) and as a binary frame (agwire's
// encoder, 4-byte length included): a google.protobuf.Struct spends a tag and
// a length on every key and value, and a double is 9 bytes where JSON writes
// a small number in a few, so state of many small values is larger in
// protobuf than in JSON (docs/browser.md).
//
//	go run ./cmd/structsize   (from bench/)
package main

import (
	"fmt"
	"strings"

	"github.com/agwire/agwire/codec"
)

func main() {
	shapes := []struct {
		name   string
		member func(i int) string
	}{
		{"numbers", func(i int) string { return fmt.Sprintf(`"k%d":%d`, i, i) }},
		{"records", func(i int) string {
			return fmt.Sprintf(`"r%d":{"id":%d,"done":true,"cost":12.5,"tags":["a","b"]}`, i, i)
		}},
		{"short strings", func(i int) string { return fmt.Sprintf(`"s%d":"value %d"`, i, i) }},
		{"long strings", func(i int) string { return fmt.Sprintf(`"t%d":"%s"`, i, strings.Repeat("lorem ipsum ", 20)) }},
	}
	fmt.Println("| state of 1,000 members | SSE bytes | binary bytes | binary vs SSE |")
	fmt.Println("|---|---:|---:|---:|")
	for _, s := range shapes {
		parts := make([]string, 1000)
		for i := range parts {
			parts[i] = s.member(i)
		}
		js := `{"type":"STATE_SNAPSHOT","snapshot":{` + strings.Join(parts, ",") + `}}`
		frame, err := codec.AppendFromJSON(nil, []byte(js))
		if err != nil {
			panic(err)
		}
		sse := len("data: ") + len(js) + len("\n\n")
		bin := 4 + len(frame)
		fmt.Printf("| %s | %d | %d | %+.0f%% |\n", s.name, sse, bin, 100*(float64(bin)/float64(sse)-1))
	}
}
