package scenarios

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const loadModelHead = `version: 1
name: m
targets:
  - name: t
    http: { url: "http://h/" }
`

// TestLoadModelVariables checks the load-model fields through variables
// and the matrix, where a value's meaning (constant or ramp) can change
// from one combination to the next.
func TestLoadModelVariables(t *testing.T) {
	tests := []struct {
		name     string
		phases   string
		opts     LoadOptions
		want     []Phase // of every case, in order; nil when diagnostics are expected
		wantDiag string
	}{
		{
			name:   "a fractional rate from --var",
			phases: "phases:\n  - { name: p, duration: 1s, rate: \"${r}\", max_in_flight: \"${m}\" }\n",
			opts:   LoadOptions{Vars: map[string]string{"r": "0.25", "m": "4"}},
			want:   []Phase{{Name: "p", Duration: time.Second, Rate: Rate{0.25, 0.25}, MaxInFlight: 4, Trials: 1, GracefulStop: DefaultGracefulStop}},
		},
		{
			name:     "a bad rate from --var is reported at the use",
			phases:   "phases:\n  - { name: p, duration: 1s, rate: \"${r}\" }\n",
			opts:     LoadOptions{Vars: map[string]string{"r": "lots"}},
			wantDiag: "s.yaml:7:36: rate: expected a number of requests per second, got \"lots\"\n",
		},
		{
			// Only the combination whose ends differ is a ramp and needs
			// duration; the other is a constant level.
			name:     "a matrix value turns a constant into a ramp",
			phases:   "matrix:\n  top: [5, 50]\nphases:\n  - name: p\n    requests: 10\n    concurrency: { from: 5, to: \"${top}\" }\n",
			wantDiag: "s.yaml:11:5: concurrency: a ramp {from, to} spans the phase and needs duration\n",
		},
		{
			name:   "the same matrix with duration",
			phases: "matrix:\n  top: [5, 50]\nphases:\n  - name: p\n    duration: 1m\n    concurrency: { from: 5, to: \"${top}\" }\n",
			want: []Phase{
				{Name: "p", Duration: time.Minute, Concurrency: 5, Trials: 1, GracefulStop: DefaultGracefulStop},
				{Name: "p", Duration: time.Minute, ConcurrencyFrom: 5, Concurrency: 50, Trials: 1, GracefulStop: DefaultGracefulStop},
			},
		},
		{
			// A merged key sits where its anchor is: the conflict is
			// reported at the key written later in the file.
			name:     "rate merged in from an anchor, concurrency written in the phase",
			phases:   "phases:\n  - &open { name: a, duration: 1s, rate: 100 }\n  - { <<: *open, name: b, concurrency: 4 }\n",
			wantDiag: "s.yaml:8:27: rate and concurrency are exclusive: rate is the open model, concurrency the closed one\n",
		},
		{
			name:   "trials from a variable, with warmup: false written out",
			phases: "vars: { n: 7 }\nphases:\n  - { name: p, warmup: false, requests: 1, trials: \"${n}\" }\n",
			want:   []Phase{{Name: "p", Requests: 1, Concurrency: 1, Trials: 7, GracefulStop: DefaultGracefulStop}},
		},
		{
			name:   "graceful_stop written out, 0s gives up at once",
			phases: "phases:\n  - { name: a, duration: 1s, concurrency: 2, graceful_stop: 250ms }\n  - { name: b, duration: 1s, rate: 5, graceful_stop: 0s }\n",
			want: []Phase{
				{Name: "a", Duration: time.Second, Concurrency: 2, Trials: 1, GracefulStop: 250 * time.Millisecond},
				{Name: "b", Duration: time.Second, Rate: Rate{5, 5}, MaxInFlight: DefaultMaxInFlight, Trials: 1},
			},
		},
		{
			name:     "a graceful_stop that is no duration",
			phases:   "phases:\n  - { name: p, duration: 1s, concurrency: 1, graceful_stop: soon }\n",
			wantDiag: "s.yaml:7:61: graceful_stop: expected a duration such as 30s or 1m30s, got \"soon\"\n",
		},
		{
			name:     "a rate that overflows",
			phases:   "phases:\n  - { name: p, duration: 1s, rate: 1e400 }\n",
			wantDiag: "s.yaml:7:36: rate: 1e400 is too large\n",
		},
		{
			name:     "a rate that underflows to 0 is quoted as written",
			phases:   "phases:\n  - { name: p, duration: 1s, rate: 1e-400 }\n",
			wantDiag: "s.yaml:7:36: rate: must be greater than 0, got 1e-400\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := loadModelHead + tc.phases
			if diag := diagnostics(t, src, tc.opts); diag != tc.wantDiag {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", diag, tc.wantDiag)
			}
			if tc.want == nil {
				return
			}
			var got []Phase
			for _, c := range mustParse(t, src, tc.opts).Cases {
				for _, p := range c.Phases {
					p.Pos = Pos{}
					got = append(got, p)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("phases (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCorpusPhasesAreValid holds every valid corpus file to the promises
// the fuzz target checks, so that they are also checked without fuzzing.
func TestCorpusPhasesAreValid(t *testing.T) {
	for name := range okChecks {
		s, err := Load(corpus+"/ok/"+name+".yaml", LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range s.Cases {
			for _, p := range c.Phases {
				if !validPhase(p) {
					t.Errorf("%s, case %q: phase %+v", name, c.ID, p)
				}
			}
		}
	}
}
