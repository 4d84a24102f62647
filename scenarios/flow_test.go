package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func init() {
	okChecks["flow"] = checkFlowCorpus
}

// show renders a template for comparison: literals as is, placeholders as
// written, flow variables by slot.
func show(t Template) string { return templateText(t) }

// shownStep is what a test compares of a Step.
type shownStep struct {
	Name, Method, URL, Body string
	Headers                 []string
	Status                  []int
	Extract                 []string
	ThinkTime               time.Duration
}

func showStep(st Step) shownStep {
	out := shownStep{Name: st.Name, Method: st.Method, URL: show(st.URL), Body: show(st.Body), Status: st.Expect.Status, ThinkTime: st.ThinkTime}
	for _, h := range st.Headers {
		out.Headers = append(out.Headers, h.Name+": "+show(h.Value))
	}
	for _, x := range st.Extract {
		src := x.Path
		if x.Regex != nil {
			src = x.Regex.String()
		}
		out.Extract = append(out.Extract, fmt.Sprintf("$%d %s kind %d %s", x.Slot, x.Var, x.Kind, src))
	}
	return out
}

func checkFlowCorpus(t *testing.T, s *Scenario) {
	h := s.Targets[0].HTTP
	if h.Flow == nil {
		t.Fatal("target has no flow")
	}
	f := h.Flow
	wantVars := []FlowVar{
		{"users.name", 0, 0}, {"users.password", 0, 1}, {"items.sku", 1, 2},
		{"token", -1, 0}, {"item", -1, 0}, {"order_url", -1, 0}, {"order_id", -1, 0},
	}
	if diff := cmp.Diff(wantVars, f.Vars); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if !cmp.Equal(f.SetupData, []int{0}) || !cmp.Equal(f.StepData, []int{1}) || !f.Cookies {
		t.Errorf("setup data %v, step data %v, cookies %v; want [0], [1], true", f.SetupData, f.StepData, f.Cookies)
	}
	var got []shownStep
	for _, st := range append(f.Setup, f.Steps...) {
		got = append(got, showStep(st))
	}
	want := []shownStep{
		{Name: "login", Method: "POST", URL: "http://127.0.0.1:8080/login", Status: []int{200},
			Body:    `{"user":"{{$0}}","pass":"{{$1}}"}`,
			Headers: []string{"X-Client: loadgate", "Content-Type: application/json"},
			Extract: []string{"$3 token kind 0 access_token"}},
		{Name: "list", Method: "GET", URL: "http://127.0.0.1:8080/items?page={{rand_int 1 10}}", Status: []int{200},
			Headers: []string{"X-Client: loadgate", "Authorization: Bearer {{$3}}"},
			Extract: []string{"$4 item kind 0 items.0.id"}},
		{Name: "get", Method: "GET", URL: "http://127.0.0.1:8080/items/{{$4}}", Status: []int{200}, ThinkTime: 50 * time.Millisecond,
			Headers: []string{"Authorization: Bearer {{$3}}", "X-Client: flow"}},
		{Name: "order", Method: "POST", URL: "http://127.0.0.1:8080/orders?sku={{$2}}", Status: []int{201},
			Body:    `{"item":"{{$4}}","qty":{{rand_int 1 3}}}`,
			Headers: []string{"X-Client: loadgate"},
			Extract: []string{"$5 order_url kind 1 Location", `$6 order_id kind 2 "id":\s*(\d+)`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	wantReqs := []HTTPRequest{
		{Name: "list", Method: "GET", URL: "http://127.0.0.1:8080/items?page={{rand_int 1 10}}", Weight: 1},
		{Name: "get", Method: "GET", URL: "http://127.0.0.1:8080/items/{{item}}", Weight: 1},
		{Name: "order", Method: "POST", URL: "http://127.0.0.1:8080/orders?sku={{items.sku}}", Weight: 1},
	}
	if diff := cmp.Diff(wantReqs, h.Requests); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if h.Proxy != "http://proxy.example:3128" || filepath.Base(h.TLS.CertFile) != "client.pem" || filepath.Base(h.TLS.KeyFile) != "client.key" {
		t.Errorf("proxy %q, cert %q, key %q", h.Proxy, h.TLS.CertFile, h.TLS.KeyFile)
	}
	if len(s.Data) != 2 {
		t.Fatalf("%d data sources, want 2", len(s.Data))
	}
	users, items := s.Data[0], s.Data[1]
	if users.Mode != DataUnique || users.OnExhausted != ExhaustedStop || users.Format != DataCSV || len(users.Rows) != 4 {
		t.Errorf("users: mode %d, on_exhausted %d, format %d, %d rows", users.Mode, users.OnExhausted, users.Format, len(users.Rows))
	}
	wantItems := [][]string{{"false", "17", "A-17"}, {"", "18", "B-18"}, {"true", "19", "C-19"}}
	if diff := cmp.Diff(wantItems, items.Rows); diff != "" || items.Mode != DataRandom || items.Format != DataJSONLines {
		t.Errorf("items: mode %d, format %d, rows (-want +got):\n%s", items.Mode, items.Format, diff)
	}
	if filepath.Base(users.File) != "users.csv" || !filepath.IsAbs(users.File) && !strings.Contains(users.File, "ok") {
		t.Errorf("users.File = %q, want it resolved against the scenario's directory", users.File)
	}
}

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name, in string
		cols     []string
		rows     int
		line     int
		msg      string
	}{
		{"ok", "a,b\n1,2\n3,4\n", []string{"a", "b"}, 2, 0, ""},
		{"bom and blank lines", "\ufeffa\n\nx\n\ny\n", []string{"a"}, 2, 0, ""},
		{"quoted comma", "a,b\n\"1,5\",2\n", []string{"a", "b"}, 1, 0, ""},
		{"empty", "", nil, 0, 0, "the file is empty"},
		{"header only", "a,b\n", nil, 0, 0, "no data rows"},
		{"ragged", "a,b\n1,2\n3\n", nil, 0, 3, "the row has 1 fields, the header has 2"},
		{"no header", "1,2\n3,4\n", nil, 0, 1, "must name the columns"},
		{"empty name", "a,,c\n1,2,3\n", nil, 0, 1, "column 2 of the header row has no name"},
		{"duplicate", "a,b,a\n1,2,3\n", nil, 0, 1, `names column "a" twice`},
		{"bad quote", "a\n\"x\n", nil, 0, 2, "extraneous or missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows, line, msg := parseCSV([]byte(tc.in))
			if !cmp.Equal(cols, tc.cols) || len(rows) != tc.rows || line != tc.line || !strings.Contains(msg, tc.msg) || (tc.msg == "") != (msg == "") {
				t.Errorf("got %v, %d rows, line %d, %q; want %v, %d rows, line %d, %q", cols, len(rows), line, msg, tc.cols, tc.rows, tc.line, tc.msg)
			}
		})
	}
}

func TestParseJSONLines(t *testing.T) {
	tests := []struct {
		name, in string
		cols     []string
		rows     [][]string
		line     int
		msg      string
	}{
		{"ok", `{"b":1.50,"a":"x"}` + "\n" + `{"a":null,"b":true}`, []string{"a", "b"}, [][]string{{"x", "1.50"}, {"", "true"}}, 0, ""},
		{"missing key", "{\"a\":1,\"b\":2}\n{\"a\":3}\n", nil, nil, 2, `key "b" is missing`},
		{"extra key", "{\"a\":1}\n{\"a\":3,\"c\":4}\n", nil, nil, 2, `key "c" is not in the first line`},
		{"nested", "{\"a\":{\"b\":1}}\n", nil, nil, 1, "holds an object or a list"},
		{"not an object", "[1]\n", nil, nil, 1, "expected a JSON object"},
		{"two values", "{\"a\":1} {\"a\":2}\n", nil, nil, 1, "more than one JSON value"},
		{"bad json", "{\"a\":\n", nil, nil, 1, "not valid JSON"},
		{"empty", "\n\n", nil, nil, 0, "no rows"},
		{"no keys", "{}\n", nil, nil, 1, "no keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows, line, msg := parseJSONLines([]byte(tc.in))
			if !cmp.Equal(cols, tc.cols) || !cmp.Equal(rows, tc.rows) || line != tc.line || !strings.Contains(msg, tc.msg) || (tc.msg == "") != (msg == "") {
				t.Errorf("got %v, %v, line %d, %q; want %v, %v, line %d, %q", cols, rows, line, msg, tc.cols, tc.rows, tc.line, tc.msg)
			}
		})
	}
}

// TestJudgeOnly parses a flow whose data file, body file and certificate
// are missing, as merge does with a part's stored source, and checks that
// the normal parse refuses the same text.
func TestJudgeOnly(t *testing.T) {
	src := []byte(`version: 1
name: judge
data:
  users: { file: gone.csv, mode: unique }
targets:
  - name: shop
    http:
      url: http://127.0.0.1:8080
      tls: { cert_file: gone.pem, key_file: gone.key }
      setup:
        - { name: login, path: /login, body: '{{users.name}}', extract: { token: { json: t } } }
      flow:
        - { name: get, path: /x, headers: { Authorization: 'Bearer {{token}}' }, body_file: gone.json }
phases:
  - { name: measured, duration: 1s, concurrency: 50 }
`)
	file := filepath.Join(t.TempDir(), "judge.yaml")
	if _, err := Parse(file, src, LoadOptions{}); err == nil {
		t.Fatal("Parse succeeded with missing files")
	}
	s, err := Parse(file, src, LoadOptions{JudgeOnly: true})
	if err != nil {
		t.Fatalf("judge-only Parse: %v", err)
	}
	if got := s.Targets[0].HTTP.Requests; len(got) != 1 || got[0].Name != "get" {
		t.Errorf("requests = %+v, want the one step", got)
	}
	if _, err := os.Stat(s.Data[0].File); err == nil || len(s.Data[0].Rows) != 0 {
		t.Errorf("data source %+v: want the missing file kept by name, with no rows", s.Data[0])
	}
}

// TestFlowExample keeps the flow example of docs/scenario.md (SPEC §12's)
// valid: completed with a header, phases and a users.csv, it parses into
// the flow the text describes.
func TestFlowExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	if err != nil {
		t.Skip("docs/scenario.md not found:", err)
	}
	_, rest, _ := strings.Cut(string(doc), "### Flows")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no yaml block after \"### Flows\"")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("name,password\na,1\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "version: 1\nname: flow-example\n" + example + "phases:\n  - { name: measured, duration: 1s, concurrency: 2 }\n"
	s, err := Parse(filepath.Join(dir, "shop.yaml"), []byte(src), LoadOptions{Vars: map[string]string{"host": "127.0.0.1:8080"}})
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	f := s.Targets[0].HTTP.Flow
	var names []string
	for _, st := range append(f.Setup, f.Steps...) {
		names = append(names, st.Name)
	}
	if !cmp.Equal(names, []string{"login", "list", "get", "order"}) || len(f.Setup) != 1 || !f.Cookies {
		t.Errorf("steps %v (%d in setup), cookies %v; want login in setup, then list, get, order, with cookies", names, len(f.Setup), f.Cookies)
	}
	if s.Data[0].Mode != DataUnique || s.Data[0].OnExhausted != ExhaustedStop {
		t.Errorf("users: mode %d, on_exhausted %d; want unique, stop", s.Data[0].Mode, s.Data[0].OnExhausted)
	}
}

// FuzzScopedTemplate checks that flow templates report problems inside the
// string and only ever hold slots the scope handed out.
func FuzzScopedTemplate(f *testing.F) {
	for _, s := range []string{"/items/{{item}}", "{{u.name}}{{seq}}", "{{nope}}", "{{ item }}{{u.name x}}", "{{item 1}}", "{{.}}"} {
		f.Add(s)
	}
	scope := func(name string) (int, string) {
		switch name {
		case "item":
			return 0, ""
		case "u.name":
			return 1, ""
		}
		return 0, "unknown " + name
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, errs := compileScoped(s, scope)
		for _, e := range errs {
			if e.Off < 0 || e.Off > len(s) {
				t.Fatalf("offset %d outside %q", e.Off, s)
			}
		}
		for _, p := range tpl.Parts {
			if p.Kind == PartVar && p.Slot != 0 && p.Slot != 1 {
				t.Fatalf("slot %d in %q", p.Slot, s)
			}
		}
	})
}
