package transport_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// agent is the run function of the examples.
func agent(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
	w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
	w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello!"})
	return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
}

// A server: one handler serves SSE to clients that ask for it (or ask for
// nothing in particular) and the binary stream to those that prefer it.
func ExampleNewHandler() {
	h, err := transport.NewHandler(func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello!"})
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}, transport.HandlerOptions{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h) // or http.ListenAndServe(":8000", h)
	defer srv.Close()

	// What a browser's fetch receives:
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"t1","runId":"r1","messages":[]}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	io.Copy(os.Stdout, resp.Body)
	// Output:
	// text/event-stream
	// data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	//
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello!"}
	//
	// data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

// A client: Run asks for the binary stream (SSE is the fallback) and yields
// the events as they arrive.
func ExampleClient_Run() {
	h, err := transport.NewHandler(agent, transport.HandlerOptions{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	c, err := transport.NewClient(srv.URL, transport.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	in := &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}
	r, err := c.Run(context.Background(), in)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for ev, err := range r.Events() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ev.Type())
	}
	fmt.Println("via", r.ContentType())
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_CONTENT
	// RUN_FINISHED
	// via application/vnd.ag-ui.event+proto
}

func ExampleNegotiate() {
	for _, accept := range []string{
		"",
		"*/*",
		"application/vnd.ag-ui.event+proto",
		"application/vnd.ag-ui.event+proto, text/event-stream",
		"application/vnd.ag-ui.event+proto, text/event-stream;q=0.5",
		"application/json",
	} {
		mediaType, ok := transport.Negotiate([]string{accept})
		fmt.Printf("%q → %q %v\n", accept, mediaType, ok)
	}
	// Output:
	// "" → "text/event-stream" true
	// "*/*" → "application/vnd.ag-ui.event+proto" true
	// "application/vnd.ag-ui.event+proto" → "application/vnd.ag-ui.event+proto" true
	// "application/vnd.ag-ui.event+proto, text/event-stream" → "application/vnd.ag-ui.event+proto" true
	// "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5" → "application/vnd.ag-ui.event+proto" true
	// "application/json" → "" false
}

func ExampleSSEReader() {
	stream := "\uFEFF: a comment\r\n" +
		"event: update\r\nid: 42\r\ndata: first line\r\ndata:second line\r\n\r\n" +
		"retry: 3000\ndata: {\"type\":\"STEP_STARTED\",\"stepName\":\"plan\"}\n\n" +
		"data: never dispatched: no blank line before the end"
	r := transport.NewSSEReader(strings.NewReader(stream), 0)
	for {
		ev, err := r.Next()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%+v\n", ev)
	}
	// Output:
	// {Event:update Data:first line
	// second line ID:42 Retry:0s}
	// {Event: Data:{"type":"STEP_STARTED","stepName":"plan"} ID:42 Retry:3s}
	// transport: stream ends inside an event (SSE: unexpected EOF)
}

// A client: built once, used for every run. With PreferAuto it reads the
// server's capabilities first and asks for the binary stream because the
// handler says it speaks it.
func ExampleNewClient() {
	name := "greeter"
	h, err := transport.NewHandler(agent, transport.HandlerOptions{
		Capabilities: &event.AgentCapabilities{Identity: &event.IdentityCapabilities{Name: &name}},
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	c, err := transport.NewClient(srv.URL, transport.ClientOptions{Prefer: transport.PreferAuto})
	if err != nil {
		log.Fatal(err)
	}
	caps, err := c.Capabilities(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*caps.Identity.Name, "binary:", *caps.Transport.HTTPBinary, "resumable:", *caps.Transport.Resumable)
	for _, run := range []string{"r1", "r2"} {
		r, err := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "t1", RunID: run})
		if err != nil {
			log.Fatal(err)
		}
		for ev, err := range r.Events() {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(r.ContentType(), ev.Type())
		}
		r.Close()
	}
	// Output:
	// greeter binary: true resumable: false
	// application/vnd.ag-ui.event+proto RUN_STARTED
	// application/vnd.ag-ui.event+proto TEXT_MESSAGE_CONTENT
	// application/vnd.ag-ui.event+proto RUN_FINISHED
	// application/vnd.ag-ui.event+proto RUN_STARTED
	// application/vnd.ag-ui.event+proto TEXT_MESSAGE_CONTENT
	// application/vnd.ag-ui.event+proto RUN_FINISHED
}
