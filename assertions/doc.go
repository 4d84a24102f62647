// Package assertions judges a run against a scenario's thresholds.
//
// It is the third stage of loadgate's pipeline:
//
//	scenarios → runner → assertions → reporters
//
// scenarios parses and resolves a YAML file; Compile then type-checks every
// threshold against Env before any traffic is sent, so a misspelt metric or
// a comparison of a latency with a number is a load-time error pointing at
// file:line:column, not a surprise after a thirty-minute run. runner drives
// the load and measures; Judge evaluates the compiled rules on each case's
// measured (never warm-up) phases and returns one results.Verdict per threshold and
// case, which reporters turn into the console table, JUnit XML, Markdown and
// results.json, and which decide the exit code through results.Verdict.Fails.
//
// Judge also compares with an earlier run when JudgeOptions.Baseline is
// set: `baseline` in a rule is the matching case of that run, and
// regressed(metric, tolerance) compares the two runs trial by trial with
// the regression package (a tolerance and a Mann–Whitney U test), which
// gives the verdict its third outcome, results.StatusInconclusive. The Baseline
// interface is declared here, so this package never reads results files;
// results.Baseline implements it. A target with baseline_target (same-job A/B) is
// compared instead with that target's case of the same matrix values in
// the run being judged, which needs no results file at all. Compare judges
// one whole results document against another (`loadgate compare`), case by
// case on CompareMetrics, and returns the Comparison that
// reporters.WriteCompare renders.
//
// Rules also read the system under test's CPU and memory and the host's
// load (server.*, host.*) from the runner's per-case usage samples. Like a
// missing baseline, missing samples skip a rule rather than judge zeros.
// The same holds for a flow's figures (iterations, iterations_rps,
// iteration.*): a case whose target has no flow skips the rules reading
// them. A flow's steps are named requests, read through requests_by_name.
//
// Rules are expr-lang expressions (github.com/expr-lang/expr) extended with
// the literals of the scenario format: durations (50ms), sizes (64MiB) and
// percentages (5%). The literals are rewritten into plain expr before
// compiling, keeping a map of offsets so that errors still point at the text
// the user wrote. docs/rules.md is the language reference.
package assertions
