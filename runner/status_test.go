package runner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestStatusCountsSlots(t *testing.T) {
	tests := []struct {
		codes []int
		want  map[string]int64
	}{
		{nil, nil}, // nothing counted: no map
		{[]int{200, 200, 503}, map[string]int64{"200": 2, "503": 1}}, //
		{[]int{100, 599}, map[string]int64{"100": 1, "599": 1}},      // both ends of the table
		{[]int{99, 600, 999}, map[string]int64{"other": 3}},          // outside 100–599
	}
	for _, tt := range tests {
		var s statusCounts
		for _, c := range tt.codes {
			s.add(c)
		}
		var got map[string]int64
		s.moveTo(&got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("codes %v (-want +got):\n%s", tt.codes, diff)
		}
		if s != (statusCounts{}) {
			t.Errorf("codes %v: moveTo left counts behind", tt.codes)
		}
	}
}

// TestCollectorSumsStatusesOverShards records on two shards across two
// seconds and checks that the phase and each named request see every
// response once.
func TestCollectorSumsStatusesOverShards(t *testing.T) {
	p := &results.PhaseResult{Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(), Connect: results.NewHistogram(),
		ByName: []*results.NamedResult{{Name: "a", Latency: results.NewHistogram()}, {Name: "b", Latency: results.NewHistogram()}}}
	shards := []*shard{newShard(2, false, false), newShard(2, false, false)}
	for _, sh := range shards {
		sh.statuses = new(statusCounts)
	}
	col := newCollector(p, shards)
	ok := protocols.Outcome{Status: 200}
	unavailable := protocols.Outcome{Kind: protocols.KindStatus, Status: 503}
	refused := protocols.Outcome{Kind: protocols.KindConnect} // no response, no status
	for sec := range 2 {
		for i := range 6 {
			shards[i%2].record(i%2, -1, time.Millisecond, 0, &ok)
		}
		shards[1].record(1, -1, time.Millisecond, 0, &unavailable)
		shards[0].record(0, -1, time.Millisecond, 0, &refused)
		col.closeSecond(sec, 0, 0)
	}
	if diff := cmp.Diff(map[string]int64{"200": 12, "503": 2}, p.StatusCodes); diff != "" {
		t.Errorf("phase (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"200": 6}, p.ByName[0].StatusCodes); diff != "" {
		t.Errorf("request a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"200": 6, "503": 2}, p.ByName[1].StatusCodes); diff != "" {
		t.Errorf("request b (-want +got):\n%s", diff)
	}
	if p.Requests != 16 {
		t.Errorf("requests = %d, want 16: the refused ones count as requests, not as statuses", p.Requests)
	}
}

func TestShardWithoutStatusesCountsNone(t *testing.T) {
	// A gRPC call's Status is a gRPC code: its shard has no statuses.
	p := &results.PhaseResult{Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(), Connect: results.NewHistogram()}
	sh := newShard(0, false, false)
	col := newCollector(p, []*shard{sh})
	sh.record(0, -1, time.Millisecond, 0, &protocols.Outcome{Kind: protocols.KindGRPC, Status: 14})
	col.closeSecond(0, 0, 0)
	if p.StatusCodes != nil {
		t.Errorf("status codes = %v, want none", p.StatusCodes)
	}
}

func TestCountsStatus(t *testing.T) {
	tests := []struct {
		name string
		t    scenarios.Target
		want bool
	}{
		{"HTTP/1.1", scenarios.Target{HTTP: &scenarios.HTTPTarget{}}, true},
		{"HTTP/2", scenarios.Target{HTTP: &scenarios.HTTPTarget{HTTP2: true}}, true},
		{"gRPC: its codes are not HTTP's", scenarios.Target{GRPC: &scenarios.GRPCTarget{}}, false},
		{"TCP", scenarios.Target{TCP: &scenarios.TCPTarget{}}, false},
		{"WebSocket: only a refused upgrade has a status", scenarios.Target{WebSocket: &scenarios.WebSocketTarget{}}, false},
	}
	for _, tt := range tests {
		if got := countsStatus(&tt.t); got != tt.want {
			t.Errorf("%s: countsStatus = %v, want %v", tt.name, got, tt.want)
		}
	}
}
