package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/agwire/agwire/cli"
)

// Main runs a command line in-process: here encode, then decode of what it
// wrote.
func ExampleMain() {
	var bin bytes.Buffer
	in := strings.NewReader(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}` + "\n")
	if code := cli.Main([]string{"encode"}, in, &bin, os.Stderr); code != 0 {
		fmt.Println("encode: exit", code)
	}
	fmt.Println(bin.Len(), "bytes")
	code := cli.Main([]string{"decode"}, &bin, os.Stdout, os.Stderr)
	fmt.Println("exit", code)
	// Output:
	// 18 bytes
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}
	// exit 0
}

// A build of the command adds to it through Options: the nested module
// runlog/natslog's cmd/agwire gives OpenNATS, for "serve --nats URL". The
// zero Options is the main module's build, which refuses --nats.
func ExampleOptions_Main() {
	var build cli.Options // the main module's build: no NATS
	var stderr bytes.Buffer
	code := build.Main([]string{"serve", "--resumable", "--nats", "nats://127.0.0.1:4222"}, strings.NewReader(""), os.Stdout, &stderr)
	fmt.Println("exit", code, strings.Contains(stderr.String(), "no NATS support"))
	// Output:
	// exit 1 true
}
