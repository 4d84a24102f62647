package exporters

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

const dashboardFile = "../docs/examples/grafana-loadgate.json"

// collect walks decoded JSON and calls fn with every string value of a
// key named key.
func collect(v any, key string, fn func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == key {
				fn(s)
			}
			collect(x, key, fn)
		}
	case []any:
		for _, x := range v {
			collect(x, key, fn)
		}
	}
}

var (
	// What names no metric: quoted strings, label matchers, ranges, and
	// the label lists of grouping and matching clauses.
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promNumbers  = regexp.MustCompile(`\b[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?(?:ms|[smhdwy])*\b`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	labelValues  = regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)
)

var promFunctions = []string{"sum", "max", "min", "avg", "count", "rate", "irate", "increase", "histogram_quantile",
	"max_over_time", "min_over_time", "last_over_time", "clamp_min", "topk", "bottomk"}

var promKeywords = []string{"and", "or", "unless", "offset", "bool"}

// metricsOf are the metric names an expression reads; any other bare
// name (a function it does not know) is returned as odd.
func metricsOf(expr string) (metrics, odd []string) {
	e := promStrings.ReplaceAllString(expr, `""`)
	e = promMatchers.ReplaceAllString(e, "")
	e = promGrouping.ReplaceAllString(e, "")
	e = promNumbers.ReplaceAllString(e, "0")
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		name := strings.TrimRight(strings.TrimSuffix(strings.TrimSpace(m[0]), "("), " ")
		switch {
		case m[1] != "":
			if !slices.Contains(promFunctions, name) {
				odd = append(odd, name+"(")
			}
		case slices.Contains(promKeywords, name):
		default:
			metrics = append(metrics, name)
		}
	}
	return metrics, odd
}

func TestMetricsOf(t *testing.T) {
	m, odd := metricsOf(`sum by (le, case) (rate(loadgate_request_duration_seconds_bucket{phase=~"a|b", x="{y}"}[$__rate_interval])) / on (case) group_left (k) foo_total offset 5m > 1e3 * 0.99`)
	if !slices.Equal(m, []string{"loadgate_request_duration_seconds_bucket", "foo_total"}) || len(odd) != 0 {
		t.Fatalf("metrics %v, odd %v", m, odd)
	}
	if _, odd := metricsOf(`absent(up)`); !slices.Equal(odd, []string{"absent("}) {
		t.Fatalf("odd %v", odd)
	}
}

// emittedMetrics are the names of the series a phase's update holds.
func emittedMetrics() []string {
	r := &results.PhaseResult{Latency: results.NewHistogram()}
	var names []string
	for _, s := range samples(phaseLabels("s", "t", "c", "p", ""), r, 0, make([]int64, len(Bounds))) {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	return names
}

// The dashboard is valid JSON, every panel query reads only metrics the
// exporter sends (and at least one), and every variable lists the values
// of one of them.
func TestDashboardNamesOnlyExportedMetrics(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s is not JSON: %v", dashboardFile, err)
	}
	emitted := emittedMetrics()
	exprs := 0
	collect(dash, "expr", func(expr string) {
		exprs++
		metrics, odd := metricsOf(expr)
		if len(metrics) == 0 {
			t.Errorf("%q reads no metric", expr)
		}
		for _, m := range metrics {
			if !slices.Contains(emitted, m) {
				t.Errorf("%q reads %s, which the exporter does not send (it sends %v)", expr, m, emitted)
			}
		}
		if len(odd) > 0 {
			t.Errorf("%q calls %v, unknown to this test: add it to promFunctions if it is PromQL", expr, odd)
		}
	})
	if exprs < 5 {
		t.Errorf("%d queries in the dashboard, want its panels'", exprs)
	}
	vars := 0
	collect(dash, "definition", func(q string) {
		vars++
		m := labelValues.FindStringSubmatch(q)
		if m == nil || !slices.Contains(emitted, m[1]) {
			t.Errorf("variable query %q does not list a label of a metric the exporter sends", q)
		}
	})
	if vars == 0 {
		t.Error("no variables")
	}
}

// docs/observability.md lists the bucket bounds the exporter sends.
func TestDocumentedBounds(t *testing.T) {
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "The bounds, in seconds,")
	if !ok {
		t.Fatal("docs/observability.md no longer says the bounds")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	want := append(slices.Clone(leValues), "+Inf")
	if got := strings.Fields(block); !slices.Equal(got, want) {
		t.Errorf("docs/observability.md lists the bounds\n%v\nthe exporter sends\n%v", got, want)
	}
}
