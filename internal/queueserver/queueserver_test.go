package queueserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestServiceEnd(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const svc = 4 * time.Millisecond
	ms := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }
	tests := []struct {
		name              string
		due, arrival, now time.Time
		want              time.Time
	}{
		{"idle worker: the request starts on arrival", ms(0), ms(10), ms(10), ms(14)},
		{"idle worker woken late: still from arrival, within one service time", ms(0), ms(10), ms(12), ms(14)},
		{"busy worker whose timer woke 1 ms late: starts at due, no time lost", ms(8), ms(5), ms(9), ms(12)},
		{"request arrived after due but before the worker looked: starts on arrival", ms(8), ms(8.5), ms(9), ms(12.5)},
		{"worker not run for 100 ms: catches up one service time only", ms(8), ms(5), ms(108), ms(108)},
		{"first request ever (zero due) on an idle worker", time.Time{}, ms(3), ms(3), ms(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serviceEnd(tt.due, tt.arrival, tt.now, svc); !got.Equal(tt.want) {
				t.Errorf("serviceEnd = %v after t0, want %v", got.Sub(t0), tt.want.Sub(t0))
			}
		})
	}
}

func TestCapacity(t *testing.T) {
	tests := []struct {
		workers int
		service time.Duration
		want    float64
	}{
		{4, 4 * time.Millisecond, 1000},
		{1, 10 * time.Millisecond, 100},
		{8, 2 * time.Millisecond, 4000},
	}
	for _, tt := range tests {
		s := &Server{workers: tt.workers, service: tt.service}
		if got := s.Capacity(); got != tt.want {
			t.Errorf("%d workers × %v: capacity %v, want %v", tt.workers, tt.service, got, tt.want)
		}
	}
}

// TestServesEveryRequestQueued sends many more requests at once than there
// are workers: none is refused, every one is answered, and /stats counts
// them all with nothing left waiting.
func TestServesEveryRequestQueued(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := New(ctx, 2, time.Millisecond)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	const n = 40
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(ts.URL + "/x")
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d: status %d, want 200", i, c)
		}
	}
	resp, err := http.Get(ts.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	want := Stats{Workers: 2, Service: time.Millisecond, Received: n, Answered: n}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

// TestStoppingAnswers503 checks that a stopped server does not leave its
// waiting requests hanging.
func TestStoppingAnswers503(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(ctx, 1, time.Hour)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cancel()
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d after stop, want 503", resp.StatusCode)
	}
}
