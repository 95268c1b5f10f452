package cli

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/agwire/agwire/transport"
)

// maxOwners bounds the run owners a bearer-authenticated demo server
// remembers; past it the oldest are forgotten, and their runs can no longer
// be resumed or followed by anyone (a forgotten owner is never assumed).
const maxOwners = 100_000

// errNoToken: a request without a bearer token, with --auth bearer.
var errNoToken = errors.New("no bearer token (send Authorization: Bearer TOKEN)")

// runOwners binds each run to the principal that started it: the bearer
// token of its start request. A resume or a follow by any other principal
// is refused (the handler answers it as a run that does not exist). The
// binding is kept in this process, next to the in-memory log; a server
// whose runs are shared by several replicas keeps it with the log (see
// "Security model" in docs/resumable-runs.md).
type runOwners struct {
	mu     sync.Mutex
	owners map[string]string // run id → principal
	order  []string          // run ids, oldest first
}

func newRunOwners() *runOwners { return &runOwners{owners: map[string]string{}} }

// principal is the request's bearer token, "" when it has none.
func principal(r *http.Request) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// authorize is the handlers' transport.HandlerOptions.Authorize.
func (o *runOwners) authorize(r *http.Request, run string, access transport.Access) error {
	who := principal(r)
	if who == "" {
		return errNoToken
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.owners[run]
	switch {
	case access == transport.AccessStart && !ok:
		o.owners[run] = who
		o.order = append(o.order, run)
		if len(o.order) > maxOwners {
			delete(o.owners, o.order[0])
			o.order = o.order[1:]
		}
		return nil
	case !ok:
		return fmt.Errorf("run %q has no recorded owner", run)
	case owner != who:
		return fmt.Errorf("run %q was started by another principal", run)
	}
	return nil
}
