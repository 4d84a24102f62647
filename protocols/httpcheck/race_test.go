//go:build race

package httpcheck

// raceEnabled: the race detector allocates behind the code it checks.
const raceEnabled = true
