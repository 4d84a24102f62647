package openapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// sent is a request as the imported scenario sends it, read back from the
// scenario loadgate resolved.
type sent struct {
	Name, Method, URL string
	Headers           []string // "Name: value", in order
	Body              string
}

func mixRequests(sc *scenarios.Scenario) []sent {
	var out []sent
	for _, t := range sc.Targets {
		for _, r := range t.HTTP.Requests {
			s := sent{Name: r.Name, Method: r.Method, URL: r.URL, Body: string(r.Body)}
			for _, h := range r.Headers {
				s.Headers = append(s.Headers, h.Name+": "+h.Value)
			}
			out = append(out, s)
		}
	}
	return out
}

// doc wraps paths (and components) in a 3.1 description with one server.
func doc(rest string) []byte {
	return []byte("openapi: 3.1.0\ninfo: {title: T, version: '1'}\nservers: [{url: 'http://127.0.0.1:9/v1'}]\n" + rest)
}

// TestImportMapsOperations: each part of an operation becomes what the
// scenario sends.
func TestImportMapsOperations(t *testing.T) {
	const u = "http://127.0.0.1:9/v1"
	ok := `responses: {"200": {description: ok}}`
	tests := []struct {
		name    string
		spec    string
		secrets map[string]string
		want    []sent
	}{
		{"name from the path, a variable no parameter declares", "paths:\n  /a/{b}:\n    delete: {" + ok + "}\n", nil,
			[]sent{{Name: "delete-a-b", Method: "DELETE", URL: u + "/a/string"}}},
		{"parameters from examples, defaults and enums", `paths:
  /pets/{id}/{kind}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}, example: 7}]
    get:
      operationId: get pet
      parameters:
        - {name: kind, in: path, required: true, schema: {type: string, enum: [cat dog, bird]}}
        - {name: limit, in: query, schema: {type: integer, default: 20}}
        - {name: skip, in: query, schema: {type: integer}}
        - {name: q, in: query, required: true, schema: {type: string, format: date}}
        - {name: X-Trace, in: header, required: true, schema: {type: string}, examples: {a: {value: t-1}}}
        - {name: Accept, in: header, required: true, schema: {type: string}, example: text/html}
        - {name: lang, in: cookie, example: en}
      ` + ok + "\n", nil,
			[]sent{{Name: "get-pet", Method: "GET", URL: u + "/pets/7/cat%20dog?limit=20&q=2024-01-01", Headers: []string{"X-Trace: t-1", "Cookie: lang=en"}}}},
		{"JSON body from the schema", `paths:
  /o:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [item, qty, tags, at, kind, id, owner]
              properties:
                item: {type: string, minLength: 8}
                qty: {type: integer, minimum: 2, exclusiveMinimum: 2}
                tags: {type: array, items: {type: string, format: uuid}}
                at: {type: string, format: date-time}
                kind: {enum: [a, b]}
                id: {type: integer, readOnly: true}
                owner: {allOf: [{type: object, required: [n], properties: {n: {type: boolean}}}, {type: object, required: [m], properties: {m: {type: number, maximum: -2.5}}}]}
                free: {type: string}
      ` + ok + "\n", nil,
			[]sent{{Name: "post-o", Method: "POST", URL: u + "/o", Headers: []string{"Content-Type: application/json"},
				Body: `{"item":"stringxx","qty":3,"tags":["00000000-0000-4000-8000-000000000000"],"at":"2024-01-01T00:00:00Z","kind":"a","owner":{"n":true,"m":-2.5}}`}}},
		{"body from the media type's example, form and text", `paths:
  /f:
    put:
      requestBody:
        content:
          application/xml: {example: "<a/>"}
          application/x-www-form-urlencoded:
            examples: {one: {value: {a: "x y", b: [1, 2], c: {d: 1}}}}
      ` + ok + `
  /t:
    post:
      requestBody: {content: {text/plain: {schema: {type: string, example: "hello ${x} {{y}}"}}}}
      ` + ok + "\n", nil,
			[]sent{
				{Name: "put-f", Method: "PUT", URL: u + "/f", Headers: []string{"Content-Type: application/x-www-form-urlencoded"}, Body: `a=x+y&b=1&b=2&c=%7B%22d%22%3A1%7D`},
				{Name: "post-t", Method: "POST", URL: u + "/t", Headers: []string{"Content-Type: text/plain"}, Body: "hello ${x} {{y}}"},
			}},
		{"security schemes as secret variables", `security: [{tok: []}]
paths:
  /a:
    get: {` + ok + `}
  /b:
    get: {security: [{key: [], q: [], c: []}], ` + ok + `}
  /c:
    get: {security: [{basic: []}, {tok: []}], ` + ok + `}
  /d:
    get: {security: [{}, {tok: []}], ` + ok + `}
  /e:
    get: {security: [{oauth: []}], ` + ok + `}
components:
  securitySchemes:
    tok: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Api-Key}
    q: {type: apiKey, in: query, name: api_key}
    c: {type: apiKey, in: cookie, name: sid}
    basic: {type: http, scheme: basic}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://h/t', scopes: {}}}}
`, map[string]string{"tok": "T", "key": "K", "q": "Q", "c": "C", "basic": "B", "oauth": "O"},
			[]sent{
				{Name: "get-a", Method: "GET", URL: u + "/a", Headers: []string{"Authorization: Bearer T"}},
				{Name: "get-b", Method: "GET", URL: u + "/b?api_key=Q", Headers: []string{"X-Api-Key: K", "Cookie: sid=C"}},
				{Name: "get-c", Method: "GET", URL: u + "/c", Headers: []string{"Authorization: Basic B"}},
				{Name: "get-d", Method: "GET", URL: u + "/d"},
				{Name: "get-e", Method: "GET", URL: u + "/e", Headers: []string{"Authorization: Bearer O"}},
			}},
		{"multipart is left out", `paths:
  /up:
    post:
      requestBody: {content: {multipart/form-data: {schema: {type: object}}}}
      ` + ok + `
  /ok:
    get: {` + ok + "}\n", nil,
			[]sent{{Name: "get-ok", Method: "GET", URL: u + "/ok"}}},
		{"self-referring schema is cut", `paths:
  /n:
    post:
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}}
      ` + ok + `
components:
  schemas:
    Node: {type: object, required: [kids], properties: {kids: {type: array, items: {$ref: '#/components/schemas/Node'}}}}
`, nil,
			[]sent{{Name: "post-n", Method: "POST", URL: u + "/n", Headers: []string{"Content-Type: application/json"}, Body: `{"kids":[{"kids":[{"kids":[{}]}]}]}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import("t.yaml", doc(tt.spec), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenarios.Parse("imported.yaml", res.Scenario, scenarios.LoadOptions{SecretVars: tt.secrets})
			if err != nil {
				t.Fatalf("%v\n%s", err, res.Scenario)
			}
			if d := cmp.Diff(tt.want, mixRequests(sc)); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, res.Scenario)
			}
			for _, secret := range tt.secrets {
				if strings.Contains(string(res.Scenario), ": "+secret+"\n") {
					t.Errorf("a credential is text in the scenario:\n%s", res.Scenario)
				}
			}
		})
	}
}

// TestImportStatuses: the documented success statuses are the expect of
// a step, and their union that of a mix, unless some operation documents
// none.
func TestImportStatuses(t *testing.T) {
	spec := func(responses ...string) []byte {
		var b strings.Builder
		b.WriteString("paths:\n")
		for i, r := range responses {
			fmt.Fprintf(&b, "  /p%d:\n    get: {tags: [x], responses: %s}\n", i, r)
		}
		return doc(b.String())
	}
	tests := []struct {
		name      string
		responses []string
		mix       []int   // nil: no expect, any 200-399
		steps     [][]int // nil entries: the step has none
	}{
		{"2xx codes", []string{`{"200": {description: a}, "404": {description: b}}`, `{"201": {description: a}, "204": {description: b}}`}, []int{200, 201, 204}, [][]int{{200}, {201, 204}}},
		{"3xx where no 2xx", []string{`{"302": {description: a}, "400": {description: b}}`}, []int{302}, [][]int{{302}}},
		{"default only", []string{`{"200": {description: a}}`, `{default: {description: b}}`}, nil, [][]int{{200}, nil}},
		{"a 2XX range", []string{`{"2XX": {description: a}}`}, nil, [][]int{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, flows := range []bool{false, true} {
				res, err := Import("t.yaml", spec(tt.responses...), Options{FlowPerTag: flows})
				if err != nil {
					t.Fatal(err)
				}
				sc, err := scenarios.Parse("imported.yaml", res.Scenario, scenarios.LoadOptions{})
				if err != nil {
					t.Fatalf("%v\n%s", err, res.Scenario)
				}
				h := sc.Targets[0].HTTP
				if !flows {
					if d := cmp.Diff(tt.mix, h.Expect.Status); d != "" {
						t.Errorf("mix (-want +got):\n%s\n%s", d, res.Scenario)
					}
					continue
				}
				var got [][]int
				for _, st := range h.Flow.Steps {
					got = append(got, st.Expect.Status)
				}
				if d := cmp.Diff(tt.steps, got); d != "" {
					t.Errorf("steps (-want +got):\n%s\n%s", d, res.Scenario)
				}
			}
		})
	}
}

// TestImportServers: a target per server, variables at their defaults,
// relative URLs resolved, --server instead of them all.
func TestImportServers(t *testing.T) {
	paths := "paths:\n  /a:\n    get: {responses: {\"200\": {description: ok}}}\n"
	head := "openapi: 3.0.3\ninfo: {title: T, version: '1'}\n"
	tests := []struct {
		name    string
		servers string
		opts    Options
		want    []string // the targets' URLs
		err     string
	}{
		{"none is /", "", Options{}, []string{"http://127.0.0.1:8080"}, ""},
		{"relative with a base", "servers: [{url: /api/v2}]\n", Options{BaseURL: "https://h.example:8443/x/"}, []string{"https://h.example:8443/api/v2"}, ""},
		{"variables", "servers: [{url: '{scheme}://{host}:{port}/v1', variables: {scheme: {default: https, enum: [https, http]}, host: {default: a.example}, port: {default: '8443'}}}]\n", Options{}, []string{"https://a.example:8443/v1"}, ""},
		{"several, one unusable", "servers: [{url: 'http://a.example/'}, {url: 'ws://b.example/'}, {url: 'http://a.example'}, {url: 'https://c.example/z'}]\n", Options{}, []string{"http://a.example", "https://c.example/z"}, ""},
		{"--server", "servers: [{url: 'http://a.example/'}]\n", Options{Servers: []string{"http://127.0.0.1:7/p", "/q"}}, []string{"http://127.0.0.1:7/p", "http://127.0.0.1:8080/q"}, ""},
		{"none usable", "servers: [{url: 'ftp://a.example/'}]\n", Options{}, nil, `no server URL to send to (server ftp://a.example/ is not used: scheme "ftp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import("t.yaml", []byte(head+tt.servers+paths), tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenarios.Parse("imported.yaml", res.Scenario, scenarios.LoadOptions{})
			if err != nil {
				t.Fatalf("%v\n%s", err, res.Scenario)
			}
			var got []string
			for _, tg := range sc.Targets {
				got = append(got, strings.TrimSuffix(tg.HTTP.Requests[0].URL, "/a"))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, res.Scenario)
			}
		})
	}
}

// TestImportTags: --tag keeps the operations with one of the tags;
// --flow-per-tag makes a target per tag, an operation in each of its
// tags' flows.
func TestImportTags(t *testing.T) {
	spec := doc(`paths:
  /a: {get: {tags: [x, y], responses: {"200": {description: ok}}}}
  /b: {get: {tags: [y], responses: {"200": {description: ok}}}}
  /c: {get: {responses: {"200": {description: ok}}}}
`)
	tests := []struct {
		opts Options
		want map[string][]string // target → request names
	}{
		{Options{}, map[string][]string{"local": {"get-a", "get-b", "get-c"}}},
		{Options{Tags: []string{"y"}}, map[string][]string{"local": {"get-a", "get-b"}}},
		{Options{FlowPerTag: true}, map[string][]string{"local-x": {"get-a"}, "local-y": {"get-a", "get-b"}, "local-untagged": {"get-c"}}},
		{Options{FlowPerTag: true, Tags: []string{"x"}}, map[string][]string{"local-x": {"get-a"}}},
	}
	for _, tt := range tests {
		res, err := Import("t.yaml", spec, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("imported.yaml", res.Scenario, scenarios.LoadOptions{})
		if err != nil {
			t.Fatalf("%+v: %v\n%s", tt.opts, err, res.Scenario)
		}
		got := map[string][]string{}
		for _, tg := range sc.Targets {
			for _, r := range tg.HTTP.Requests {
				got[tg.Name] = append(got[tg.Name], r.Name)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.opts, d)
		}
	}
}
