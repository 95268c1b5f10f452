package cli

import "io"

// pipelineInput is the input of a conversion through package pipeline,
// which reads it on a goroutine of its own and flushes the output itself
// whenever a read may block: the flushing wrapper c.open puts around the
// input, which would flush the output from the reading goroutine while the
// pipeline writes it from another, is taken off.
func pipelineInput(in io.Reader) io.Reader {
	if f, ok := in.(*idleFlusher); ok {
		return f.r
	}
	return in
}
