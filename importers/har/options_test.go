package har

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// ent is a recorded exchange, written short.
type ent struct {
	method, url    string
	at             time.Duration // when the request started, from the first
	took           time.Duration
	kind           string // _resourceType
	headers        []string
	body, bodyType string
	status         int
	respHeaders    []string
	respType, resp string
	proto          string // httpVersion
}

// recorded is a HAR file of the entries.
func recorded(t testing.TB, entries ...ent) []byte {
	t.Helper()
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	lg := &harLog{Version: "1.2", Creator: nameVer{Name: "test", Version: "1"}}
	pairs := func(list []string) []nameValue {
		var out []nameValue
		for _, h := range list {
			n, v, _ := strings.Cut(h, ": ")
			out = append(out, nameValue{Name: n, Value: v})
		}
		return out
	}
	for _, e := range entries {
		he := harEntry{
			StartedDateTime: start.Add(e.at).Format(time.RFC3339Nano),
			Time:            float64(e.took) / float64(time.Millisecond),
			ResourceType:    e.kind,
			Request:         harRequest{Method: e.method, URL: e.url, Headers: pairs(e.headers), HTTPVersion: e.proto},
			Response:        harResponse{Status: e.status, Headers: pairs(e.respHeaders), Content: harContent{MimeType: e.respType, Text: e.resp}},
		}
		if e.method == "" {
			he.Request.Method = "GET"
		}
		if he.Response.Status == 0 && e.status == 0 {
			he.Response.Status = 200
		}
		if e.body != "" {
			he.Request.PostData = &harPostData{MimeType: e.bodyType, Text: e.body}
		}
		lg.Entries = append(lg.Entries, he)
	}
	data, err := json.MarshalIndent(harFile{Log: lg}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sentStep is what a step sends, read back from the loaded scenario.
type sentStep struct {
	Name, Method, URL string
	Headers           []string
	Body              string
	Status            []int
	Think             time.Duration
	Extract           []string
}

func steps(sc *scenarios.Scenario) []sentStep {
	var out []sentStep
	for _, tg := range sc.Targets {
		f := tg.HTTP.Flow
		for _, st := range f.Steps {
			s := sentStep{Name: st.Name, Method: st.Method, URL: render(f, st.URL), Body: render(f, st.Body), Think: st.ThinkTime, Status: st.Expect.Status}
			for _, h := range st.Headers {
				s.Headers = append(s.Headers, h.Name+": "+render(f, h.Value))
			}
			for _, x := range st.Extract {
				s.Extract = append(s.Extract, x.Var)
			}
			out = append(out, s)
		}
	}
	return out
}

// render writes a template back as text, extracted values as {{name}}.
func render(f *scenarios.Flow, t scenarios.Template) string {
	var b strings.Builder
	for _, p := range t.Parts {
		switch p.Kind {
		case scenarios.PartLiteral:
			b.Write(p.Literal)
		case scenarios.PartVar:
			b.WriteString("{{" + f.Vars[p.Slot].Name + "}}")
		default:
			b.WriteString("{{?}}")
		}
	}
	return b.String()
}

const page = "http://shop.test"

// TestImportSteps: what each recorded exchange becomes.
func TestImportSteps(t *testing.T) {
	html := "text/html"
	tests := []struct {
		name    string
		opts    Options
		entries []ent
		secrets map[string]string
		want    []sentStep
		has     []string // in the scenario's text
	}{
		{"browser headers dropped, the others kept", Options{}, []ent{{url: page + "/a?q=1", kind: "document", respType: html, headers: []string{
			"Host: shop.test", ":authority: shop.test", "User-Agent: Mozilla", "Accept: text/html", "Accept-Encoding: gzip", "Accept-Language: en",
			"sec-ch-ua: x", "Sec-Fetch-Mode: navigate", "Connection: keep-alive", "Referer: " + page + "/", "Origin: " + page,
			"Cache-Control: no-cache", "If-None-Match: \"e\"", "X-Requested-With: XMLHttpRequest", "X-A: 1", "x-a: 2", "If-Match: \"v1\""}}},
			nil, []sentStep{{Name: "get-a", Method: "GET", URL: page + "/a?q=1", Headers: []string{"Accept: text/html", "X-Requested-With: XMLHttpRequest", "X-A: 1, 2", "If-Match: \"v1\""}, Status: []int{200}}}, nil},
		{"credentials become secrets", Options{}, []ent{{method: "POST", url: page + "/login?api_key=K1", kind: "fetch", body: `{"user":"bob","password":"hunter2"}`, bodyType: "application/json",
			headers: []string{"Authorization: Basic Ym9iOmh1bnRlcjI=", "Cookie: theme=dark; sid=S1", "X-Api-Key: K2"}}},
			map[string]string{"api_key": "KA", "authorization": "B", "x_api_key": "KB", "cookie": "c=1", "password": "pw"},
			[]sentStep{{Name: "post-login", Method: "POST", URL: page + "/login?api_key=KA", Body: `{"user":"bob","password":"pw"}`, Status: []int{200},
				Headers: []string{"Authorization: Basic B", "X-Api-Key: KB", "Content-Type: application/json", "Cookie: c=1"}}},
			[]string{"LOADGATE_SECRET_VAR_cookie", "--secret-var authorization=…"}},
		{"assets, other origins, preflights and failures left out", Options{}, []ent{
			{url: "http://cdn.test/lib.js", kind: "script", respType: "text/javascript"},
			{url: page + "/", kind: "document", respType: html},
			{url: page + "/logo.png"}, {url: page + "/font.woff2", kind: "other"}, {url: page + "/s.css", respType: "text/css"},
			{method: "OPTIONS", url: page + "/api", headers: []string{"Access-Control-Request-Method: POST"}},
			{url: page + "/gone", status: -1}, {url: "ws://shop.test/live"}, {url: "data:image/png;base64,AA"},
			{url: "http://track.test/hit", kind: "ping"}, {url: page + "/api", kind: "xhr", respType: "application/json"},
		}, nil, []sentStep{{Name: "get", Method: "GET", URL: page + "/", Status: []int{200}}, {Name: "get-api", Method: "GET", URL: page + "/api", Status: []int{200}}},
			[]string{"left out: 4 static assets, 1 request to http://track.test, 1 request without a response, 1 CORS preflight, 2 requests loadgate cannot send",
				"entry 8: a WebSocket (ws://), not imported", "entry 9: a data: URL"}},
		{"assets and origins kept when asked", Options{IncludeAssets: true, Origins: []string{"http://SHOP.test:80/x", "http://cdn.test"}}, []ent{
			{url: "http://cdn.test/lib.js", kind: "script"}, {url: page + "/", kind: "document"}, {url: page + "/logo.png"}},
			nil, []sentStep{{Name: "get-lib-js", Method: "GET", URL: "http://cdn.test/lib.js", Status: []int{200}}, {Name: "get", Method: "GET", URL: page + "/", Status: []int{200}}, {Name: "get-logo-png", Method: "GET", URL: page + "/logo.png", Status: []int{200}}},
			[]string{"origin_2: http://shop.test\n", "url: ${origin_2}\n"}},
		{"think times from the gaps, capped", Options{MaxThink: 2 * time.Second}, []ent{
			{url: page + "/a", took: 100 * time.Millisecond}, {url: page + "/b", at: 600 * time.Millisecond, took: 50 * time.Millisecond},
			{url: page + "/c", at: 9 * time.Second}, {url: page + "/d", at: 8 * time.Second}, {url: page + "/e", at: 8*time.Second + 1500*time.Millisecond}},
			nil, []sentStep{{Name: "get-a", Method: "GET", URL: page + "/a", Status: []int{200}, Think: 500 * time.Millisecond},
				{Name: "get-b", Method: "GET", URL: page + "/b", Status: []int{200}, Think: 2 * time.Second},
				{Name: "get-c", Method: "GET", URL: page + "/c", Status: []int{200}},
				{Name: "get-d", Method: "GET", URL: page + "/d", Status: []int{200}, Think: 1500 * time.Millisecond},
				{Name: "get-e", Method: "GET", URL: page + "/e", Status: []int{200}}},
			[]string{"1 recorded pause longer than 2s shortened to it (--max-think)"}},
		{"no think times", Options{NoThink: true}, []ent{{url: page + "/a"}, {url: page + "/b", at: time.Second}},
			nil, []sentStep{{Name: "get-a", Method: "GET", URL: page + "/a", Status: []int{200}}, {Name: "get-b", Method: "GET", URL: page + "/b", Status: []int{200}}}, nil},
		{"statuses as recorded, none for a cached 304", Options{}, []ent{{url: page + "/a", status: 404}, {url: page + "/b", status: 304}},
			nil, []sentStep{{Name: "get-a", Method: "GET", URL: page + "/a", Status: []int{404}}, {Name: "get-b", Method: "GET", URL: page + "/b"}},
			[]string{"recorded 304 Not Modified"}},
		{"another HTTP; an id after a name in the path", Options{}, []ent{{url: page + "/user/12345", proto: "h2"}},
			nil, []sentStep{{Name: "get-user", Method: "GET", URL: page + "/user/12345", Status: []int{200}}},
			[]string{"recorded over HTTP/2; the scenario speaks HTTP/1.1", `the path of get-user ("12345")`}},
		{"text that looks like variables or placeholders is sent as it is", Options{}, []ent{{method: "PUT", url: page + "/p/$x?a={{b}}", body: "${v} {{w}} $$ $", bodyType: "text/plain", headers: []string{"X-T: ${t}{{u}}"}}},
			nil, []sentStep{{Name: "put-x", Method: "PUT", URL: page + "/p/$x?a={{b}}", Body: "${v} {{w}} $$ $", Headers: []string{"X-T: ${t}{{u}}", "Content-Type: text/plain"}, Status: []int{200}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Import("t.har", recorded(t, tt.entries...), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := load(t, out, tt.secrets)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if d := cmp.Diff(tt.want, steps(sc)); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, out)
			}
			for _, s := range tt.has {
				if !strings.Contains(string(out), s) {
					t.Errorf("no %q in:\n%s", s, out)
				}
			}
			for _, secret := range []string{"hunter2", "Ym9iOmh1bnRlcjI", "K1", "K2", "S1", "dark"} {
				if strings.Contains(string(recorded(t, tt.entries...)), secret) && strings.Contains(string(out), secret) {
					t.Errorf("the credential %q is in the scenario:\n%s", secret, out)
				}
			}
		})
	}
}

// TestImportFormParams: a form recorded as parameters only is sent
// url-encoded; a file upload, whose contents no HAR holds, is not sent.
func TestImportFormParams(t *testing.T) {
	data := []byte(`{"log": {"version": "1.2", "entries": [
	 {"request": {"method": "POST", "url": "http://h/f", "headers": [], "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a b", "value": "1&2"}, {"name": "c", "value": "3"}]}}, "response": {"status": 200}},
	 {"request": {"method": "POST", "url": "http://h/u", "headers": [], "postData": {"mimeType": "multipart/form-data", "params": [{"name": "f", "fileName": "x.png"}]}}, "response": {"status": 200}}]}}`)
	out, err := Import("t.har", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := load(t, out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := steps(sc)
	if got[0].Body != "a+b=1%262&c=3" || got[0].Headers[0] != "Content-Type: application/x-www-form-urlencoded" || got[1].Body != "" {
		t.Errorf("%+v\n%s", got, out)
	}
	if !strings.Contains(string(out), "a file upload: the recording holds no file contents") {
		t.Errorf("no note on the upload:\n%s", out)
	}
}

// TestImportReuse: a value a later request sends that an earlier
// response holds becomes an extraction there and a placeholder here,
// wherever each stands; one found nowhere is named in the comment.
func TestImportReuse(t *testing.T) {
	js, html, txt := "application/json", "text/html", "text/plain"
	entries := []ent{
		{url: page + "/", kind: "document", respType: html, respHeaders: []string{"Set-Cookie: sid=C00KIE1; Path=/", "Set-Cookie: xsrf=X5RF0001; Path=/", "X-Request-Token: RT0K3N01"},
			resp: `<form><input value="f0rmT0ken9" type="hidden" name="authenticity_token"></form><script>window.cfg = {nonce: 'n0nce777'};</script>`},
		{url: page + "/api/list?cursor=abc123def", kind: "xhr", respType: js, headers: []string{"Cookie: sid=C00KIE1; pref=blue", "X-XSRF-Token: X5RF0001", "X-Req: RT0K3N01"},
			resp: `{"items": [{"uuid": "4f9c1e2a-aaaa-bbbb-cccc-0123456789ab", "n": 1}], "next": {"page.token": "pg7token"}}`},
		{method: "POST", url: page + "/api/items/4f9c1e2a-aaaa-bbbb-cccc-0123456789ab/buy?next=pg7token", kind: "xhr", respType: js, bodyType: js,
			body: `{"nonce":"n0nce777","form":"f0rmT0ken9","qty":2}`, status: 201, respHeaders: []string{"Location: /orders/o-55501"}, resp: `{"ok":true}`},
		{url: page + "/orders/o-55501", kind: "xhr", respType: txt, resp: "fine"},
	}
	out, err := Import("t.har", recorded(t, entries...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := load(t, out, map[string]string{"cookie": "pref=blue", "x_xsrf_token": "X5RF0001"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []sentStep{
		{Name: "get", Method: "GET", URL: page + "/", Status: []int{200}, Extract: []string{"x_request_token", "nonce", "authenticity_token"}},
		{Name: "get-list", Method: "GET", URL: page + "/api/list?cursor=abc123def", Status: []int{200},
			Headers: []string{"X-XSRF-Token: X5RF0001", "X-Req: {{x_request_token}}", "Cookie: pref=blue"}, Extract: []string{"page_token", "uuid_2"}},
		{Name: "post-buy", Method: "POST", URL: page + "/api/items/{{uuid_2}}/buy?next={{page_token}}", Status: []int{201},
			Headers: []string{"Content-Type: application/json"}, Body: `{"nonce":"{{nonce}}","form":"{{authenticity_token}}","qty":2}`, Extract: []string{"location"}},
		{Name: "get-orders", Method: "GET", URL: page + "{{location}}", Status: []int{200}},
	}
	if d := cmp.Diff(want, steps(sc)); d != "" {
		t.Errorf("(-want +got):\n%s\n%s", d, out)
	}
	for _, s := range []string{
		"cookies: true", "carries what responses set: sid\n",
		"  uuid_2: json items.0.uuid of get-list's response; sent in the path of post-buy\n",
		"  page_token: json next.page\\.token of get-list's response; sent in query parameter next of post-buy\n",
		"  location: header Location of post-buy's response; sent in the path of get-orders\n",
		"query parameter cursor of get-list (\"abc123def\")",
		"header X-XSRF-Token of get-list (a credential: a secret variable): it is the cookie xsrf set by get, which an extraction cannot read",
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("no %q in:\n%s", s, out)
		}
	}
}
