package demoserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Header values shared by every response. net/http only reads header
// slices, so assigning these directly saves an allocation per response on
// the paths a load test hammers.
var (
	textPlain   = []string{"text/plain; charset=utf-8"}
	octetStream = []string{"application/octet-stream"}
	appJSON     = []string{"application/json"}

	helloBody   = []byte("hello")
	helloLength = []string{strconv.Itoa(len(helloBody))}
	okBody      = []byte("ok")
	okLength    = []string{strconv.Itoa(len(okBody))}

	injectedBody   = []byte("injected error\n")
	injectedLength = []string{strconv.Itoa(len(injectedBody))}

	connClose = []string{"close"}
)

// filler is the repeating pattern /bytes/N streams from; readable text so a
// body_contains check can match it, and large enough that big transfers
// take few Write calls.
var filler = bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz\n"), 1024)

// routes builds the router. Faults apply to the "work" routes only: /health
// must stay truthful for readiness probes and /stats for observers, however
// badly the server is told to behave. A stall freezes everything else,
// 404s included, because a paused process cannot route either.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.faulty(serveHello))
	mux.HandleFunc("GET /time", s.faulty(serveTime))
	mux.HandleFunc("GET /health", serveHealth)
	mux.HandleFunc("GET /stats", s.serveStats)
	mux.HandleFunc("/echo", s.faulty(serveEcho))
	mux.HandleFunc("GET /bytes/{n}", s.faulty(serveBytes))
	mux.HandleFunc("/status/{code}", s.faulty(serveStatus))
	// Faults apply per message inside, not to the upgrade.
	mux.HandleFunc("GET /ws", s.serveWS)
	s.routeAPI(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && r.Method == "PRI" {
			// An HTTP/1.1-only listener hands the HTTP/2 preface to the
			// handler, for servers that wire up h2c themselves; this one
			// refuses it as an HTTP/1.1 server without h2c would.
			s.ctr.http2Refused.Add(1)
			w.Header()["Connection"] = connClose
			http.Error(w, "HTTP/2 not enabled on this listener (serve --http2)", http.StatusHTTPVersionNotSupported)
			return
		}
		s.ctr.requests.Add(1)
		if r.ProtoMajor == 2 {
			s.ctr.http2.Add(1)
		} else {
			s.ctr.http1.Add(1)
		}
		if served, ok := r.Context().Value(servedKey{}).(*atomic.Int64); ok && s.faults.closesConn(served.Add(1)) {
			// net/http closes the connection after a response that says so,
			// and the client learns not to reuse it.
			w.Header()["Connection"] = connClose
		}
		exempt := r.URL.Path == "/health" || r.URL.Path == "/stats" || r.URL.Path == "/ws"
		if s.faults.stalls() && !exempt {
			// A request arriving in a stall is only seen when it ends. The
			// WebSocket echo stalls per message instead, as it delays.
			hold(r, s.faults.stallWait(time.Now()))
		}
		// A WebSocket would hold a worker for its whole life, which is
		// not a request rate; it stays outside the capacity model.
		if s.pool != nil && !exempt && !s.pool.serve(w, r) {
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// faulty wraps h with the configured delay, stall and error injection.
func (s *Server) faulty(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.inject(w, r) {
			h(w, r)
		}
	}
}

// inject applies the configured delay and stall to one request and reports
// whether it answered it with an injected error instead, in which case the
// caller must not write a response.
func (s *Server) inject(w http.ResponseWriter, r *http.Request) bool {
	wait, fail := s.faults.next()
	hold(r, wait)
	if s.faults.stalls() && wait > 0 {
		// A stall that began during the delay holds the response too,
		// as a pause would hold a handler that finished sleeping. The
		// clock is read again because the delay may have overrun. With
		// no delay the arrival check in routes has just passed.
		hold(r, s.faults.stallWait(time.Now()))
	}
	if !fail {
		return false
	}
	s.ctr.errors.Add(1)
	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr["Content-Length"] = injectedLength
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(injectedBody) // a failed write means the client is gone
	return true
}

// hold sleeps for d, or until the request is cancelled because the client
// left or the server is closing. It then aborts the handler rather than
// returning, or net/http would complete the exchange with an empty 200 the
// client never asked for.
func hold(r *http.Request, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		panic(http.ErrAbortHandler)
	}
}

// writeFixed writes a complete small text response whose length header is
// precomputed.
func writeFixed(w http.ResponseWriter, body []byte, length []string) {
	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr["Content-Length"] = length
	_, _ = w.Write(body) // a failed write means the client is gone
}

// serveHello answers "hello", the response of the classic MINA hello server
// that concurrency studies were run against.
func serveHello(w http.ResponseWriter, _ *http.Request) {
	writeFixed(w, helloBody, helloLength)
}

// serveHealth answers "ok" for readiness probes.
func serveHealth(w http.ResponseWriter, _ *http.Request) {
	writeFixed(w, okBody, okLength)
}

// serveTime answers the current time, the other classic MINA response.
func serveTime(w http.ResponseWriter, _ *http.Request) {
	var buf [64]byte
	body := time.Now().AppendFormat(buf[:0], time.RFC3339Nano)
	writeFixed(w, body, []string{strconv.Itoa(len(body))})
}

// serveStats answers the counters as JSON.
func (s *Server) serveStats(w http.ResponseWriter, _ *http.Request) {
	body, err := json.Marshal(s.Stats())
	if err != nil {
		// Stats holds integers and maps of them; Marshal cannot fail on it.
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = appJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	_, _ = w.Write(body)
}

// serveEcho answers the request body with the request's Content-Type. The
// body is read completely before answering because an HTTP/1.1 handler may
// not read the request after it starts writing the response.
func serveEcho(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxBodyBytes {
		http.Error(w, "request body larger than 10 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes)); err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, "request body larger than 10 MiB", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	hdr := w.Header()
	if ct := r.Header.Get("Content-Type"); ct != "" {
		hdr.Set("Content-Type", ct)
	} else {
		hdr["Content-Type"] = octetStream
	}
	hdr["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	_, _ = w.Write(buf.Bytes())
}

// serveBytes answers exactly N bytes of filler, streamed so that a 10 MiB
// transfer costs no 10 MiB buffer.
func serveBytes(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.PathValue("n"), 10, 64)
	if err != nil || n < 0 || n > maxBodyBytes {
		http.Error(w, "want /bytes/N with 0 <= N <= 10485760", http.StatusBadRequest)
		return
	}
	hdr := w.Header()
	hdr["Content-Type"] = octetStream
	hdr["Content-Length"] = []string{strconv.FormatInt(n, 10)}
	for n > 0 {
		chunk := filler[:min(n, int64(len(filler)))]
		if _, err := w.Write(chunk); err != nil {
			return // the client is gone; net/http closes the connection
		}
		n -= int64(len(chunk))
	}
}

// serveStatus answers the status code in the path, with its reason phrase
// as the body where the status allows a body.
func serveStatus(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 200 || code > 599 {
		// 1xx are interim responses and cannot end a request.
		http.Error(w, "want /status/N with 200 <= N <= 599", http.StatusBadRequest)
		return
	}
	if code == http.StatusNoContent || code == http.StatusNotModified {
		w.WriteHeader(code)
		return
	}
	body := http.StatusText(code)
	if body == "" {
		body = "status " + strconv.Itoa(code)
	}
	body += "\n"
	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}
