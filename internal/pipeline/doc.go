// Package pipeline converts long AG-UI event streams on every core: JSON
// lines to binary frames (EncodeLines), binary frames to JSON lines
// (DecodeFrames), and JSON lines or frames to anything with a function of
// the caller's per record (ConvertLines, ConvertFrames), as a bounded
// pipeline. The agwire command's encode, decode and convert run on it.
//
// One reader splits the input into records (a line, a frame) and gathers
// them into batches, moving the whole records its input buffer holds into a
// batch in one copy; Options.Workers workers convert batches in parallel,
// each into a buffer of its own; the caller's goroutine writes the converted
// records to the output in input order, one Write call per record, and
// reports errors and progress. The output, the errors (the same first error,
// at the same line or frame and byte offset) and what is written before an
// error are those of the sequential conversion, which Workers 1 runs: a
// framing.Writer fed line by line, or a framing.Reader read frame by frame.
//
// # Memory
//
// At most Options.Depth batches exist at once: one being filled by the
// reader, the others waiting for a worker, being converted or being
// written. A batch holds records of less than Options.BatchSize bytes of
// input and one more record, and their converted form, so the memory held
// is bounded by Depth x (BatchSize + the longest record) x (1 + the
// output's growth over the input), whatever the length of the stream, plus
// the reader's 64 KiB buffer; the buffers of a batch grown well beyond the
// batch size by a long record are dropped once it is written.
// Stats.PeakBuffered reports what the batches held at most. A
// frame's length is checked against the reader's MaxFrameSize before
// anything of its size is allocated, as framing.Reader does; a JSON line
// has no limit but its own length, as with the sequential conversion.
//
// # Live input
//
// Output is not held back while the input pauses. Before each read of the
// input that may block (any read of the source, except from a
// *bufio.Reader that has bytes buffered), the records read so far are
// handed on as a batch, and when that batch has been written the output is
// flushed if it has a Flush() error method (a *bufio.Writer). The
// sequential path flushes at the same moments.
//
// # Errors
//
// A record that cannot be converted is reported to Options.OnError, in
// input order, on the caller's goroutine: a *LineError for a JSON line, the
// *framing.Error that framing.Reader.ReadJSON returns for a frame, a
// *FrameError for an event the EventFunc refused. When
// OnError returns true the record is skipped and the conversion goes on;
// otherwise, or when OnError is nil, the conversion stops there and returns
// the error, having written exactly the records before it. An error that
// ends the stream (an *InputError reading lines; a stream-level
// *framing.Error reading frames: a truncated stream, a frame above the
// limit, ErrTooManyErrors) is reported to OnError too, and returned; a
// failure of the output is returned as an *OutputError and not reported.
// framing.Skippable tells the two kinds of error apart.
//
// Reading ahead: the parallel pipeline reads up to Depth batches of input
// beyond the record being written, so when it stops early it has consumed
// more of the input than the sequential path would have; its reader may
// still be blocked in a Read of the source when EncodeLines or DecodeFrames
// returns, and reads nothing more once that Read returns.
package pipeline
