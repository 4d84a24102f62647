//go:build !linux

package runner

import (
	"errors"
	"time"
)

// alarm is the precise wait of the open model's pacing; only Linux has
// one (a timerfd), elsewhere pacing uses the runtime's timers.
type alarm struct{}

func newAlarm() (*alarm, error) { return nil, errors.New("no precise alarm on this system") }

func (*alarm) wait(time.Duration) error { return errors.ErrUnsupported }
func (*alarm) close()                   {}
