package demoserver

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Bounds of the API's in-memory state. A long load test logs in and orders
// without end, so both stores are rings: past the bound the oldest entry is
// forgotten (its token then gets 401, its order 404) and memory stays flat.
const (
	// defaultMaxSessions is how many login tokens are valid at once.
	defaultMaxSessions = 100_000
	// defaultMaxOrders is how many orders GET /api/orders/{id} remembers.
	defaultMaxOrders = 100_000
)

// The catalogue GET /api/items pages through: item-1..item-1000, ten a page.
const (
	catalogueSize = 1000
	pageSize      = 10
)

// maxAPIBody bounds the JSON a login or an order may send; both are tiny.
const maxAPIBody = 64 << 10

// endpoint names one API route in the served counters.
type endpoint uint8

const (
	epLogin endpoint = iota
	epItems
	epItem
	epOrders
	epOrder
	numEndpoints
)

// endpointNames are the keys of Stats.API.
var endpointNames = [numEndpoints]string{
	epLogin:  "login",
	epItems:  "items",
	epItem:   "item",
	epOrders: "orders",
	epOrder:  "order",
}

// apiStatuses are the statuses the API answers with (500 being an injected
// error); anything else is counted as "other", which a test can refuse.
var apiStatuses = [...]int{200, 201, 400, 401, 404, 413, 422, 500}

// statusSlot returns the counter index of code.
func statusSlot(code int) int {
	for i, c := range apiStatuses {
		if c == code {
			return i
		}
	}
	return len(apiStatuses)
}

// apiUser is one account; logins counts its successful logins, the
// witness a test reads to prove each data row was used exactly once.
type apiUser struct {
	name     string
	password string
	logins   atomic.Int64
}

// order is one stored order. item and user point into read-only tables,
// so an order costs the same few words whatever the request sent.
type order struct {
	id   int64
	item int
	qty  int
	user *apiUser
}

// api is the state behind /api: a fixed user table and catalogue, and
// bounded rings of sessions and orders.
type api struct {
	users map[string]*apiUser // read-only after newAPI

	items     []string       // item ids, index = position in the catalogue
	itemIndex map[string]int // id → index
	pages     []rendered     // GET /api/items?page=N bodies
	itemBody  []rendered     // GET /api/items/{id} bodies

	sessMu      sync.RWMutex
	sessions    map[string]*apiUser
	sessRing    []string // tokens in login order, for eviction
	sessNext    int      // ring slot the next login takes once full
	maxSessions int

	orderMu   sync.RWMutex
	orders    []order // ring: order id n lives in slot (n-1) % maxOrders
	lastOrder int64
	maxOrders int

	served [numEndpoints][len(apiStatuses) + 1]atomic.Int64
}

// newAPI builds the API for a checked user table and positive bounds.
func newAPI(users []User, maxSessions, maxOrders int) *api {
	a := &api{
		users:       make(map[string]*apiUser, len(users)),
		itemIndex:   make(map[string]int, catalogueSize),
		sessions:    make(map[string]*apiUser),
		maxSessions: maxSessions,
		maxOrders:   maxOrders,
	}
	for _, u := range users {
		a.users[u.Name] = &apiUser{name: u.Name, password: u.Password}
	}
	type item struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Price int    `json:"price"` // cents
	}
	all := make([]item, catalogueSize)
	for i := range all {
		n := strconv.Itoa(i + 1)
		all[i] = item{ID: "item-" + n, Name: "item " + n, Price: 100 + (i*37)%900}
		a.items = append(a.items, all[i].ID)
		a.itemIndex[all[i].ID] = i
		a.itemBody = append(a.itemBody, render(all[i]))
	}
	pages := (catalogueSize + pageSize - 1) / pageSize
	for p := range pages {
		a.pages = append(a.pages, render(struct {
			Page  int    `json:"page"`
			Pages int    `json:"pages"`
			Items []item `json:"items"`
		}{p + 1, pages, all[p*pageSize : min((p+1)*pageSize, catalogueSize)]}))
	}
	return a
}

// rendered is a response body rendered once at start, with its length
// header, so the read-only routes allocate nothing to answer.
type rendered struct {
	body   []byte
	length []string
}

// render renders v as a rendered JSON body.
func render(v any) rendered {
	b := mustJSON(v)
	return rendered{b, []string{strconv.Itoa(len(b))}}
}

// writeRendered writes a complete 200 response with a rendered body.
func writeRendered(w http.ResponseWriter, r rendered) int {
	hdr := w.Header()
	hdr["Content-Type"] = appJSON
	hdr["Content-Length"] = r.length
	_, _ = w.Write(r.body) // a failed write means the client is gone
	return http.StatusOK
}

// mustJSON marshals a value built in this file, which cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("demoserver: " + err.Error())
	}
	return append(b, '\n')
}

// apiRoute wraps an API handler, which returns the status it wrote, with
// fault injection and the served counters. Injected errors are counted as
// 500s of the endpoint, as a client sees them.
func (s *Server) apiRoute(ep endpoint, h func(http.ResponseWriter, *http.Request) int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusInternalServerError
		if !s.inject(w, r) {
			code = h(w, r)
		}
		s.api.served[ep][statusSlot(code)].Add(1)
	}
}

// routeAPI registers the API on mux.
func (s *Server) routeAPI(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/login", s.apiRoute(epLogin, s.api.login))
	mux.HandleFunc("GET /api/items", s.apiRoute(epItems, s.api.listItems))
	mux.HandleFunc("GET /api/items/{id}", s.apiRoute(epItem, s.api.getItem))
	mux.HandleFunc("POST /api/orders", s.apiRoute(epOrders, s.api.createOrder))
	mux.HandleFunc("GET /api/orders/{id}", s.apiRoute(epOrder, s.api.getOrder))
}

var bearerChallenge = []string{`Bearer realm="loadgate"`}

// writeJSON writes a complete JSON response.
func writeJSON(w http.ResponseWriter, code int, body []byte) int {
	hdr := w.Header()
	hdr["Content-Type"] = appJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(code)
	_, _ = w.Write(body) // a failed write means the client is gone
	return code
}

// apiError answers code with {"error": msg}.
func apiError(w http.ResponseWriter, code int, msg string) int {
	if code == http.StatusUnauthorized {
		w.Header()["Www-Authenticate"] = bearerChallenge
	}
	return writeJSON(w, code, mustJSON(struct {
		Error string `json:"error"`
	}{msg}))
}

// decodeBody decodes a small JSON request body into v, answering 400 (or
// 413) itself when it cannot; it reports whether v was filled.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, code *int) bool {
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody)).Decode(v)
	if err == nil {
		return true
	}
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		*code = apiError(w, http.StatusRequestEntityTooLarge, "body larger than 64 KiB")
		return false
	}
	*code = apiError(w, http.StatusBadRequest, "body is not the expected JSON: "+err.Error())
	return false
}

// login checks {"user","pass"} against the user table and answers a new
// token, also set as the cookie "sid" for clients that keep cookies.
func (a *api) login(w http.ResponseWriter, r *http.Request) int {
	var req struct {
		User string `json:"user"`
		Pass string `json:"pass"`
	}
	var code int
	if !decodeBody(w, r, &req, &code) {
		return code
	}
	u := a.users[req.User]
	if u == nil || u.password != req.Pass {
		return apiError(w, http.StatusUnauthorized, "unknown user or wrong password")
	}
	token := rand.Text()
	a.addSession(token, u)
	u.logins.Add(1)
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: token, Path: "/", HttpOnly: true})
	body := make([]byte, 0, 96)
	body = append(body, `{"access_token":"`...)
	body = append(body, token...) // base32: nothing to escape
	body = append(body, `","token_type":"Bearer"}`+"\n"...)
	return writeJSON(w, http.StatusOK, body)
}

// addSession stores token for u, forgetting the oldest token once
// maxSessions are stored.
func (a *api) addSession(token string, u *apiUser) {
	a.sessMu.Lock()
	defer a.sessMu.Unlock()
	if len(a.sessRing) < a.maxSessions {
		a.sessRing = append(a.sessRing, token)
	} else {
		delete(a.sessions, a.sessRing[a.sessNext])
		a.sessRing[a.sessNext] = token
		a.sessNext = (a.sessNext + 1) % a.maxSessions
	}
	a.sessions[token] = u
}

// user returns the logged-in user of r, from "Authorization: Bearer T" or
// else the "sid" cookie; nil when neither names a live session.
func (a *api) user(r *http.Request) *apiUser {
	var token string
	if h := r.Header.Get("Authorization"); len(h) > len("Bearer ") && strings.EqualFold(h[:len("Bearer ")], "Bearer ") {
		token = h[len("Bearer "):]
	} else if c, err := r.Cookie("sid"); err == nil {
		token = c.Value
	}
	if token == "" {
		return nil
	}
	a.sessMu.RLock()
	defer a.sessMu.RUnlock()
	return a.sessions[token]
}

const needToken = "missing or unknown token: log in with POST /api/login"

// listItems answers one page of the catalogue; a page past the end is
// empty, as most paginated APIs answer it.
func (a *api) listItems(w http.ResponseWriter, r *http.Request) int {
	if a.user(r) == nil {
		return apiError(w, http.StatusUnauthorized, needToken)
	}
	page := 1
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return apiError(w, http.StatusBadRequest, "page must be a whole number >= 1")
		}
		page = n
	}
	if page > len(a.pages) {
		return writeJSON(w, http.StatusOK, []byte(`{"page":`+strconv.Itoa(page)+`,"pages":`+
			strconv.Itoa(len(a.pages))+`,"items":[]}`+"\n"))
	}
	return writeRendered(w, a.pages[page-1])
}

// getItem answers one item of the catalogue, or 404.
func (a *api) getItem(w http.ResponseWriter, r *http.Request) int {
	if a.user(r) == nil {
		return apiError(w, http.StatusUnauthorized, needToken)
	}
	i, ok := a.itemIndex[r.PathValue("id")]
	if !ok {
		return apiError(w, http.StatusNotFound, "no such item")
	}
	return writeRendered(w, a.itemBody[i])
}

// createOrder stores {"item","qty"} for the logged-in user and answers 201
// with the new order's URL in Location.
func (a *api) createOrder(w http.ResponseWriter, r *http.Request) int {
	u := a.user(r)
	if u == nil {
		return apiError(w, http.StatusUnauthorized, needToken)
	}
	var req struct {
		Item string `json:"item"`
		Qty  int    `json:"qty"`
	}
	var code int
	if !decodeBody(w, r, &req, &code) {
		return code
	}
	if req.Qty < 1 {
		return apiError(w, http.StatusBadRequest, "qty must be >= 1")
	}
	item, ok := a.itemIndex[req.Item]
	if !ok {
		return apiError(w, http.StatusUnprocessableEntity, "no such item")
	}
	o := a.addOrder(item, req.Qty, u)
	id := strconv.FormatInt(o.id, 10)
	w.Header()["Location"] = []string{"/api/orders/" + id}
	return writeJSON(w, http.StatusCreated, a.orderBody(o, id))
}

// addOrder stores a new order, overwriting the oldest once maxOrders are
// stored, and returns it.
func (a *api) addOrder(item, qty int, u *apiUser) order {
	a.orderMu.Lock()
	defer a.orderMu.Unlock()
	a.lastOrder++
	o := order{id: a.lastOrder, item: item, qty: qty, user: u}
	if len(a.orders) < a.maxOrders {
		a.orders = append(a.orders, o)
	} else {
		a.orders[(o.id-1)%int64(a.maxOrders)] = o
	}
	return o
}

// getOrder answers an order of the logged-in user; another user's order is
// a 404, as if it did not exist, and so is one the ring has forgotten.
func (a *api) getOrder(w http.ResponseWriter, r *http.Request) int {
	u := a.user(r)
	if u == nil {
		return apiError(w, http.StatusUnauthorized, needToken)
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		return apiError(w, http.StatusNotFound, "no such order")
	}
	a.orderMu.RLock()
	var o order
	if slot := (id - 1) % int64(a.maxOrders); slot < int64(len(a.orders)) {
		o = a.orders[slot]
	}
	a.orderMu.RUnlock()
	if o.id != id || o.user != u {
		return apiError(w, http.StatusNotFound, "no such order")
	}
	return writeJSON(w, http.StatusOK, a.orderBody(o, r.PathValue("id")))
}

// orderBody renders an order; every part is digits or a catalogue id, so
// nothing needs escaping.
func (a *api) orderBody(o order, id string) []byte {
	b := make([]byte, 0, 64)
	b = append(b, `{"id":"`...)
	b = append(b, id...)
	b = append(b, `","item":"`...)
	b = append(b, a.items[o.item]...)
	b = append(b, `","qty":`...)
	b = strconv.AppendInt(b, int64(o.qty), 10)
	b = append(b, "}\n"...)
	return b
}

// stats fills the API's part of Stats: the served counters of endpoints
// that served anything, successful logins per user, and the sizes of the
// bounded stores.
func (a *api) stats(st *Stats) {
	for ep := range numEndpoints {
		var byStatus map[string]int64
		for slot := range a.served[ep] {
			n := a.served[ep][slot].Load()
			if n == 0 {
				continue
			}
			if byStatus == nil {
				byStatus = make(map[string]int64)
			}
			key := "other"
			if slot < len(apiStatuses) {
				key = strconv.Itoa(apiStatuses[slot])
			}
			byStatus[key] = n
		}
		if byStatus != nil {
			if st.API == nil {
				st.API = make(map[string]map[string]int64)
			}
			st.API[endpointNames[ep]] = byStatus
		}
	}
	for name, u := range a.users {
		if n := u.logins.Load(); n > 0 {
			if st.Logins == nil {
				st.Logins = make(map[string]int64)
			}
			st.Logins[name] = n
		}
	}
	a.sessMu.RLock()
	st.Sessions = len(a.sessions)
	a.sessMu.RUnlock()
	a.orderMu.RLock()
	st.StoredOrders = len(a.orders)
	a.orderMu.RUnlock()
}
