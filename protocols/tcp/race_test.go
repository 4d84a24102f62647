//go:build race

package tcp

// raceEnabled: the race detector allocates behind the code it checks.
const raceEnabled = true
