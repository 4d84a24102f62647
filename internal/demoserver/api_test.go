package demoserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// login logs name in with its default password and returns the token; it
// also checks that the cookie carries the same token.
func login(t *testing.T, c *http.Client, base, name string) string {
	t.Helper()
	got := do(t, c, "POST", base+"/api/login", `{"user":"`+name+`","pass":"pw-`+name+`"}`, nil)
	if got.status != 200 {
		t.Fatalf("login %s: status %d, body %q", name, got.status, got.body)
	}
	var body struct {
		Token string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(got.body), &body); err != nil || body.Token == "" {
		t.Fatalf("login %s: body %q has no access_token (%v)", name, got.body, err)
	}
	if want := "sid=" + body.Token + "; Path=/; HttpOnly"; got.header.Get("Set-Cookie") != want {
		t.Errorf("login %s: Set-Cookie = %q, want %q", name, got.header.Get("Set-Cookie"), want)
	}
	return body.Token
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// TestAPI walks every endpoint through its answers on one server, in order
// (the orders are state), then checks that the server counted exactly what
// the client saw.
func TestAPI(t *testing.T) {
	s := start(t, Config{})
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()
	ann, bob := login(t, c, base, "user1"), login(t, c, base, "user2")
	firstPage, lastPage := page(t, 1, 10), page(t, 991, 1000)

	tests := []struct {
		name     string
		method   string
		path     string
		body     string
		header   http.Header
		endpoint string // key of Stats.API; empty = not an API answer
		status   int
		wantBody string // exact; empty = not checked
		location string // exact Location; empty = must be absent
	}{
		{name: "login wrong password", method: "POST", path: "/api/login", body: `{"user":"user1","pass":"nope"}`,
			endpoint: "login", status: 401, wantBody: `{"error":"unknown user or wrong password"}` + "\n"},
		{name: "login unknown user", method: "POST", path: "/api/login", body: `{"user":"mallory","pass":"pw-mallory"}`,
			endpoint: "login", status: 401},
		{name: "login not JSON", method: "POST", path: "/api/login", body: `user=user1`, endpoint: "login", status: 400},
		{name: "login no body", method: "POST", path: "/api/login", endpoint: "login", status: 400},
		{name: "login too large", method: "POST", path: "/api/login", body: `{"user":"` + strings.Repeat("x", maxAPIBody) + `"}`,
			endpoint: "login", status: 413},
		{name: "login by GET", method: "GET", path: "/api/login", status: 405},

		{name: "items without token", method: "GET", path: "/api/items", endpoint: "items", status: 401},
		{name: "items unknown token", method: "GET", path: "/api/items", header: bearer("forged"), endpoint: "items", status: 401},
		{name: "items first page by default", method: "GET", path: "/api/items", header: bearer(ann), endpoint: "items", status: 200, wantBody: firstPage},
		{name: "items page 1", method: "GET", path: "/api/items?page=1", header: bearer(ann), endpoint: "items", status: 200, wantBody: firstPage},
		{name: "items last page", method: "GET", path: "/api/items?page=100", header: bearer(bob), endpoint: "items", status: 200, wantBody: lastPage},
		{name: "items past the end", method: "GET", path: "/api/items?page=101", header: bearer(ann), endpoint: "items", status: 200,
			wantBody: `{"page":101,"pages":100,"items":[]}` + "\n"},
		{name: "items page 0", method: "GET", path: "/api/items?page=0", header: bearer(ann), endpoint: "items", status: 400},
		{name: "items page not a number", method: "GET", path: "/api/items?page=two", header: bearer(ann), endpoint: "items", status: 400},
		// Clients that keep cookies need no Authorization header.
		{name: "items by cookie", method: "GET", path: "/api/items", header: http.Header{"Cookie": {"sid=" + ann}}, endpoint: "items", status: 200, wantBody: firstPage},
		{name: "items bearer in lower case", method: "GET", path: "/api/items", header: http.Header{"Authorization": {"bearer " + ann}}, endpoint: "items", status: 200},

		{name: "item", method: "GET", path: "/api/items/item-5", header: bearer(ann), endpoint: "item", status: 200,
			wantBody: `{"id":"item-5","name":"item 5","price":248}` + "\n"},
		{name: "item unknown", method: "GET", path: "/api/items/item-1001", header: bearer(ann), endpoint: "item", status: 404},
		{name: "item without token", method: "GET", path: "/api/items/item-5", endpoint: "item", status: 401},

		{name: "order", method: "POST", path: "/api/orders", body: `{"item":"item-3","qty":2}`, header: bearer(ann), endpoint: "orders", status: 201,
			wantBody: `{"id":"1","item":"item-3","qty":2}` + "\n", location: "/api/orders/1"},
		{name: "second order", method: "POST", path: "/api/orders", body: `{"item":"item-1000","qty":1}`, header: bearer(bob), endpoint: "orders", status: 201,
			wantBody: `{"id":"2","item":"item-1000","qty":1}` + "\n", location: "/api/orders/2"},
		{name: "order qty 0", method: "POST", path: "/api/orders", body: `{"item":"item-3","qty":0}`, header: bearer(ann), endpoint: "orders", status: 400},
		{name: "order unknown item", method: "POST", path: "/api/orders", body: `{"item":"item-0","qty":1}`, header: bearer(ann), endpoint: "orders", status: 422},
		{name: "order not JSON", method: "POST", path: "/api/orders", body: `item-3`, header: bearer(ann), endpoint: "orders", status: 400},
		{name: "order without token", method: "POST", path: "/api/orders", body: `{"item":"item-3","qty":2}`, endpoint: "orders", status: 401},

		{name: "read order back", method: "GET", path: "/api/orders/1", header: bearer(ann), endpoint: "order", status: 200,
			wantBody: `{"id":"1","item":"item-3","qty":2}` + "\n"},
		{name: "read order by cookie", method: "GET", path: "/api/orders/1", header: http.Header{"Cookie": {"sid=" + ann}}, endpoint: "order", status: 200},
		// Another user's order does not exist for them.
		{name: "someone else's order", method: "GET", path: "/api/orders/1", header: bearer(bob), endpoint: "order", status: 404},
		{name: "order never made", method: "GET", path: "/api/orders/3", header: bearer(ann), endpoint: "order", status: 404},
		{name: "order id not a number", method: "GET", path: "/api/orders/first", header: bearer(ann), endpoint: "order", status: 404},
		{name: "order without token", method: "GET", path: "/api/orders/1", endpoint: "order", status: 401},
	}
	want := map[string]map[string]int64{"login": {"200": 2}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, c, tt.method, base+tt.path, tt.body, tt.header)
			if got.status != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", got.status, tt.status, got.body)
			}
			if tt.wantBody != "" && got.body != tt.wantBody {
				t.Errorf("body = %q, want %q", got.body, tt.wantBody)
			}
			if loc := got.header.Get("Location"); loc != tt.location {
				t.Errorf("Location = %q, want %q", loc, tt.location)
			}
			if tt.endpoint == "" {
				return
			}
			if ct := got.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if auth := got.header.Get("Www-Authenticate"); (tt.status == 401) != (auth != "") {
				t.Errorf("WWW-Authenticate = %q with status %d; want it exactly on 401s", auth, tt.status)
			}
			if got.length != int64(len(got.body)) {
				t.Errorf("Content-Length = %d, body has %d bytes", got.length, len(got.body))
			}
		})
		if tt.endpoint != "" {
			if want[tt.endpoint] == nil {
				want[tt.endpoint] = map[string]int64{}
			}
			want[tt.endpoint][strconv.Itoa(tt.status)]++
		}
	}

	st := s.Stats()
	if diff := cmp.Diff(want, st.API); diff != "" {
		t.Errorf("Stats().API differs from the answers the client saw (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"user1": 1, "user2": 1}, st.Logins); diff != "" {
		t.Errorf("Stats().Logins (-want +got):\n%s", diff)
	}
	if st.Sessions != 2 || st.StoredOrders != 2 {
		t.Errorf("sessions %d, stored orders %d; want 2 and 2", st.Sessions, st.StoredOrders)
	}
	// /stats serves the same maps as Stats().
	var served Stats
	if err := json.Unmarshal([]byte(do(t, c, "GET", base+"/stats", "", nil).body), &served); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st.API, served.API); diff != "" {
		t.Errorf("/stats api differs from Stats() (-Stats +/stats):\n%s", diff)
	}
	if diff := cmp.Diff(st.Logins, served.Logins); diff != "" {
		t.Errorf("/stats logins differs from Stats() (-Stats +/stats):\n%s", diff)
	}
}

// page renders the expected body of the catalogue page holding items
// first..last, from the documented item formula rather than newAPI's code.
func page(t *testing.T, first, last int) string {
	t.Helper()
	var items []string
	for i := first; i <= last; i++ {
		items = append(items, fmt.Sprintf(`{"id":"item-%d","name":"item %d","price":%d}`, i, i, 100+((i-1)*37)%900))
	}
	return fmt.Sprintf(`{"page":%d,"pages":100,"items":[%s]}`+"\n", (first-1)/pageSize+1, strings.Join(items, ","))
}

// TestAPIUsersFromConfig shows that Config.Users replaces the default table.
func TestAPIUsersFromConfig(t *testing.T) {
	s := start(t, Config{Users: []User{{"ann", "secret"}}})
	c := newClient(t, true)
	url := "http://" + s.HTTPAddr() + "/api/login"
	tests := []struct {
		body   string
		status int
	}{
		{`{"user":"ann","pass":"secret"}`, 200},
		{`{"user":"user1","pass":"pw-user1"}`, 401}, // the default table is gone
		{`{"user":"ann","pass":""}`, 401},
	}
	for _, tt := range tests {
		if got := do(t, c, "POST", url, tt.body, nil); got.status != tt.status {
			t.Errorf("login %s: status %d, want %d", tt.body, got.status, tt.status)
		}
	}
	if diff := cmp.Diff(map[string]int64{"ann": 1}, s.Stats().Logins); diff != "" {
		t.Errorf("Logins (-want +got):\n%s", diff)
	}
}

// TestAPIFaults shows that injected errors reach the API like any work
// route, and are counted as the endpoint's 500s.
func TestAPIFaults(t *testing.T) {
	s := start(t, Config{ErrorRate: 1})
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()
	for _, path := range []string{"/api/login", "/api/orders"} {
		if got := do(t, c, "POST", base+path, `{}`, nil); got.status != 500 {
			t.Errorf("POST %s: status %d, want the injected 500", path, got.status)
		}
	}
	for _, path := range []string{"/api/items", "/api/items/item-1", "/api/orders/1"} {
		if got := do(t, c, "GET", base+path, "", nil); got.status != 500 {
			t.Errorf("GET %s: status %d, want the injected 500", path, got.status)
		}
	}
	st := s.Stats()
	want := map[string]map[string]int64{"login": {"500": 1}, "orders": {"500": 1}, "items": {"500": 1}, "item": {"500": 1}, "order": {"500": 1}}
	if diff := cmp.Diff(want, st.API); diff != "" {
		t.Errorf("Stats().API (-want +got):\n%s", diff)
	}
	if st.Errors != 5 || st.Logins != nil {
		t.Errorf("Errors %d, Logins %v; want 5 and none", st.Errors, st.Logins)
	}
}

// TestAPIBounds shows that the session and order stores forget their oldest
// entries past their bounds instead of growing.
func TestAPIBounds(t *testing.T) {
	const maxSessions, maxOrders = 3, 5
	s := start(t, Config{maxSessions: maxSessions, maxOrders: maxOrders})
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()

	var tokens []string
	for range maxSessions + 2 {
		tokens = append(tokens, login(t, c, base, "user1"))
	}
	for i, tok := range tokens {
		want := 200
		if i < len(tokens)-maxSessions {
			want = 401 // evicted
		}
		if got := do(t, c, "GET", base+"/api/items", "", bearer(tok)); got.status != want {
			t.Errorf("token of login %d: status %d, want %d", i+1, got.status, want)
		}
	}

	tok := tokens[len(tokens)-1]
	const orders = 2*maxOrders + 2
	for i := 1; i <= orders; i++ {
		got := do(t, c, "POST", base+"/api/orders", fmt.Sprintf(`{"item":"item-1","qty":%d}`, i), bearer(tok))
		if want := "/api/orders/" + strconv.Itoa(i); got.status != 201 || got.header.Get("Location") != want {
			t.Fatalf("order %d: status %d, Location %q; want 201 and %s", i, got.status, got.header.Get("Location"), want)
		}
	}
	for i := 1; i <= orders; i++ {
		got := do(t, c, "GET", base+"/api/orders/"+strconv.Itoa(i), "", bearer(tok))
		switch {
		case i <= orders-maxOrders && got.status != 404:
			t.Errorf("order %d: status %d, want 404 (forgotten)", i, got.status)
		case i > orders-maxOrders && (got.status != 200 || !strings.Contains(got.body, fmt.Sprintf(`"qty":%d}`, i))):
			t.Errorf("order %d: status %d body %q, want 200 with qty %d", i, got.status, got.body, i)
		}
	}
	if st := s.Stats(); st.Sessions != maxSessions || st.StoredOrders != maxOrders || st.Logins["user1"] != maxSessions+2 {
		t.Errorf("sessions %d, stored orders %d, logins %d; want %d, %d, %d",
			st.Sessions, st.StoredOrders, st.Logins["user1"], maxSessions, maxOrders, maxSessions+2)
	}
}

// TestAPIConcurrent runs whole log-in, list, get, order, read-back flows
// from several clients at once (run it with -race) and checks that every
// answer was right and counted once, and that no order id was handed out
// twice.
func TestAPIConcurrent(t *testing.T) {
	const users, iterations = 8, 40
	s := start(t, Config{})
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()

	var (
		mu   sync.Mutex
		locs = map[string]bool{}
		wg   sync.WaitGroup
	)
	errs := make(chan error, users)
	for u := range users {
		wg.Go(func() {
			got, err := flowOnce(c, base, "user"+strconv.Itoa(u+1), iterations)
			errs <- err
			mu.Lock()
			defer mu.Unlock()
			for _, l := range got {
				if locs[l] {
					t.Errorf("Location %s handed out twice", l)
				}
				locs[l] = true
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if len(locs) != users*iterations {
		t.Errorf("%d distinct orders, want %d", len(locs), users*iterations)
	}
	st := s.Stats()
	n := int64(users * iterations)
	want := map[string]map[string]int64{"login": {"200": users}, "items": {"200": n}, "item": {"200": n}, "orders": {"201": n}, "order": {"200": n}}
	if diff := cmp.Diff(want, st.API); diff != "" {
		t.Errorf("Stats().API (-want +got):\n%s", diff)
	}
	if len(st.Logins) != users || st.StoredOrders != users*iterations {
		t.Errorf("logins %v, stored orders %d; want each of %d users once and %d orders", st.Logins, st.StoredOrders, users, n)
	}
}

// flowOnce logs name in and runs the SPEC §12 flow n times: list a page,
// get its first item, order it, read the order back. It returns the order
// URLs. It reports errors instead of failing the test, since it runs on
// its own goroutine.
func flowOnce(c *http.Client, base, name string, n int) ([]string, error) {
	var tok struct {
		Token string `json:"access_token"`
	}
	if err := call(c, "POST", base+"/api/login", `{"user":"`+name+`","pass":"pw-`+name+`"}`, "", 200, &tok, nil); err != nil {
		return nil, err
	}
	var locs []string
	for i := range n {
		var list struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		if err := call(c, "GET", fmt.Sprintf("%s/api/items?page=%d", base, i%100+1), "", tok.Token, 200, &list, nil); err != nil {
			return nil, err
		}
		if len(list.Items) == 0 {
			return nil, fmt.Errorf("%s: page %d is empty", name, i%100+1)
		}
		item := list.Items[0].ID
		if err := call(c, "GET", base+"/api/items/"+item, "", tok.Token, 200, nil, nil); err != nil {
			return nil, err
		}
		var hdr http.Header
		if err := call(c, "POST", base+"/api/orders", `{"item":"`+item+`","qty":1}`, tok.Token, 201, nil, &hdr); err != nil {
			return nil, err
		}
		loc := hdr.Get("Location")
		locs = append(locs, loc)
		var o struct {
			Item string `json:"item"`
		}
		if err := call(c, "GET", base+loc, "", tok.Token, 200, &o, nil); err != nil {
			return nil, err
		}
		if o.Item != item {
			return nil, fmt.Errorf("%s: order %s holds %q, want %q", name, loc, o.Item, item)
		}
	}
	return locs, nil
}

// call sends one request and checks its status; out, when not nil,
// receives the decoded JSON body and hdr the response header.
func call(c *http.Client, method, url, body, token string, status int, out any, hdr *http.Header) error {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading body: %w", method, url, err)
	}
	if resp.StatusCode != status {
		return fmt.Errorf("%s %s: status %d, want %d (body %q)", method, url, resp.StatusCode, status, b)
	}
	if hdr != nil {
		*hdr = resp.Header
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: body %q: %w", method, url, b, err)
		}
	}
	return nil
}
