// Package httpflow is the client of a flow target (SPEC §12): one virtual
// user that runs a flow's setup once, then its steps, each rendered from
// its templates, its response judged by protocols/httpcheck, its values
// extracted for the steps after it, with data rows and cookies carried
// from step to step.
//
// How a step reaches the server is the transport's: the lean HTTP/1.1
// client's connections (protocols/http1) take the step as the bytes the
// flow client renders (a Wire); HTTP/2 (protocols/http2) takes it as a
// StepRequest that it frames itself (a StepTransport). Everything else is
// here, the same whatever carries the step.
package httpflow
