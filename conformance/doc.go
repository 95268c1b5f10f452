// Package conformance holds agwire's lanes of the AG-UI client conformance
// corpora, one per folder of testdata, each a copy with its provenance (see
// each folder's SOURCE.md and LICENSE):
//
//   - 1.0: the 1.0 corpus (72 fixtures, most of them the 1.1 files, as
//     testdata/1.0/SOURCE.md says), run by a 1.0 client;
//   - 1.1: the 1.1 corpus (68 fixtures), run by a 1.1 client
//     (agent.Options.ProtocolVersion);
//   - draft: the 15 fixtures of the draft corpus that could be copied, run by
//     a 1.0 client with the draft's fatal rules on (agent.Options.Strict: a
//     RUN_FINISHED with another run's or thread's id, a second run on another
//     thread, a duplicate interrupt id), since no released version has them.
//
// conformance_test.go serves every fixture's stream over HTTP as SSE,
// verbatim, into agwire's client side — a transport.Client reading as a
// client (ClientOptions.Consume, which is event.Parser.Consume) under an
// agent.Thread that applies the events with assemble and sends the request —
// and checks the fixture's expectations, with the relaxations the corpus
// allows a third-party client and agwire's deliberate differences listed,
// per lane, each with its reason. The same stream then goes through
// agwire assemble (cli.Main; --profile 1.1 in the 1.1 lane, --strict in the
// draft's), which must succeed or fail with the thread and print its state
// and messages: the command is the client too. Every MUST passes; a relaxation or a
// difference the lane no longer needs fails the test, as does a draft
// fixture whose outcome no longer depends on the strict rules, or one that
// starts to.
//
//	go test -v -run TestConformance ./conformance/
//	go test -v -run TestConformance/draft ./conformance/
//
// prints each lane's summary: fixtures passed as written, passed with a
// relaxation, and passed with a deliberate difference, per fixture area.
package conformance
