//go:build race

package http1

// raceEnabled: the race detector allocates behind the code it checks.
const raceEnabled = true
