package runner

import "github.com/loadgate/loadgate/protocols"

// The seams of a run that only tests set, as options of runWith, so that
// Config stays the settings of a real run.

// withClients makes every worker's client with f instead of the target's
// protocol: a test's scripted or instrumented clients. The phases then
// run on workers, never on an event loop.
func withClients(f protocols.NewClientFunc) option {
	return func(r *scenarioRun) { r.clients = f }
}

// ignoringSaturation judges probes by their SLO alone: on a test machine
// busy with other builds, a short probe's scheduler lag says nothing about
// the path of the search a test checks.
func ignoringSaturation() option {
	return func(r *scenarioRun) { r.ignoreSaturation = true }
}
