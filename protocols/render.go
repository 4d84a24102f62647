package protocols

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// RenderEnv holds what a worker's placeholders render from. It belongs to
// one client, so rendering takes no lock and allocates nothing.
type RenderEnv struct {
	worker int
	seq    uint64 // the iteration being rendered, from 1
	nowMS  int64  // read once per iteration, when first needed; 0 = not yet
	rng    *rand.Rand
	// Vars holds a flow's variables by slot (Flow.Vars): the user's data
	// columns and extracted values, each in a buffer reused from one
	// iteration to the next. An unset variable renders empty.
	Vars [][]byte
}

// NewRenderEnv is worker's environment, with its own random source.
func NewRenderEnv(worker int) RenderEnv {
	// Seeded per worker so two workers never send the same sequence of
	// random values, yet a run's payloads do not depend on global state.
	seed := uint64(time.Now().UnixNano()) ^ uint64(worker)*0x9e3779b97f4a7c15
	return RenderEnv{worker: worker, rng: rand.New(rand.NewPCG(seed, uint64(worker)))}
}

// Next starts an iteration: a new {{seq}} and a fresh clock reading.
func (r *RenderEnv) Next() {
	r.seq++
	r.nowMS = 0
}

// Render appends t to dst.
func (r *RenderEnv) Render(dst []byte, t *scenarios.Template) []byte {
	for i := range t.Parts {
		p := &t.Parts[i]
		switch p.Kind {
		case scenarios.PartLiteral:
			dst = append(dst, p.Literal...)
		case scenarios.PartNowMS:
			if r.nowMS == 0 {
				r.nowMS = time.Now().UnixMilli()
			}
			dst = strconv.AppendInt(dst, r.nowMS, 10)
		case scenarios.PartSeq:
			dst = strconv.AppendUint(dst, r.seq, 10)
		case scenarios.PartWorker:
			dst = strconv.AppendInt(dst, int64(r.worker), 10)
		case scenarios.PartUUID:
			dst = appendUUID(dst, r.rng.Uint64(), r.rng.Uint64())
		case scenarios.PartRandInt:
			dst = strconv.AppendInt(dst, randIntIn(r.rng, p.Min, p.Max), 10)
		case scenarios.PartVar:
			if p.Slot >= 0 && p.Slot < len(r.Vars) {
				dst = append(dst, r.Vars[p.Slot]...)
			}
		}
	}
	return dst
}

// Rand is the worker's random source, for the draws of random data
// sources: one per worker, so drawing takes no lock.
func (r *RenderEnv) Rand() *rand.Rand { return r.rng }

// randIntIn draws uniformly from [lo, hi], the full int64 range included.
func randIntIn(rng *rand.Rand, lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo) // the width minus one, exact in two's complement
	if span == math.MaxUint64 {
		return int64(rng.Uint64())
	}
	return lo + int64(rng.Uint64N(span+1))
}

const uuidHexDigits = "0123456789abcdef"

// appendUUID appends a version 4 UUID made of the 128 random bits hi, lo.
// A load generator needs unique ids, not unpredictable ones, so a worker's
// own generator serves instead of crypto/rand.
func appendUUID(dst []byte, hi, lo uint64) []byte {
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, uuidHexDigits[c>>4], uuidHexDigits[c&0x0f])
	}
	return dst
}
