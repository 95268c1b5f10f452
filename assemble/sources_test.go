package assemble_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// One call over a transport reader: the realistic run served by
// transport.Handler over loopback HTTP, read with a transport.Client, over binary
// and over SSE, assembles to what the events assemble to.
func TestFromTransportReader(t *testing.T) {
	run := assembletest.Realistic(1)
	want := conversationText(t, run.Events)
	h, err := transport.NewHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for _, ev := range run.Events {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}, transport.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, prefer := range []transport.Prefer{transport.PreferBinary, transport.PreferSSEOnly} {
		sse := prefer == transport.PreferSSEOnly
		client, err := transport.NewClient(srv.URL, transport.ClientOptions{HTTPClient: srv.Client(), Prefer: prefer})
		if err != nil {
			t.Fatal(err)
		}
		r, err := client.Run(context.Background(), &event.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: []event.Message{}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := assemble.FromSeq(r.Events(), assemble.Options{Check: true})
		r.Close()
		if err != nil {
			t.Fatalf("sse %v: %v", sse, err)
		}
		got, _ := c.MarshalJSON()
		if !bytes.Equal(got, want) {
			t.Errorf("sse %v (%s): assembled\n%s\nwant\n%s", sse, r.ContentType(), got, want)
		}
	}
}

// A frame from a later protocol is skipped and counted, and the stream goes on.
func TestFromSeqSkipsLaterProtocolFrames(t *testing.T) {
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	evs := mustParse(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
	w.WriteEvent(evs[0])
	w.WriteEvent(evs[1])
	future := []byte{0x82, 0x02, 0x02, 0x08, 0x01} // an Event arm this protocol has not got
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(future))))
	buf.Write(future)
	w.WriteEvent(evs[2])
	c, err := assemble.FromSeq(framing.NewReader(&buf, framing.ReaderOptions{}).Events(), assemble.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Unknown != 1 || s.Events != 4 {
		t.Errorf("stats %+v", s)
	}
	if m := c.Messages(); len(m) != 1 || *m[0].Content != "hi" {
		t.Errorf("messages %+v", m)
	}
}
