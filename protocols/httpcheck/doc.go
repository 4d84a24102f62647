// Package httpcheck judges the responses of HTTP targets, the same way
// whichever protocol carried them: an Expectation applies a target's or a
// flow step's expect (status, length, body_contains, body_regex) and a
// BodyCheck streams a body through the body checks as it arrives, keeping
// a bounded part of it. The HTTP/1.1 client (protocols/http1) feeds them
// from its own parser; net/http's bodies and HTTP/2's streams go through
// ResponseCheck, which reads an io.Reader.
package httpcheck
