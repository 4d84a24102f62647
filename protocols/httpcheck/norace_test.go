//go:build !race

package httpcheck

const raceEnabled = false
