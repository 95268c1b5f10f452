//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

import "os"

// isTerminalFile reports false: without a portable terminal test here, no
// progress line is drawn.
func isTerminalFile(*os.File) bool { return false }
