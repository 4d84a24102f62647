//go:build race

package runner

// raceEnabled: the race detector allocates behind the code it checks.
const raceEnabled = true
