package runner

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

func TestArrivalOffset(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate scenarios.Rate
		d    time.Duration
		i    int64
		want time.Duration
	}{
		{"first arrival is due at once", scenarios.Rate{From: 100, To: 100}, 10 * time.Second, 0, 0},
		{"constant 100/s: arrival 1 after 10ms", scenarios.Rate{From: 100, To: 100}, 10 * time.Second, 1, 10 * time.Millisecond},
		{"constant 2000/s: arrival 9999 at 4.9995s, no drift", scenarios.Rate{From: 2000, To: 2000}, 5 * time.Second, 9999, 4999500 * time.Microsecond},
		{"requests-only phase (no duration) paces at From", scenarios.Rate{From: 4, To: 4}, 0, 2, 500 * time.Millisecond},
		// Ramp 0→100 over 10s: N(t) = 5t², so arrival 500 (the last) is due at 10s.
		{"ramp from zero: N(t)=5t², i=500 at 10s", scenarios.Rate{From: 0, To: 100}, 10 * time.Second, 500, 10 * time.Second},
		{"ramp from zero: i=5 at 1s", scenarios.Rate{From: 0, To: 100}, 10 * time.Second, 5, time.Second},
		// Ramp 100→300 over 2s: N(t) = 100t + 50t², N(1) = 150.
		{"rising ramp: N(1s)=150", scenarios.Rate{From: 100, To: 300}, 2 * time.Second, 150, time.Second},
		// Falling ramp 300→100 over 2s: N(t) = 300t − 50t², N(1) = 250, N(2) = 400.
		{"falling ramp: N(1s)=250", scenarios.Rate{From: 300, To: 100}, 2 * time.Second, 250, time.Second},
		{"falling ramp: N(2s)=400", scenarios.Rate{From: 300, To: 100}, 2 * time.Second, 400, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := arrivalOffset(tc.rate, tc.d, tc.i)
			if diff := got - tc.want; diff < -time.Microsecond || diff > time.Microsecond {
				t.Errorf("arrivalOffset(%v, %v, %d) = %v, want %v", tc.rate, tc.d, tc.i, got, tc.want)
			}
		})
	}
}

func TestArrivalsDueInvertsArrivalOffset(t *testing.T) {
	for _, r := range []scenarios.Rate{{From: 2000, To: 2000}, {From: 0, To: 100}, {From: 100, To: 300}, {From: 300, To: 100}, {From: 0.5, To: 0.5}} {
		d := 4 * time.Second
		for i := int64(0); i < 50; i++ {
			at := arrivalOffset(r, d, i)
			if at > d {
				break
			}
			// Arrival i is due before any instant just after it, and not before its own time.
			if got := arrivalsDue(r, d, at+time.Microsecond); got != i+1 {
				t.Errorf("%v: arrivalsDue(just after arrival %d at %v) = %d, want %d", r, i, at, got, i+1)
			}
			if got := arrivalsDue(r, d, at); got != i && at > 0 {
				t.Errorf("%v: arrivalsDue(exactly arrival %d at %v) = %d, want %d", r, i, at, got, i)
			}
		}
	}
}

func TestRampStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase scenarios.Phase
		w     int
		want  time.Duration
	}{
		{"no ramp: everyone at once", scenarios.Phase{Concurrency: 8}, 7, 0},
		{"ramp_up: worker 0 at once", scenarios.Phase{Concurrency: 4, RampUp: 400 * time.Millisecond}, 0, 0},
		{"ramp_up: worker 3 of 4 at 3/4", scenarios.Phase{Concurrency: 4, RampUp: 400 * time.Millisecond}, 3, 300 * time.Millisecond},
		{"concurrency ramp: the from workers start at once", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 1, 0},
		{"concurrency ramp 2→5 over 4s: worker 2 joins at 1s", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 2, time.Second},
		{"concurrency ramp 2→5 over 4s: the last joins at 3s, before the end", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 4, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rampStart(&tc.phase, tc.w); got != tc.want {
				t.Errorf("rampStart = %v, want %v", got, tc.want)
			}
		})
	}
}
