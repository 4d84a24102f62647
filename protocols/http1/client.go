package http1

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// NewClient makes the client of one worker of HTTP target t. It is the
// lean HTTP/1.1 client unless t needs what only net/http does (see
// http1Unsupported: HTTP/2, a mix spanning several origins, CONNECT,
// internationalised host names, a proxy). A flow target gets the flow
// client (httpflow), which runs its steps through the lean client's wire
// code (flowWire) and implements protocols.Iterator.
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	switch {
	case t.HTTP == nil:
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	case t.HTTP.Flow != nil:
		return httpflow.NewWireClient(t, worker, newFlowWire(t, worker))
	case http1Unsupported(t.HTTP) == "":
		return newHTTP1Client(t, worker)
	default:
		return newNetHTTPClient(t, worker)
	}
}
