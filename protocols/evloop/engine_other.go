//go:build !linux

package evloop

// Supported: the event loop needs epoll, which only Linux has.
const Supported = false
