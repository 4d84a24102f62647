// Package results owns the results document, results.json (schema 1): the
// one file a run leaves behind and every later command starts from, and
// every word of it: the runner's figures (CaseResult, PhaseResult, Stats,
// Histogram, trials, probes, generator health), the assertions' Verdicts
// and the server's Usage are declared here, with the computations that
// need nothing but them (Summarize, CarriedOut, Invalidity) and every merge
// of them (trials, segments, searches). Measuring and judging are siblings
// that both import it, wired by the command:
//
//	scenarios (parse) → runner (measure) ┐
//	                    assertions (judge) ┴→ results (record) → reporters (tell)
//
// NewRun assembles the document from the runner's ScenarioResults and the
// assertions' Verdicts, leaving warm-up phases out. WriteJSON writes it;
// ReadRun and ReadRunFile read it back and refuse, rather than render, a
// document that is not one: a schema version they do not know, a null
// entry, a negative count or a rate that is not a number (ErrInvalidResults).
// ResultsSchema is the document's JSON Schema, generated from these types.
//
// Baseline (LoadBaseline) is one or more earlier documents, which the
// assertions package judges against through its Baseline interface; NewRun
// records which baseline a run used, whether its environment fingerprint
// (HostInfo, Fingerprint) matched, and each case's baseline figures.
// MergeParts joins the documents of several segments or invocations of the
// same scenarios into one. An interrupted document is never a baseline,
// never merged and never compared (RefuseInterrupted), nor is an invalid
// one, whose figures describe the load generator (RefuseInvalid). ReadRun
// derives Passed again from the figures and verdicts rather than trust the
// stored flag, and refuses a document whose flag says otherwise
// (ErrPassedContradicts).
//
// Nothing here renders: the reporters package turns a Run into console
// text, JUnit, Markdown and HTML.
package results
