package cli

import "testing"

// The NATS URLs the start line prints carry no credentials.
func TestWithoutCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                         "nats://127.0.0.1:4222",
		"nats://user:pass@a:4222,nats://token@b:4222":   "nats://a:4222,nats://b:4222",
		"tls://u:p@w@c:4222":                            "tls://c:4222",
		"user:pass@localhost:4222, nats://d:4222":       "localhost:4222,nats://d:4222",
		"nats://a:4222,nats://u:p@b:4222,nats://c:4222": "nats://a:4222,nats://b:4222,nats://c:4222",
	} {
		if got := withoutCredentials(in); got != want {
			t.Errorf("withoutCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}
