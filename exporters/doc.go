// Package exporters pushes a run's live figures out while it runs: to a
// Prometheus remote-write receiver (prometheus-rw=URL) or to a file of
// JSON lines (json-lines=FILE), as `loadgate run --export` asks.
//
// It sits beside the console at the end of the runner's pipeline: an
// Observer receives each phase's snapshots, on the runner's progress tick
// (about once a second) and once when the phase ends, and reads from the
// phase's result the totals and the latency histogram that the collector
// has just brought up to date. Every update becomes a Batch of samples
// (metrics.go) at one time; each destination has its own goroutine and
// a bounded queue (queue.go), so a receiver that is slow or down costs
// the load nothing: the oldest updates are dropped when the queue is full,
// and what was lost is said once when the exporter closes. Nothing an
// exporter does changes a run's results or its verdict.
//
// Counters are cumulative over the phase, so a lost update costs the
// series resolution, never its totals: the next one that arrives carries
// them. The names, labels and bucket bounds are documented in
// docs/observability.md.
package exporters
