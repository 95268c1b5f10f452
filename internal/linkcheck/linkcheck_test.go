// Package linkcheck_test proves that the packages a transport user imports
// link no generated protobuf code and register no descriptors, so that a
// program can also link another Go build of the AG-UI schema without the
// protobuf runtime's "already registered" panic at init.
package linkcheck_test

import (
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/agwire/agwire/transport"
)

// TestNoDescriptorRegistered: with transport (and through it framing,
// codec, event) linked, no ag_ui file is in the global registry.
func TestNoDescriptorRegistered(t *testing.T) {
	for _, path := range []string{"ag_ui/events.proto", "ag_ui/types.proto", "ag_ui/patch.proto"} {
		if fd, err := protoregistry.GlobalFiles.FindFileByPath(path); err == nil {
			t.Errorf("%s is registered (%s)", path, fd.Package())
		}
	}
	if n := protoregistry.GlobalFiles.NumFilesByPackage("ag_ui"); n != 0 {
		t.Errorf("%d ag_ui files registered", n)
	}
}

// TestNoGeneratedCodeLinked: the import graphs of the transport-side
// packages hold no generated code and none of the protobuf runtime's
// reflection (only protowire).
func TestNoGeneratedCodeLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/agwire/agwire/transport", "github.com/agwire/agwire/framing",
		"github.com/agwire/agwire/codec", "github.com/agwire/agwire/event").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/agwire/agwire/gen/") || strings.HasPrefix(dep, "google.golang.org/protobuf/") && dep != "google.golang.org/protobuf/encoding/protowire" &&
			!strings.HasPrefix(dep, "google.golang.org/protobuf/internal/") {
			t.Errorf("linked: %s", dep)
		}
	}
}
