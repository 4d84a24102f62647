package demoserver

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestFaultsNext(t *testing.T) {
	const draws = 1000
	tests := []struct {
		name      string
		delay     time.Duration
		jitter    time.Duration
		errorRate float64
		wantFails func(n int) bool
	}{
		// No knobs: the fast path, no draw, no wait, never fails.
		{name: "none", wantFails: func(n int) bool { return n == 0 }},
		// A fixed delay is exact when there is no jitter.
		{name: "delay only", delay: 7 * time.Millisecond, wantFails: func(n int) bool { return n == 0 }},
		// Rate 1 must fail every time, not "almost always".
		{name: "always fail", errorRate: 1, wantFails: func(n int) bool { return n == draws }},
		// Jitter stays within [delay, delay+jitter).
		{name: "jitter", delay: 5 * time.Millisecond, jitter: 3 * time.Millisecond, wantFails: func(n int) bool { return n == 0 }},
		// Rate 0.1 over 1000 draws: far outside 50..150 means a broken draw.
		{name: "tenth", errorRate: 0.1, jitter: time.Millisecond, wantFails: func(n int) bool { return n > 50 && n < 150 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newFaults(Config{Delay: tt.delay, Jitter: tt.jitter, ErrorRate: tt.errorRate, Seed: 1}, time.Now())
			fails := 0
			for range draws {
				wait, fail := f.next()
				if fail {
					fails++
				}
				if wait < tt.delay || (tt.jitter == 0 && wait != tt.delay) || (tt.jitter > 0 && wait >= tt.delay+tt.jitter) {
					t.Fatalf("wait = %v, want in [%v, %v+%v)", wait, tt.delay, tt.delay, tt.jitter)
				}
			}
			if !tt.wantFails(fails) {
				t.Errorf("%d of %d draws failed", fails, draws)
			}
		})
	}
}

// TestFaultsNextReplaysOldSeeds pins the draw order of the default
// distribution: one Float64 for the error, then one Int64N for the jitter,
// so a seed logged by an earlier version replays the same run.
func TestFaultsNextReplaysOldSeeds(t *testing.T) {
	const (
		seed   = 42
		delay  = 3 * time.Millisecond
		jitter = 5 * time.Millisecond
	)
	f, _ := newFaults(Config{Delay: delay, Jitter: jitter, ErrorRate: 0.5, Seed: seed}, time.Now())
	ref := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range 100 {
		wantFail := ref.Float64() < 0.5
		wantWait := delay + time.Duration(ref.Int64N(int64(jitter)))
		if wait, fail := f.next(); wait != wantWait || fail != wantFail {
			t.Fatalf("draw %d = (%v, %v), want (%v, %v)", i, wait, fail, wantWait, wantFail)
		}
	}
}

func TestFaultsSeed(t *testing.T) {
	for _, dist := range []DelayDist{DelayConstant, DelayUniform, DelayExponential, DelayNormal} {
		t.Run(dist.String(), func(t *testing.T) {
			sequence := func(seed uint64) []time.Duration {
				f, _ := newFaults(Config{Jitter: time.Second, DelayDist: dist, ErrorRate: 0.5, Seed: seed}, time.Now())
				var out []time.Duration
				for range 20 {
					wait, fail := f.next()
					if fail {
						wait = -wait - 1 // fold the error decision into one comparable value
					}
					out = append(out, wait)
				}
				return out
			}
			if a, b := sequence(42), sequence(42); !slices.Equal(a, b) {
				t.Errorf("same seed gave different sequences:\n%v\n%v", a, b)
			}
			if a, b := sequence(42), sequence(43); slices.Equal(a, b) {
				t.Errorf("seeds 42 and 43 gave the same sequence %v", a)
			}
			// Seed 0 picks a random seed, and reports it so the run can be replayed.
			_, seed := newFaults(Config{Jitter: time.Second, ErrorRate: 0.5}, time.Now())
			if seed == 0 {
				t.Fatal("seed 0 was not replaced")
			}
			if a, b := sequence(seed), sequence(seed); !slices.Equal(a, b) {
				t.Error("the reported random seed does not replay")
			}
		})
	}
}

func TestStallRemaining(t *testing.T) {
	const (
		ms = time.Millisecond
		s  = time.Second
	)
	tests := []struct {
		name       string
		since      time.Duration
		every, dur time.Duration
		want       time.Duration
	}{
		// Window 0 begins at the server's start: the first stall is immediate.
		{name: "start of window 0", since: 0, every: s, dur: 300 * ms, want: 300 * ms},
		// One nanosecond in, the stall has that much less to go.
		{name: "just after start", since: 1, every: s, dur: 300 * ms, want: 300*ms - 1},
		// Mid-stall: the rest of the stall.
		{name: "mid stall", since: 120 * ms, every: s, dur: 300 * ms, want: 180 * ms},
		// The last instant inside the stall leaves one nanosecond.
		{name: "last instant of stall", since: 300*ms - 1, every: s, dur: 300 * ms, want: 1},
		// The stall's end is exclusive: a response ready then goes out.
		{name: "stall end", since: 300 * ms, every: s, dur: 300 * ms, want: 0},
		// Between stalls nothing is held.
		{name: "between stalls", since: 650 * ms, every: s, dur: 300 * ms, want: 0},
		// The last instant before the next window is still free.
		{name: "just before next window", since: s - 1, every: s, dur: 300 * ms, want: 0},
		// Window 1 begins exactly at EVERY.
		{name: "start of window 1", since: s, every: s, dur: 300 * ms, want: 300 * ms},
		// Any later window behaves like the first.
		{name: "inside window 5", since: 5*s + 250*ms, every: s, dur: 300 * ms, want: 50 * ms},
		// After a long run the windows have not drifted.
		{name: "after 1000 hours", since: 1000*time.Hour + 10*ms, every: s, dur: 300 * ms, want: 290 * ms},
		// Windows need not divide a second.
		{name: "odd period", since: 7*ms + 2*(333*ms), every: 333 * ms, dur: 10 * ms, want: 3 * ms},
		// The smallest possible stall: 1ns out of every 2ns.
		{name: "1ns of 2ns, stalled", since: 4, every: 2, dur: 1, want: 1},
		{name: "1ns of 2ns, free", since: 5, every: 2, dur: 1, want: 0},
		// Stalled all but the last nanosecond of each window.
		{name: "almost always stalled, free instant", since: s - 1, every: s, dur: s - 1, want: 0},
		{name: "almost always stalled, stalled", since: s, every: s, dur: s - 1, want: s - 1},
		// A clock read before the epoch must not stall (or divide oddly).
		{name: "before start", since: -1, every: s, dur: 300 * ms, want: 0},
		// Both 0 is "off".
		{name: "off", since: 100 * ms, every: 0, dur: 0, want: 0},
		// Half-configured knobs are refused by validate; here they mean off.
		{name: "no FOR", since: 0, every: s, dur: 0, want: 0},
		{name: "no EVERY", since: 0, every: 0, dur: 300 * ms, want: 0},
		{name: "negative EVERY", since: 0, every: -s, dur: 300 * ms, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stallRemaining(tt.since, tt.every, tt.dur); got != tt.want {
				t.Errorf("stallRemaining(%v, %v, %v) = %v, want %v", tt.since, tt.every, tt.dur, got, tt.want)
			}
		})
	}
}

// TestStallRemainingExhaustive compares stallRemaining with a literal
// reading of the definition (window k covers [k·every, k·every+dur)) at
// every nanosecond of the first windows, for every small period and length.
func TestStallRemainingExhaustive(t *testing.T) {
	naive := func(since, every, dur time.Duration) time.Duration {
		for k := time.Duration(0); k*every <= since; k++ {
			if start := k * every; since < start+dur {
				return start + dur - since
			}
		}
		return 0
	}
	for every := time.Duration(1); every <= 12; every++ {
		for dur := time.Duration(1); dur < every; dur++ {
			for since := -every; since <= 6*every; since++ {
				got := stallRemaining(since, every, dur)
				if want := naive(since, every, dur); got != want {
					t.Fatalf("stallRemaining(%d, %d, %d) = %d, want %d", since, every, dur, got, want)
				}
				// Waiting the returned time lands just outside the stall.
				if got > 0 && stallRemaining(since+got, every, dur) != 0 {
					t.Fatalf("stallRemaining(%d, %d, %d) = %d does not reach the stall's end", since, every, dur, got)
				}
			}
		}
	}
}

func TestFaultsStallWait(t *testing.T) {
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f, _ := newFaults(Config{StallEvery: time.Second, StallFor: 300 * time.Millisecond, Seed: 1}, epoch)
	if !f.stalls() {
		t.Fatal("stalls() = false with a stall configured")
	}
	if got := f.stallWait(epoch.Add(3*time.Second + 100*time.Millisecond)); got != 200*time.Millisecond {
		t.Errorf("stallWait 100ms into window 3 = %v, want 200ms", got)
	}
	if got := f.stallWait(epoch.Add(3*time.Second + 400*time.Millisecond)); got != 0 {
		t.Errorf("stallWait after the stall = %v, want 0", got)
	}
	if off, _ := newFaults(Config{Seed: 1}, epoch); off.stalls() {
		t.Error("stalls() = true with no stall configured")
	}
}

func TestFaultsClosesConn(t *testing.T) {
	tests := []struct {
		name       string
		closeAfter int
		served     int64
		want       bool
	}{
		// 0 keeps connections open however many requests they carry.
		{name: "off", closeAfter: 0, served: 1000, want: false},
		// Before the N-th request the connection stays open.
		{name: "before N", closeAfter: 3, served: 2, want: false},
		// The N-th response is the last.
		{name: "at N", closeAfter: 3, served: 3, want: true},
		// Past N cannot happen over HTTP/1.1, but must not reopen.
		{name: "past N", closeAfter: 3, served: 4, want: true},
		// N = 1 closes after every request.
		{name: "every request", closeAfter: 1, served: 1, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newFaults(Config{CloseAfter: tt.closeAfter, Seed: 1}, time.Now())
			if got := f.closesConn(tt.served); got != tt.want {
				t.Errorf("closesConn(%d) with CloseAfter %d = %v, want %v", tt.served, tt.closeAfter, got, tt.want)
			}
		})
	}
}

func TestSampleDelay(t *testing.T) {
	const (
		n  = 10_000
		ms = float64(time.Millisecond)
	)
	tests := []struct {
		name          string
		dist          DelayDist
		delay, jitter time.Duration
		wantMean      float64 // nanoseconds
		wantSD        float64 // nanoseconds
		min           time.Duration
		max           time.Duration // exclusive; 0 = unbounded
	}{
		// No spread: every distribution is exactly the delay.
		{name: "constant without jitter", dist: DelayConstant, delay: 10 * time.Millisecond,
			wantMean: 10 * ms, min: 10 * time.Millisecond, max: 10*time.Millisecond + 1},
		{name: "exponential without jitter", dist: DelayExponential, delay: 10 * time.Millisecond,
			wantMean: 10 * ms, min: 10 * time.Millisecond, max: 10*time.Millisecond + 1},
		{name: "normal without jitter", dist: DelayNormal, delay: 10 * time.Millisecond,
			wantMean: 10 * ms, min: 10 * time.Millisecond, max: 10*time.Millisecond + 1},
		// Constant with jitter is the original behaviour: D + uniform [0, J).
		{name: "constant with jitter", dist: DelayConstant, delay: 10 * time.Millisecond, jitter: 4 * time.Millisecond,
			wantMean: 12 * ms, wantSD: 4 * ms / math.Sqrt(12), min: 10 * time.Millisecond, max: 14 * time.Millisecond},
		// Uniform in [D, D+J): mean in the middle, sd J/√12.
		{name: "uniform", dist: DelayUniform, delay: 10 * time.Millisecond, jitter: 4 * time.Millisecond,
			wantMean: 12 * ms, wantSD: 4 * ms / math.Sqrt(12), min: 10 * time.Millisecond, max: 14 * time.Millisecond},
		// Uniform from zero.
		{name: "uniform from 0", dist: DelayUniform, jitter: time.Millisecond,
			wantMean: 0.5 * ms, wantSD: ms / math.Sqrt(12), min: 0, max: time.Millisecond},
		// Exponential: the tail sits above D, mean D+J, sd J.
		{name: "exponential", dist: DelayExponential, delay: 5 * time.Millisecond, jitter: 2 * time.Millisecond,
			wantMean: 7 * ms, wantSD: 2 * ms, min: 5 * time.Millisecond},
		// Exponential from zero: mean and sd both J.
		{name: "exponential from 0", dist: DelayExponential, jitter: 10 * time.Millisecond,
			wantMean: 10 * ms, wantSD: 10 * ms, min: 0},
		// Normal far from zero: clamping never bites, mean D and sd J.
		{name: "normal", dist: DelayNormal, delay: 50 * time.Millisecond, jitter: 5 * time.Millisecond,
			wantMean: 50 * ms, wantSD: 5 * ms, min: 0},
		// Normal around zero: half the draws clamp to 0, which gives
		// E[max(0,X)] = J/√(2π) and sd J·√(1/2 − 1/(2π)).
		{name: "normal clamped at 0", dist: DelayNormal, jitter: 10 * time.Millisecond,
			wantMean: 10 * ms / math.Sqrt(2*math.Pi), wantSD: 10 * ms * math.Sqrt(0.5-1/(2*math.Pi)), min: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var sum, sumSq float64
			for range n {
				d := sampleDelay(rng, tt.dist, tt.delay, tt.jitter)
				if d < tt.min || (tt.max > 0 && d >= tt.max) {
					t.Fatalf("sample %v outside [%v, %v)", d, tt.min, tt.max)
				}
				x := float64(d)
				sum += x
				sumSq += x * x
			}
			mean := sum / n
			sd := math.Sqrt(max(0, sumSq/n-mean*mean))
			// Five standard errors at most for these distributions; a
			// wrong formula is off by far more.
			tol := 0.05 * float64(tt.jitter)
			if math.Abs(mean-tt.wantMean) > tol {
				t.Errorf("mean = %.0fns, want %.0fns ± %.0fns", mean, tt.wantMean, tol)
			}
			if math.Abs(sd-tt.wantSD) > 0.06*tt.wantSD {
				t.Errorf("sd = %.0fns, want %.0fns ± 6%%", sd, tt.wantSD)
			}
		})
	}
}

// TestSampleDelayTails checks that unbounded tails neither overflow into
// negative durations nor wrap around.
func TestSampleDelayTails(t *testing.T) {
	huge := time.Duration(math.MaxInt64 / 2)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		if d := sampleDelay(rng, DelayExponential, huge, huge); d < huge {
			t.Fatalf("exponential sample %v below the delay %v", d, huge)
		}
		if d := sampleDelay(rng, DelayNormal, huge, huge); d < 0 {
			t.Fatalf("normal sample %v is negative", d)
		}
	}
}

func TestClampDuration(t *testing.T) {
	tests := []struct {
		name string
		ns   float64
		want time.Duration
	}{
		// In range: truncated to whole nanoseconds.
		{name: "in range", ns: 1.9, want: 1},
		// Negative draws of the normal distribution answer at once.
		{name: "negative", ns: -5, want: 0},
		// NaN cannot come from the samplers, but must not become garbage.
		{name: "NaN", ns: math.NaN(), want: 0},
		// 2⁶³ itself does not fit in an int64.
		{name: "2^63", ns: math.Exp2(63), want: math.MaxInt64},
		// Far beyond and infinite tails saturate.
		{name: "1e30", ns: 1e30, want: math.MaxInt64},
		{name: "+Inf", ns: math.Inf(1), want: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clampDuration(tt.ns); got != tt.want {
				t.Errorf("clampDuration(%v) = %d, want %d", tt.ns, got, tt.want)
			}
		})
	}
}

func TestDelayDistText(t *testing.T) {
	for _, d := range []DelayDist{DelayConstant, DelayUniform, DelayExponential, DelayNormal} {
		text, err := d.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%d): %v", d, err)
		}
		var back DelayDist
		if err := back.UnmarshalText(text); err != nil || back != d {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, d)
		}
	}
	if _, err := DelayDist(99).MarshalText(); err == nil {
		t.Error("MarshalText of an unknown distribution succeeded")
	}
	var d DelayDist
	if err := d.UnmarshalText([]byte("Normal")); err == nil {
		t.Error(`UnmarshalText("Normal") succeeded; names are lower case`)
	}
}
