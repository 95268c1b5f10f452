// Command agwire is the agwire command of the main module with NATS
// JetStream support: "agwire serve --resumable --nats URL" keeps runs on
// the JetStream stream AGWIRE_RUNS at URL, so that every server started
// with the same URL resumes and follows the runs of the others. It lives in
// this nested module so that the main module's go.mod has no NATS
// dependency. Build it with:
//
//	cd runlog/natslog && go build -o agwire ./cmd/agwire
//
// URL is any NATS URL list ("nats://a:4222,nats://b:4222"; credentials as
// user:password@ in the URL, or a creds file in AGWIRE_NATS_CREDS).
// Everything else is the agwire command: run "agwire help".
package main

import (
	"context"
	"os"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/cli"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

func main() {
	build := cli.Options{OpenNATS: openNATS}
	os.Exit(build.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// openNATS connects to the NATS servers at url and returns the run log on
// their JetStream, creating the stream if needed.
func openNATS(ctx context.Context, url string) (runlog.Log, error) {
	opts := []nats.Option{nats.Name("agwire serve"), nats.MaxReconnects(-1)}
	if creds := os.Getenv("AGWIRE_NATS_CREDS"); creds != "" {
		opts = append(opts, nats.UserCredentials(creds))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	l, err := natslog.New(ctx, js, natslog.Options{})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return l, nil
}
