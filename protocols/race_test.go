//go:build race

package protocols

// raceEnabled: the race detector allocates behind the code it checks.
const raceEnabled = true
