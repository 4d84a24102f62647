package exporters

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// jsonLines writes every sample as one JSON object on a line of its own:
// {"time":"…","name":"loadgate_requests_total","labels":{…},"value":123}.
// A histogram's buckets are samples like any other, told apart by le.
type jsonLines struct {
	f *os.File
	w *bufio.Writer
}

// point is a sample as a line of the file.
type point struct {
	Time   string            `json:"time"` // RFC 3339, UTC, to the millisecond
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
}

func openJSONLines(path string) (*jsonLines, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KindJSONLines, err)
	}
	return &jsonLines{f: f, w: bufio.NewWriter(f)}, nil
}

func (j *jsonLines) send(_ context.Context, batches []Batch) error {
	enc := json.NewEncoder(j.w)
	for _, b := range batches {
		at := b.Time.UTC().Format(time.RFC3339Nano)
		for _, s := range b.Samples {
			labels := make(map[string]string, len(s.Labels))
			for _, l := range s.Labels {
				labels[l.Name] = l.Value
			}
			if err := enc.Encode(point{Time: at, Name: s.Name, Labels: labels, Value: s.Value}); err != nil {
				return err
			}
		}
	}
	return j.w.Flush()
}

func (j *jsonLines) close() error {
	err := j.w.Flush()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}
