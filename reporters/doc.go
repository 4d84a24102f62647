// Package reporters renders the results document (package results) into
// the outputs people and tools read. It is the last stage of the pipeline:
//
//	scenarios (parse) → runner (measure) → assertions (judge) → results (record) → reporters (tell)
//
// Every output is rendered from a results.Run alone, so `loadgate report`
// can render a saved results.json again: WriteJUnit (Ant JUnit XML for CI
// test reports), WriteMarkdown (a GitHub step summary) and WriteHTML (a
// self-contained report with charts). WriteAll puts them and results.json
// in an output directory through a FileSet, each written atomically so that
// a crash or a full disk never leaves a torn report or a directory mixing
// two runs. WriteAnnotations prints the GitHub Actions workflow commands
// that put failing rules on their lines of the scenario file. WriteCompare
// renders the judgement of two results documents against each other
// (assertions.Compare) for `loadgate compare`. A renderer never parses YAML: what it
// needs from the scenario travels in the document.
//
// Console is the human view while a run is going on: it observes the runner
// (runner.Observer) for live progress, then prints an ab-style summary per
// case and a threshold table.
//
// Every renderer is deterministic: the same Run gives the same bytes, which
// keeps golden tests and diffs between runs meaningful.
package reporters
