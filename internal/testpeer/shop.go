package testpeer

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Shop is the small web site the HAR recordings of importers/har were
// made on, and that their tests replay against: a login form guarded by a
// CSRF token in a hidden input, a dashboard whose script reads a second
// token from a <meta> tag and an API token from JSON, and a notes API
// whose ids are random. Every token and id is random per session, so a
// replay passes only when each later request carries what an earlier
// response gave it. The counters say what the shop accepted.
type Shop struct {
	thirdParty string // origin of the beacon the dashboard sends, "" for none

	mu       sync.Mutex
	sessions map[string]*shopSession // by the shop_session cookie
	tokens   map[string]*shopSession // by API token
	notes    map[string]string       // note id → text

	Logins, NotesCreated, NotesRead atomic.Int64 // requests accepted
	Refused                         atomic.Int64 // requests answered 4xx
}

type shopSession struct {
	loginCSRF, pageCSRF, apiToken string
	user                          string
}

// NewShop is a shop whose dashboard sends a beacon to thirdParty (an
// origin, "" for none).
func NewShop(thirdParty string) *Shop {
	return &Shop{thirdParty: thirdParty, sessions: map[string]*shopSession{}, tokens: map[string]*shopSession{}, notes: map[string]string{}}
}

func shopRandom(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

func (s *Shop) refuse(w http.ResponseWriter, code int, msg string) {
	s.Refused.Add(1)
	http.Error(w, msg, code)
}

func (s *Shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/login" && r.Method == http.MethodGet:
		s.loginPage(w, r)
	case r.URL.Path == "/login" && r.Method == http.MethodPost:
		s.login(w, r)
	case r.URL.Path == "/dashboard":
		s.dashboard(w, r)
	case r.URL.Path == "/api/me":
		s.me(w, r)
	case r.URL.Path == "/api/notes" && r.Method == http.MethodPost:
		s.createNote(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/notes/"):
		s.readNote(w, r)
	case strings.HasPrefix(r.URL.Path, "/static/"):
		shopAsset(w, r)
	default:
		http.NotFound(w, r)
	}
}

// session is a copy of the caller's session by its cookie, nil without
// one; login changes the session itself under the lock.
func (s *Shop) session(r *http.Request) *shopSession {
	c, err := r.Cookie("shop_session")
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[c.Value]; sess != nil {
		cp := *sess
		return &cp
	}
	return nil
}

func (s *Shop) loginPage(w http.ResponseWriter, _ *http.Request) {
	id, sess := shopRandom(16), &shopSession{loginCSRF: shopRandom(20)}
	s.mu.Lock()
	s.sessions[id] = sess
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "shop_session", Value: id, Path: "/", HttpOnly: true})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html>
<html><head><title>Shop</title><link rel="stylesheet" href="/static/app.css"></head>
<body><img src="/static/logo.png" alt="logo">
<form method="post" action="/login">
  <input type="hidden" name="csrf_token" value="%s">
  <input name="username"> <input name="password" type="password">
  <button type="submit">Log in</button>
</form></body></html>
`, sess.loginCSRF)
}

func (s *Shop) login(w http.ResponseWriter, r *http.Request) {
	sess := s.session(r)
	if err := r.ParseForm(); err != nil || sess == nil {
		s.refuse(w, http.StatusBadRequest, "no session")
		return
	}
	if r.PostForm.Get("csrf_token") != sess.loginCSRF {
		s.refuse(w, http.StatusForbidden, "bad csrf token")
		return
	}
	if r.PostForm.Get("username") != "alice" || r.PostForm.Get("password") != "wonderland" {
		s.refuse(w, http.StatusUnauthorized, "bad credentials")
		return
	}
	c, _ := r.Cookie("shop_session")
	s.mu.Lock()
	live := s.sessions[c.Value]
	live.user, live.pageCSRF, live.apiToken = "alice", shopRandom(20), shopRandom(24)
	s.tokens[live.apiToken] = live
	s.mu.Unlock()
	s.Logins.Add(1)
	http.Redirect(w, r, "/dashboard", http.StatusFound)
}

func (s *Shop) dashboard(w http.ResponseWriter, r *http.Request) {
	sess := s.session(r)
	if sess == nil || sess.user == "" {
		s.refuse(w, http.StatusUnauthorized, "log in first")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html>
<html><head><title>Dashboard</title><meta name="csrf-token" content="%s">
<meta name="beacon" content="%s">
<link rel="stylesheet" href="/static/app.css"><script src="/static/app.js" defer></script></head>
<body><img src="/static/logo.png" alt="logo"><h1>Hello %s</h1><p id="note"></p></body></html>
`, sess.pageCSRF, s.thirdParty, sess.user)
}

// bearer is the session of the request's API token.
func (s *Shop) bearer(r *http.Request) *shopSession {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.tokens[tok]; sess != nil {
		cp := *sess
		return &cp
	}
	return nil
}

func (s *Shop) me(w http.ResponseWriter, r *http.Request) {
	sess := s.session(r)
	if sess == nil || sess.user == "" {
		s.refuse(w, http.StatusUnauthorized, "log in first")
		return
	}
	shopJSON(w, http.StatusOK, map[string]any{"user": sess.user, "api_token": sess.apiToken})
}

func (s *Shop) createNote(w http.ResponseWriter, r *http.Request) {
	sess := s.bearer(r)
	switch {
	case sess == nil:
		s.refuse(w, http.StatusUnauthorized, "bad api token")
		return
	case r.Header.Get("X-CSRF-Token") != sess.pageCSRF:
		s.refuse(w, http.StatusForbidden, "bad csrf token")
		return
	}
	var in struct{ Text string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.refuse(w, http.StatusBadRequest, "not json")
		return
	}
	id := "n-" + shopRandom(6)
	s.mu.Lock()
	s.notes[id] = in.Text
	s.mu.Unlock()
	s.NotesCreated.Add(1)
	w.Header().Set("Location", "/api/notes/"+id)
	shopJSON(w, http.StatusCreated, map[string]any{"id": id, "text": in.Text})
}

func (s *Shop) readNote(w http.ResponseWriter, r *http.Request) {
	if s.bearer(r) == nil {
		s.refuse(w, http.StatusUnauthorized, "bad api token")
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/api/notes/")
	s.mu.Lock()
	text, ok := s.notes[id]
	s.mu.Unlock()
	if !ok {
		s.refuse(w, http.StatusNotFound, "no such note")
		return
	}
	s.NotesRead.Add(1)
	shopJSON(w, http.StatusOK, map[string]any{"id": id, "text": text})
}

func shopJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// shopScript is the dashboard's script: it reads the page's CSRF token,
// asks for the API token, creates a note and reads it back by its id,
// with pauses like a person's between them.
const shopScript = `const pause = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const beacon = document.querySelector('meta[name="beacon"]').content;
  if (beacon) navigator.sendBeacon(beacon + '/collect', 'page=dashboard');
  await pause(400);
  const me = await (await fetch('/api/me', {headers: {'Accept': 'application/json'}})).json();
  await pause(700);
  const created = await fetch('/api/notes', {method: 'POST', headers: {
    'Content-Type': 'application/json', 'Accept': 'application/json',
    'Authorization': 'Bearer ' + me.api_token, 'X-CSRF-Token': csrf, 'X-Client-Version': '1.4.2'},
    body: JSON.stringify({text: 'remember the milk'})});
  const note = await created.json();
  await pause(300);
  const back = await (await fetch('/api/notes/' + note.id, {headers: {'Accept': 'application/json', 'Authorization': 'Bearer ' + me.api_token}})).json();
  document.getElementById('note').textContent = back.text;
  document.title = 'done';
})();
`

// shopPNG is a 1×1 transparent PNG.
var shopPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func shopAsset(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/static/app.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body { font-family: sans-serif; }\n")
	case "/static/app.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, shopScript)
	case "/static/logo.png":
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(shopPNG)
	default:
		http.NotFound(w, r)
	}
}

// Beacon is the third-party origin's handler: it accepts what a page
// sends to /collect.
func Beacon(hits *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusNoContent)
	})
}
