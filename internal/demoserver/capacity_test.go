package demoserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestServiceTime(t *testing.T) {
	tests := []struct {
		rps     float64
		workers int
		want    time.Duration
	}{
		{rps: 2000, workers: 8, want: 4 * time.Millisecond},
		{rps: 5000, workers: 8, want: 1600 * time.Microsecond},
		{rps: 10000, workers: 10, want: time.Millisecond},
		{rps: 3, workers: 1, want: 333333333 * time.Nanosecond},
		{rps: 0.5, workers: 2, want: 4 * time.Second},
	}
	for _, tt := range tests {
		if got := serviceTime(tt.rps, tt.workers); got != tt.want {
			t.Errorf("serviceTime(%v, %d) = %v, want %v", tt.rps, tt.workers, got, tt.want)
		}
	}
}

func TestCapacityDefaults(t *testing.T) {
	tests := []struct {
		rps                    float64
		wantWorkers, wantQueue int
	}{
		{rps: 0.5, wantWorkers: 8, wantQueue: 1},
		{rps: 2000, wantWorkers: 8, wantQueue: 2000},
		{rps: 8000, wantWorkers: 8, wantQueue: 8000},
		{rps: 8001, wantWorkers: 9, wantQueue: 8001},
		{rps: 10000, wantWorkers: 10, wantQueue: 10000},
		{rps: 12345.5, wantWorkers: 13, wantQueue: 12346},
	}
	for _, tt := range tests {
		w, q := capacityDefaults(tt.rps)
		if w != tt.wantWorkers || q != tt.wantQueue {
			t.Errorf("capacityDefaults(%v) = %d, %d; want %d, %d", tt.rps, w, q, tt.wantWorkers, tt.wantQueue)
		}
		// The default pool never has a service time under 1 ms.
		if st := serviceTime(tt.rps, w); st < time.Millisecond {
			t.Errorf("default service time at %v req/s is %v, want ≥ 1ms", tt.rps, st)
		}
	}
}

func TestServiceEnd(t *testing.T) {
	const s = 10 * time.Millisecond
	if maxCatchUp != 50*time.Millisecond {
		t.Fatalf("the cases below assume a catch-up limit of 50ms, not %v", maxCatchUp)
	}
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name              string
		due, arrival, now time.Time
		want              time.Time
	}{
		{name: "idle worker starts at arrival", due: at(-500), arrival: at(0), now: at(0), want: at(10)},
		{name: "new worker (zero due)", due: time.Time{}, arrival: at(0), now: at(0), want: at(10)},
		// The request waited; the worker's timer fired 2 ms late: the
		// next service starts when the last was due to end.
		{name: "busy worker catches up its lateness", due: at(10), arrival: at(3), now: at(12), want: at(20)},
		{name: "on time", due: at(10), arrival: at(3), now: at(10), want: at(20)},
		{name: "late by most of the catch-up limit", due: at(10), arrival: at(3), now: at(55), want: at(20)},
		// Catch-up is capped at maxCatchUp: no long burst after a pause.
		{name: "catch-up capped", due: at(10), arrival: at(3), now: at(100), want: at(60)},
		{name: "arrived after the previous end", due: at(10), arrival: at(11), now: at(12), want: at(21)},
		// A timestamp due in the future cannot occur with one request per
		// worker, but must not shorten the service either.
		{name: "due ahead of now", due: at(15), arrival: at(0), now: at(12), want: at(25)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serviceEnd(tt.due, tt.arrival, tt.now, s); !got.Equal(tt.want) {
				t.Errorf("serviceEnd = %v, want %v", got.Sub(t0), tt.want.Sub(t0))
			}
		})
	}
}

func TestParseFlagsCapacity(t *testing.T) {
	type knobs struct {
		Capacity float64
		Workers  int
		Queue    int
	}
	tests := []struct {
		name    string
		args    []string
		want    knobs
		wantErr string
	}{
		{name: "off by default", args: nil},
		{name: "defaults derived", args: []string{"--capacity", "5000"}, want: knobs{5000, 8, 5000}},
		{name: "many workers above 8000", args: []string{"--capacity", "10000"}, want: knobs{10000, 10, 10000}},
		{name: "explicit", args: []string{"--capacity", "2000", "--capacity-workers", "4", "--capacity-queue", "100"},
			want: knobs{2000, 4, 100}},
		{name: "fractional", args: []string{"--capacity=0.5"}, want: knobs{0.5, 8, 1}},
		{name: "negative", args: []string{"--capacity", "-1"}, wantErr: "capacity -1"},
		{name: "NaN", args: []string{"--capacity", "NaN"}, wantErr: "outside"},
		{name: "too high", args: []string{"--capacity", "2e8"}, wantErr: "outside"},
		{name: "workers without capacity", args: []string{"--capacity-workers", "4"}, wantErr: "need --capacity"},
		{name: "queue without capacity", args: []string{"--capacity-queue", "4"}, wantErr: "need --capacity"},
		{name: "negative workers", args: []string{"--capacity", "10", "--capacity-workers", "-1"}, wantErr: "capacity-workers"},
		{name: "too many workers", args: []string{"--capacity", "10", "--capacity-workers", "100001"}, wantErr: "capacity-workers"},
		{name: "negative queue", args: []string{"--capacity", "10", "--capacity-queue", "-1"}, wantErr: "capacity-queue"},
		{name: "service time too short", args: []string{"--capacity", "1e6", "--capacity-workers", "1"}, wantErr: "service time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got := (knobs{cfg.Capacity, cfg.CapacityWorkers, cfg.CapacityQueue}); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// getCtx sends GET url and returns the status and body, or the error of a
// request that was cancelled.
func getCtx(ctx context.Context, c *http.Client, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestCapacityPoolBoundsConcurrency lines requests up against a pool of two
// workers whose service time is far longer than the test: two are in
// service, the third waits, the fourth finds the queue full and is refused
// at once, while /health and /stats stay outside the model.
func TestCapacityPoolBoundsConcurrency(t *testing.T) {
	s := start(t, Config{Capacity: 0.001, CapacityWorkers: 2, CapacityQueue: 1}) // 2000 s a request
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			_, _, err := getCtx(ctx, c, base+"/")
			errs <- err
		})
	}
	waitFor(t, func() bool { st := s.Stats().Capacity; return st.InService == 2 && st.Waiting == 1 })

	r := do(t, c, http.MethodGet, base+"/time", "", nil)
	if r.status != http.StatusServiceUnavailable || r.body != "over capacity\n" {
		t.Errorf("request beyond the queue: %d %q, want 503 \"over capacity\\n\"", r.status, r.body)
	}
	for _, path := range []string{"/health", "/stats"} {
		if r := do(t, c, http.MethodGet, base+path, "", nil); r.status != http.StatusOK {
			t.Errorf("%s while saturated: %d, want 200", path, r.status)
		}
	}
	var js struct{ Capacity CapacityStats }
	if err := json.Unmarshal([]byte(do(t, c, http.MethodGet, base+"/stats", "", nil).body), &js); err != nil {
		t.Fatal(err)
	}
	want := CapacityStats{RPS: 0.001, Workers: 2, Queue: 1, ServiceTime: 2000 * time.Second,
		Queued: 1, Rejected: 1, Waiting: 1, InService: 2, MaxInService: 2}
	if js.Capacity != want {
		t.Errorf("/stats capacity = %+v, want %+v", js.Capacity, want)
	}

	// Clients that give up free their workers and their place in the queue.
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			t.Error("a held request was answered; want it cancelled")
		}
	}
	waitFor(t, func() bool { st := s.Stats().Capacity; return st.InService == 0 && st.Waiting == 0 })
	if st := s.Stats().Capacity; st.Served != 0 || st.MaxInService != 2 {
		t.Errorf("after cancelling: served %d, max in service %d; want 0, 2", st.Served, st.MaxInService)
	}
}

// TestCapacityPoolServesEveryRequest sends more concurrent requests than
// there are workers: every one is answered in full, and no more than the
// pool's size are ever in service at once.
func TestCapacityPoolServesEveryRequest(t *testing.T) {
	const workers, clients, each = 2, 8, 25
	s := start(t, Config{Capacity: 20000, CapacityWorkers: workers, CapacityQueue: clients}) // 100 µs a request
	c := newClient(t, true)
	url := "http://" + s.HTTPAddr() + "/"
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range each {
				status, body, err := getCtx(t.Context(), c, url)
				if err != nil || status != http.StatusOK || body != "hello" {
					t.Errorf("GET /: %d %q %v, want 200 hello", status, body, err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := s.Stats().Capacity
	if st.Served != clients*each || st.Rejected != 0 || st.InService != 0 || st.Waiting != 0 {
		t.Errorf("served %d rejected %d in service %d waiting %d; want %d, 0, 0, 0",
			st.Served, st.Rejected, st.InService, st.Waiting, clients*each)
	}
	if st.MaxInService < 1 || st.MaxInService > workers {
		t.Errorf("max in service %d, want 1..%d", st.MaxInService, workers)
	}
	if st.Queued > st.Served {
		t.Errorf("queued %d > served %d", st.Queued, st.Served)
	}
}

func TestStatsLeaveCapacityOutWhenOff(t *testing.T) {
	s := start(t, Config{})
	if s.Stats().Capacity != nil {
		t.Error("Stats().Capacity set without the model")
	}
	body := do(t, newClient(t, false), http.MethodGet, "http://"+s.HTTPAddr()+"/stats", "", nil).body
	if strings.Contains(body, "capacity") {
		t.Errorf("/stats mentions capacity without the model: %s", body)
	}
}
