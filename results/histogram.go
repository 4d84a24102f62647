package results

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range and precision (SPEC §3): 1 µs to 1 h at 3 significant
// digits. Memory is constant (~190 KB) whatever the number of samples.
const (
	histMinMicros = 1
	histMaxMicros = int64(time.Hour / time.Microsecond)
	histDigits    = 3
)

// Histogram is a latency distribution in microseconds. It is not safe for
// concurrent use: each one has a single owner, and owners merge.
type Histogram struct {
	h *hdr.Histogram
}

// NewHistogram returns an empty latency histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(histMinMicros, histMaxMicros, histDigits)}
}

// Record adds one duration. Values outside 1 µs .. 1 h are clamped so that
// no sample is ever lost from the count.
func (h *Histogram) Record(d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < histMinMicros {
		us = histMinMicros
	} else if us > histMaxMicros {
		us = histMaxMicros
	}
	_ = h.h.RecordValue(us) // cannot fail: the value is in range
}

// Merge adds every sample of o. It cannot lose one: every Histogram has
// the range and precision of NewHistogram, including those read from files
// (see UnmarshalJSON), and hdrhistogram drops only what lies beyond the
// destination's range.
func (h *Histogram) Merge(o *Histogram) {
	if o != nil {
		h.h.Merge(o.h)
	}
}

// Reset empties the histogram, keeping its memory.
func (h *Histogram) Reset() { h.h.Reset() }

// Count is the number of samples.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Quantile returns the latency at percentile q (0..100), 0 when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.ValueAtPercentile(q)) * time.Microsecond
}

// Min, Max, Mean and StdDev of the samples; 0 when empty.
func (h *Histogram) Min() time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.Min()) * time.Microsecond
}

// Max is the largest sample (at histogram precision).
func (h *Histogram) Max() time.Duration {
	return time.Duration(h.h.Max()) * time.Microsecond
}

// Mean is the average sample.
func (h *Histogram) Mean() time.Duration {
	return time.Duration(h.h.Mean() * float64(time.Microsecond))
}

// StdDev is the samples' standard deviation.
func (h *Histogram) StdDev() time.Duration {
	return time.Duration(h.h.StdDev() * float64(time.Microsecond))
}

// Buckets calls fn for each non-empty bucket in value order: the bucket's
// upper bound and its count. Reporters use it to draw distributions.
func (h *Histogram) Buckets(fn func(upTo time.Duration, count int64)) {
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			fn(time.Duration(b.To)*time.Microsecond, b.Count)
		}
	}
}

// CumulativeCounts sets counts[i] to the number of samples at or below
// bounds[i], for ascending bounds (len(counts) ≥ len(bounds)), and
// returns the sum of all samples in seconds, each at the middle of its
// bucket as Mean reads it. A sample counts as the highest value of its
// bucket, the value Quantile reports, so a bound inside a bucket (at most
// 0.1% wide) counts that bucket above it. It costs a copy of the counts
// (~190 KB) and one pass over them, however many samples there are: an
// exporter's tick, not a request's.
func (h *Histogram) CumulativeCounts(bounds []time.Duration, counts []int64) (sumSeconds float64) {
	geo := bucketGeometry()
	var cum int64
	var sumMicros float64
	j := 0
	for i, n := range h.h.Export().Counts {
		if n == 0 {
			continue
		}
		if i >= len(geo.tops) {
			break // beyond the largest value recorded: there are none
		}
		for j < len(bounds) && geo.tops[i] > int64(bounds[j]/time.Microsecond) {
			counts[j] = cum
			j++
		}
		cum += n
		sumMicros += float64(n) * float64(geo.mids[i])
	}
	for ; j < len(bounds); j++ {
		counts[j] = cum
	}
	return sumMicros / 1e6
}

// bucketGeometry is, for each bucket of NewHistogram's counts in their
// order up to the bucket of the largest value it records, its highest
// value and its middle, in µs.
var bucketGeometry = sync.OnceValue(func() (g struct{ tops, mids []int64 }) {
	h := NewHistogram()
	// hdrhistogram lists its buckets only up to its largest sample.
	h.Record(time.Duration(histMaxMicros) * time.Microsecond)
	for _, b := range h.h.Distribution() {
		g.tops = append(g.tops, b.To)
		g.mids = append(g.mids, b.From+(b.To-b.From+1)/2)
	}
	return g
})

// MarshalJSON writes the standard HdrHistogram V2 compressed encoding
// (base64), which other HdrHistogram tools and `loadgate merge` can read.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	enc, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	return json.Marshal(string(enc))
}

// UnmarshalJSON reads what MarshalJSON wrote. A histogram of another range
// or finer precision (from another tool, or edited by hand) is re-bucketed
// into NewHistogram's range and precision, so that merging it with
// loadgate's own can never drop a sample. One that cannot be re-bucketed
// as loadgate would have recorded it is refused with a *GeometryError:
// samples beyond 1 h would be lost, and coarser buckets would move their
// samples to the low end of each bucket.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	d, err := hdr.Decode([]byte(s))
	if err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	g := &GeometryError{Lowest: d.LowestTrackableValue(), Highest: d.HighestTrackableValue(), Digits: d.SignificantFigures(), Count: d.TotalCount()}
	switch {
	case g.Lowest == histMinMicros && g.Highest == histMaxMicros && g.Digits == histDigits:
		h.h = d
		return nil
	case g.Lowest > histMinMicros || g.Digits < histDigits:
		return g
	}
	ours := NewHistogram()
	if g.Beyond = ours.h.Merge(d); g.Beyond != 0 {
		return g
	}
	h.h = ours.h
	return nil
}

// GeometryError refuses a histogram read from a file that cannot join
// loadgate's own (1 µs to 1 h at 3 significant digits) without changing
// what it says: it holds samples beyond that range, which a merge would
// drop without a word, or its buckets are coarser.
type GeometryError struct {
	Lowest, Highest int64 // the histogram's trackable range, in µs
	Digits          int64 // its significant digits
	Count           int64 // its samples
	Beyond          int64 // those beyond the range of loadgate's histograms; 0 when the buckets are coarser
}

func (e *GeometryError) Error() string {
	what := fmt.Sprintf("histogram of %d µs to %d µs at %d significant digits", e.Lowest, e.Highest, e.Digits)
	if e.Beyond > 0 {
		return fmt.Sprintf("%s has %d of its %d samples beyond %d µs (1 h), the most loadgate's histograms hold: merging it would lose them",
			what, e.Beyond, e.Count, histMaxMicros)
	}
	return fmt.Sprintf("%s is coarser than loadgate's (%d µs at %d significant digits): merging it would move its %d samples to the low end of its buckets",
		what, histMinMicros, histDigits, e.Count)
}
