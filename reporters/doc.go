// Package reporters turns what a run measured and judged into the outputs
// people and tools read. It is the last stage of the pipeline:
//
//	scenarios (parse) → runner (measure) → assertions (judge) → reporters (tell)
//
// NewRun assembles the results document (results.json, schema 1) from the
// runner's ScenarioResults and the assertions' Verdicts, leaving warm-up
// phases out. That document is the stable file format: it is the baseline
// for later runs and the input of `loadgate merge`, `report` and `compare`,
// so ReadRun refuses schema versions it does not know. Every other output is
// rendered from it alone: WriteJUnit (Ant JUnit XML for CI test reports),
// WriteMarkdown (a GitHub step summary) and WriteJSON itself. WriteAll puts
// the three files in an output directory, each written atomically with
// WriteFileAtomic so that a crash or a full disk never leaves a torn report.
//
// Baseline (LoadBaseline) is one or more earlier results documents, which
// the assertions package judges against through its Baseline interface;
// NewRun records which baseline a run used, whether its environment
// fingerprint matched, and each case's baseline figures, so every report
// can show the deltas. Compare and WriteCompare judge two results
// documents against each other for `loadgate compare`.
//
// Console is the human view while a run is going on: it observes the runner
// (runner.Observer) for live progress, then prints an ab-style summary per
// case and a threshold table.
//
// Every renderer is deterministic: the same Run gives the same bytes, which
// keeps golden tests and diffs between runs meaningful.
package reporters
