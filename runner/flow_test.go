package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// tpl compiles a test template: {{seq}} and {{worker}} are built-ins, any
// other {{name}} is the flow variable of that name in vars.
func tpl(vars []scenarios.FlowVar, s string) scenarios.Template {
	var t scenarios.Template
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartLiteral, Literal: []byte(s)})
			break
		}
		if i > 0 {
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartLiteral, Literal: []byte(s[:i])})
		}
		j := strings.Index(s, "}}")
		name := s[i+2 : j]
		s = s[j+2:]
		switch name {
		case "seq":
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartSeq})
		case "worker":
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartWorker})
		default:
			slot := -1
			for k, v := range vars {
				if v.Name == name {
					slot = k
				}
			}
			if slot < 0 {
				panic("unknown variable " + name)
			}
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartVar, Slot: slot})
		}
	}
	return t
}

// step is a flow step of the test API with no checks but the status.
func step(vars []scenarios.FlowVar, name, method, url string, status ...int) scenarios.Step {
	return scenarios.Step{Name: name, Method: method, URL: tpl(vars, url),
		Expect: scenarios.Expect{Status: status, Length: -1}}
}

func slotOf(vars []scenarios.FlowVar, name string) int {
	for i, v := range vars {
		if v.Name == name {
			return i
		}
	}
	panic(name)
}

// flowScenario is a scenario of one flow target, its requests named after
// the steps as the model has them.
func flowScenario(f *scenarios.Flow, data []*scenarios.DataSource, phases ...scenarios.Phase) *scenarios.Scenario {
	h := scenarios.HTTPTarget{Keepalive: true, Flow: f}
	for _, st := range f.Steps {
		h.Requests = append(h.Requests, scenarios.HTTPRequest{Name: st.Name, URL: "http://unused/"})
	}
	sc := httpScenario(h, phases...)
	sc.Data = data
	return sc
}

// apiServer is a small stateful API: login gives a token, the items need
// it, an order is created with its Location, and every path is counted.
type apiServer struct {
	mu     sync.Mutex
	counts map[string]int
	users  map[string]int // logins per user
	items  string         // the JSON of GET /items
	login  int            // the status of POST /login
}

func newAPIServer(t *testing.T) (*apiServer, *countingServer) {
	a := &apiServer{counts: map[string]int{}, users: map[string]int{}, items: `{"items":[{"id":42},{"id":7}]}`, login: 200}
	return a, newCountingServer(t, a.serve)
}

func (a *apiServer) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts[key]
}

func (a *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	path := r.URL.Path
	key := r.Method + " " + path
	if strings.HasPrefix(path, "/items/") {
		key = "GET /items/{id}"
	}
	a.counts[key]++
	authorized := r.Header.Get("Authorization") == "Bearer tok-"+r.Header.Get("X-User")
	switch {
	case key == "POST /login":
		body, _ := io.ReadAll(r.Body)
		user := regexp.MustCompile(`"user":"([^"]*)"`).FindStringSubmatch(string(body))
		if a.login != 200 || user == nil {
			w.WriteHeader(a.login)
			return
		}
		a.users[user[1]]++
		fmt.Fprintf(w, `{"access_token":"tok-%s","ttl":60}`, user[1])
	case !authorized:
		w.WriteHeader(http.StatusUnauthorized)
	case key == "GET /items":
		io.WriteString(w, a.items)
	case key == "GET /items/{id}":
		if path != "/items/42" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		io.WriteString(w, `{"id":42,"name":"lamp"}`)
	case key == "POST /orders":
		w.Header().Set("Location", "/orders/7")
		w.WriteHeader(http.StatusCreated)
	case key == "GET /orders/7":
		io.WriteString(w, "<order><ref>R-7</ref></order>")
	case key == "GET /refs/R-7":
		io.WriteString(w, "ok")
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// shopFlow is the flow of SPEC §12 against apiServer: log in with a user
// of the data, list, get the first item by id, order, follow the order's
// Location, and use the reference found in its body.
func shopFlow(base string) *scenarios.Flow {
	vars := []scenarios.FlowVar{
		{Name: "users.name", Source: 0, Column: 0},
		{Name: "token", Source: -1}, {Name: "item", Source: -1},
		{Name: "order_url", Source: -1}, {Name: "ref", Source: -1},
	}
	auth := []scenarios.HeaderTemplate{
		{Name: "Authorization", Value: tpl(vars, "Bearer {{token}}")},
		{Name: "X-User", Value: tpl(vars, "{{users.name}}")},
	}
	login := step(vars, "login", "POST", base+"/login", 200)
	login.Body = tpl(vars, `{"user":"{{users.name}}","pass":"x"}`)
	login.Extract = []scenarios.Extraction{{Var: "token", Slot: slotOf(vars, "token"), Kind: scenarios.ExtractJSON, Path: "access_token"}}
	list := step(vars, "list", "GET", base+"/items?page={{seq}}", 200)
	list.Extract = []scenarios.Extraction{{Var: "item", Slot: slotOf(vars, "item"), Kind: scenarios.ExtractJSON, Path: "items.0.id"}}
	get := step(vars, "get", "GET", base+"/items/{{item}}", 200)
	get.Expect.BodyContains = "lamp"
	order := step(vars, "order", "POST", base+"/orders", 201)
	order.Extract = []scenarios.Extraction{{Var: "order_url", Slot: slotOf(vars, "order_url"), Kind: scenarios.ExtractHeader, Path: "Location"}}
	follow := step(vars, "follow", "GET", base+"{{order_url}}", 200)
	follow.Extract = []scenarios.Extraction{{Var: "ref", Slot: slotOf(vars, "ref"), Kind: scenarios.ExtractRegex,
		Regex: regexp.MustCompile(`<ref>([A-Z]-\d+)</ref>`)}}
	ref := step(vars, "ref", "GET", base+"/refs/{{ref}}", 200)
	steps := []scenarios.Step{list, get, order, follow, ref}
	for i := range steps {
		steps[i].Headers = auth
	}
	return &scenarios.Flow{Setup: []scenarios.Step{login}, Steps: steps, Vars: vars, SetupData: []int{0}}
}

func usersData(mode scenarios.DataMode, exhausted scenarios.DataExhausted, names ...string) []*scenarios.DataSource {
	src := &scenarios.DataSource{Name: "users", Columns: []string{"name"}, Mode: mode, OnExhausted: exhausted}
	for _, n := range names {
		src.Rows = append(src.Rows, []string{n})
	}
	return []*scenarios.DataSource{src}
}

func TestFlowCarriesValuesFromStepToStep(t *testing.T) {
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			api, srv := newAPIServer(t)
			ph := scenarios.Phase{Name: "m", Requests: 40, Concurrency: 3}
			if open {
				ph = scenarios.Phase{Name: "m", Requests: 40, Rate: scenarios.Rate{From: 2000, To: 2000}, MaxInFlight: 3}
			}
			sc := flowScenario(shopFlow(srv.URL), usersData(scenarios.DataUnique, scenarios.ExhaustedStop, "ann", "bob", "cy", "dee"), ph)
			res, err := Run(context.Background(), sc, Config{})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Cases[0].Phases[0]
			if p.Iterations == nil || p.Iterations.Iterations != 40 || p.Iterations.Succeeded != 40 || p.Iterations.Latency.Count() != 40 {
				t.Fatalf("iterations = %+v, errors %v, want 40 succeeded", p.Iterations, p.ErrorSamples)
			}
			wantNames := []string{"list", "get", "order", "follow", "ref"}
			serverKeys := []string{"GET /items", "GET /items/{id}", "POST /orders", "GET /orders/7", "GET /refs/R-7"}
			if len(p.ByName) != len(wantNames) {
				t.Fatalf("by name: %d entries, want %d", len(p.ByName), len(wantNames))
			}
			for i, n := range p.ByName {
				if n.Name != wantNames[i] || n.Requests != 40 || n.Succeeded != 40 || n.Latency.Count() != 40 {
					t.Errorf("step %d = %s %+v, want %s: 40 succeeded", i, n.Name, n.Counters, wantNames[i])
				}
				if got := api.count(serverKeys[i]); int64(got) != n.Requests {
					t.Errorf("step %s: the server served %d, loadgate counted %d", n.Name, got, n.Requests)
				}
			}
			if p.Requests != 200 || p.Succeeded != 200 {
				t.Errorf("phase counts %d requests, %d succeeded; want the 200 step requests, setup excluded", p.Requests, p.Succeeded)
			}
			logins := api.count("POST /login")
			if logins < 1 || logins > 4 || len(api.users) != logins {
				t.Errorf("%d logins by users %v: want one per virtual user, each its own unique row", logins, api.users)
			}
		})
	}
}

func TestFlowFailedStepEndsIteration(t *testing.T) {
	for _, tc := range []struct {
		name      string
		items     string
		login     int
		kind      string
		sample    string
		stepsSent int // steps of list, get the server saw
	}{
		{"extract", `{"items":[]}`, 200, "extract", `step "list": extract item: json path "items.0.id" not found: got "{\"items\":[]}"`, 1},
		{"setup status", `{"items":[{"id":42}]}`, 503, "status", `setup step "login": unexpected status 503`, 0},
		// A value that would split the request line is never sent.
		{"line break in a value", `{"items":[{"id":"1\r\nX-Evil: 1"}]}`, 200, "other", `step "get": ` + httpflow.ErrUnsafeValue.Error(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, srv := newAPIServer(t)
			api.items, api.login = tc.items, tc.login
			sc := flowScenario(shopFlow(srv.URL), usersData(scenarios.DataSequential, scenarios.ExhaustedRecycle, "ann"),
				scenarios.Phase{Name: "m", Requests: 10, Concurrency: 2})
			res, err := Run(context.Background(), sc, Config{})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Cases[0].Phases[0]
			if p.Iterations.Failed != 10 || p.Iterations.Succeeded != 0 || p.Iterations.Latency.Count() != 0 {
				t.Errorf("iterations = %+v, want 10 failed", p.Iterations)
			}
			var n int64
			p.Errors.Each(func(kind string, c int64) {
				if kind == tc.kind {
					n = c
				}
			})
			if n != 10 || p.Failed != 10 {
				t.Errorf("errors = %+v, want 10 of kind %s", p.Errors, tc.kind)
			}
			if got := p.ErrorSamples[tc.kind]; got != tc.sample {
				t.Errorf("sample = %q, want %q", got, tc.sample)
			}
			if got := api.count("GET /items/{id}"); got != 0 {
				t.Errorf("the server got %d requests for the step after the failed one, want 0", got)
			}
			if got := api.count("GET /items"); got != 10*tc.stepsSent {
				t.Errorf("the server got %d list requests, want %d", got, 10*tc.stepsSent)
			}
			if tc.login != 200 && api.count("POST /login") != 10 {
				t.Errorf("%d logins, want 10: a user retries setup before each iteration", api.count("POST /login"))
			}
		})
	}
}
