package http1

import (
	"errors"
	"io"
	"strings"

	"github.com/loadgate/loadgate/protocols"
)

// classify maps an error of an exchange, the lean client's, the event
// loop's or net/http's, to the error kinds of SPEC §3: the network's
// errors as protocols.NetErrorKind says, then what only HTTP knows, of
// this package's parser or in net/http's words (its errors of a malformed
// response are unexported).
func classify(err error) protocols.ErrorKind {
	if k := protocols.NetErrorKind(err); k != protocols.KindNone {
		return k
	}
	if errors.Is(err, errNotHTTP) {
		return protocols.KindProtocol
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "invalid"), strings.Contains(msg, "bad "):
		return protocols.KindProtocol
	case strings.Contains(msg, "server closed"), strings.Contains(msg, "connection reset"):
		return protocols.KindReset
	}
	return protocols.KindOther
}

// responseKind maps a failed exchange to its error kind.
func responseKind(err error) protocols.ErrorKind {
	var he http1Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return protocols.KindLength
	case errors.As(err, &he):
		return protocols.KindProtocol
	case errors.Is(err, io.ErrNoProgress):
		return protocols.KindOther
	}
	return classify(err)
}
