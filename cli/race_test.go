//go:build race

package cli

// raceEnabled: the race detector adds its shadow memory to the RSS.
const raceEnabled = true
