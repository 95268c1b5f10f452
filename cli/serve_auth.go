package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/agwire/agwire/transport"
)

// errNoToken: a request without a bearer token, with --auth bearer.
var errNoToken = errors.New("no bearer token (send Authorization: Bearer TOKEN)")

// bearerToken is the request's bearer token, "" when it has none.
func bearerToken(r *http.Request) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// bearerPrincipal is the principal of a request with --auth bearer and a
// run log (transport.HandlerOptions.Principal): the SHA-256 of its bearer
// token, so that the log, which keeps the owner with each run (in a NATS
// bucket with --nats), never holds a token. The log records it with a run
// when the run starts, and only then, for as long as it holds the run: a
// resume or a follow by any other token is answered as a run that does not
// exist (see "Security model" in docs/resumable-runs.md).
func bearerPrincipal(r *http.Request) (string, error) {
	tok := bearerToken(r)
	if tok == "" {
		return "", errNoToken
	}
	sum := sha256.Sum256([]byte(tok))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// requireBearer is the Authorize of --auth bearer without a run log: a run
// is served to the request that starts it and to nobody else, so there is
// nothing to bind, but every run request needs a token all the same.
func requireBearer(r *http.Request, _ string, _ transport.Access) error {
	if bearerToken(r) == "" {
		return errNoToken
	}
	return nil
}
