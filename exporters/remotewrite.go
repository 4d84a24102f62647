package exporters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"
)

// remoteWrite pushes to a Prometheus remote-write 1.0 receiver: a
// prometheus.WriteRequest, snappy-compressed, POSTed (SPEC of remote
// write 1.0). Each push is tried once: the next one carries the same
// totals, later.
type remoteWrite struct {
	url       string
	userAgent string
	timeout   time.Duration
	client    *http.Client
}

func newRemoteWrite(url, userAgent string, timeout time.Duration) *remoteWrite {
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: timeout,
	}
	return &remoteWrite{url: url, userAgent: userAgent, timeout: timeout, client: &http.Client{Transport: tr}}
}

func (w *remoteWrite) send(ctx context.Context, batches []Batch) error {
	body, err := writeRequest(batches).Marshal()
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(snappy.Encode(nil, body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	if w.userAgent != "" {
		req.Header.Set("User-Agent", w.userAgent)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return w.describe(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	// Read to the end (within reason) so that the connection is reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		line, _, _ := strings.Cut(strings.TrimSpace(string(msg)), "\n")
		return fmt.Errorf("HTTP %s: %s", resp.Status, line)
	}
	return nil
}

func (w *remoteWrite) close() error {
	w.client.CloseIdleConnections()
	return nil
}

// describe shortens a failed request's error to what went wrong:
// "connection refused", not the URL and the dial that saw it.
func (w *remoteWrite) describe(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %v", w.timeout)
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("cut short when the run ended")
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// writeRequest is batches as remote write 1.0 has them: one time series
// per sample, its labels sorted by name with __name__ among them. A label
// with no value is left out, as Prometheus reads it anyway.
func writeRequest(batches []Batch) *prompb.WriteRequest {
	req := &prompb.WriteRequest{}
	for _, b := range batches {
		ts := b.Time.UnixMilli()
		for _, s := range b.Samples {
			labels := make([]prompb.Label, 0, len(s.Labels)+1)
			labels = append(labels, prompb.Label{Name: "__name__", Value: s.Name})
			for _, l := range s.Labels {
				if l.Value != "" {
					labels = append(labels, prompb.Label{Name: l.Name, Value: l.Value})
				}
			}
			slices.SortFunc(labels, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
			req.Timeseries = append(req.Timeseries, prompb.TimeSeries{
				Labels: labels, Samples: []prompb.Sample{{Value: s.Value, Timestamp: ts}}})
		}
	}
	return req
}
