package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf8"
)

// yamlBreaks are the line breaks YAML counts.
var yamlBreaks = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

// inside reports whether p names a character of data, or the end of a line.
func inside(data []byte, p Pos) bool {
	lines := yamlBreaks.Split(string(data), -1)
	return p.File == "fuzz.yaml" && p.Line >= 1 && p.Line <= len(lines) &&
		p.Col >= 1 && p.Col <= utf8.RuneCountInString(lines[p.Line-1])+1
}

// FuzzParse checks that no input makes Parse panic or hang, and that every
// diagnostic points inside the file.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"ok", "err"} {
		files, _ := filepath.Glob(filepath.Join(corpus, dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a]\nversion: *a\n"))
	f.Add([]byte("<<: {<<: {version: 1}}\n"))
	opts := LoadOptions{Vars: map[string]string{"host": "127.0.0.1:1"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, opts)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T, not a non-empty ErrorList: %v", err, err)
			}
			for _, e := range list {
				if !inside(data, e.Pos) {
					t.Errorf("diagnostic outside the file: %v", e)
				}
			}
			return
		}
		if len(s.Cases) == 0 || len(s.Targets) == 0 {
			t.Fatalf("valid scenario without cases or targets: %+v", s)
		}
		for _, c := range s.Cases {
			if c.Target.HTTP == nil || len(c.Target.HTTP.Requests) == 0 || len(c.Phases) == 0 {
				t.Fatalf("case %q is incomplete: %+v", c.ID, c)
			}
			for _, r := range c.Target.HTTP.Requests {
				if r.Weight < 1 || r.URL == "" || r.Method == "" {
					t.Fatalf("case %q: request %+v", c.ID, r)
				}
			}
			for _, p := range c.Phases {
				if !validPhase(p) {
					t.Fatalf("case %q: phase %+v", c.ID, p)
				}
			}
		}
		for _, th := range s.Thresholds {
			if !inside(data, th.Pos) || !inside(data, th.RulePos) {
				t.Errorf("threshold %q at %v (rule at %v) is outside the file", th.Name, th.Pos, th.RulePos)
			}
		}
	})
}

// validPhase states what the runner may rely on in a parsed phase.
func validPhase(p Phase) bool {
	ramp := p.ConcurrencyFrom > 0 || p.Rate.From != p.Rate.To
	var model bool
	if p.Rate.Open() {
		model = p.Concurrency == 0 && p.ConcurrencyFrom == 0 && p.MaxInFlight >= 1 &&
			p.Rate.From >= 0 && p.Rate.To >= 0 && p.RampUp == 0 && p.ThinkTime == 0
	} else {
		model = p.Concurrency >= 1 && p.MaxInFlight == 0 && p.Rate == (Rate{}) &&
			p.ConcurrencyFrom < p.Concurrency && !(p.ConcurrencyFrom > 0 && p.RampUp > 0)
	}
	return model && p.Trials >= 1 && (!p.Warmup || p.Trials == 1) &&
		(p.Duration > 0 || p.Requests > 0) && (!ramp || p.Duration > 0)
}
