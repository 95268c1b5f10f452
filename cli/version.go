package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

const versionSynopsis = `Version prints agwire's module version, as recorded in the binary's build
information ("go install github.com/agwire/agwire/cmd/agwire@v0.1.0" records
v0.1.0; a build inside a checkout records "(devel)" or a pseudo-version),
with the Go version that built it. "agwire --version" does the same.`

const versionExample = `  agwire version
  agwire --version
`

// readBuildInfo returns the binary's build information. Tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("version", versionSynopsis, versionExample, stdin, stdout, stderr)
	if code, ok := c.parse(args); !ok {
		return code
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// versionLine is what "agwire version" prints:
//
//	agwire v0.1.0 (go1.26.8)
func versionLine() string {
	bi, ok := readBuildInfo()
	if !ok {
		return "agwire (unknown version: the binary has no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	return fmt.Sprintf("agwire %s (%s)", v, bi.GoVersion)
}
