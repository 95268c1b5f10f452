//go:build !race

// The race detector's pointer checks refuse the oversized fake slice below.

package framing_test

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
)

// TestWriteFrameTooLarge: a payload the 4-byte prefix cannot declare is
// refused before a byte of it is touched, and the Writer stays usable.
func TestWriteFrameTooLarge(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("needs 64-bit ints")
	}
	var one [1]byte
	size := uint64(1) << 32             // one more than a prefix can declare
	huge := unsafe.Slice(&one[0], size) // never read: the length check comes first

	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}, MaxFrameSize: math.MaxUint32})
	if err := w.WriteFrame([]byte{0x0a, 0x00}); err != nil {
		t.Fatal(err)
	}
	err := w.WriteFrame(huge)
	if !errors.Is(err, framing.ErrFrameTooLarge) || !framing.Skippable(err) {
		t.Fatalf("got %v, want a skippable ErrFrameTooLarge", err)
	}
	if fe := asError(t, err); fe.Frame != 1 || fe.Offset != 6 {
		t.Errorf("frame %d at %d, want 1 at 6", fe.Frame, fe.Offset)
	}
	if !strings.Contains(err.Error(), "4294967296") || !strings.Contains(err.Error(), "4294967295") {
		t.Errorf("message %q lacks the sizes", err)
	}
	if buf.Len() != 6 || w.FramesWritten() != 1 {
		t.Fatalf("wrote %d bytes, %d frames", buf.Len(), w.FramesWritten())
	}
	if err := w.WriteFrame([]byte{0x0a, 0x00}); err != nil || buf.Len() != 12 {
		t.Fatalf("the Writer is not usable after the refusal: %v", err)
	}
}
