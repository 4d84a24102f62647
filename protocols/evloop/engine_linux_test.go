//go:build linux

package evloop

import (
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
)

// nopProtocol says nothing on its connections: the tests below drive the
// engine's own bookkeeping.
type nopProtocol struct{ issued, closed, ended int }

func (p *nopProtocol) Issue(int)       { p.issued++ }
func (*nopProtocol) Event(int, uint32) {}
func (p *nopProtocol) Closed(int)      { p.closed++ }
func (p *nopProtocol) Ended(int)       { p.ended++ }
func (*nopProtocol) Grow(int)          {}

// tally counts a job's outcomes by kind.
type tally struct {
	kinds    [protocols.NumKinds]int
	errs     []string
	inFlight atomic.Int64
}

func (tl *tally) job(slots int) *protocols.LoopJob {
	start := protocols.Now()
	return &protocols.LoopJob{
		Start: start, Stop: start.Add(time.Minute), End: start.Add(time.Minute), Slots: slots,
		Arrival: func(i int64) (time.Duration, bool) { return time.Duration(i) * time.Millisecond, i < 10 },
		Done: func(_ int, _, _, _ time.Duration, out *protocols.Outcome) {
			tl.kinds[out.Kind]++
			if out.Err != nil {
				tl.errs = append(tl.errs, out.Err.Error())
			}
		},
		InFlight: &tl.inFlight,
		Late:     func(time.Duration) {},
	}
}

// engineTo is an engine of one slot with a request in flight, whose
// target is 127.0.0.1:port.
func engineTo(t *testing.T, port int, tl *tally) (*Engine, *nopProtocol) {
	t.Helper()
	a := sockets.NewAddr("127.0.0.1", strconv.Itoa(port))
	p := &nopProtocol{}
	e := New(Config{Addrs: []*sockets.Addr{a}, DialErrs: &sockets.DialErrors{Addr: sockets.DialAddr("127.0.0.1:" + strconv.Itoa(port))}}, p)
	e.job = tl.job(10)
	e.slots = []Slot{{FD: -1, dialAt: noTick, due: noTick}}
	e.head, e.tail, e.busy = noSlot, noSlot, 1
	e.link(0)
	return e, p
}

// TestStopSendingLateness: the open model's arrivals due by the phase's
// stop and never sent are reported late by the loop's wait, unless
// max_in_flight requests were outstanding then.
func TestStopSendingLateness(t *testing.T) {
	start := protocols.Now()
	stop := start.Add(100 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		busy   int
		freeAt time.Duration // from the start; 0: never full
		want   []time.Duration
	}{
		// arrivals 2, 3 and 4 (due at 40, 60, 80 ms) were not sent
		{"slots free: all the wait is the loop's", 1, 0, []time.Duration{60, 40, 20}},
		{"the cap freed at 70 ms: the loop's since then", 1, 70, []time.Duration{30, 30, 20}},
		{"at max_in_flight: the server's", 4, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []time.Duration
			e := &Engine{sent: 2, busy: tc.busy}
			if tc.freeAt > 0 {
				e.freeAt = start.Add(tc.freeAt * time.Millisecond)
			}
			e.job = &protocols.LoopJob{
				Start: start, Stop: stop, Slots: 4,
				Arrival: func(i int64) (time.Duration, bool) { return time.Duration(i) * 20 * time.Millisecond, i < 100 },
				Late:    func(d time.Duration) { got = append(got, d/time.Millisecond) },
			}
			e.stopSending(stop)
			if !e.stopped || len(got) != len(tc.want) {
				t.Fatalf("stopped %v, lateness %v ms, want %v", e.stopped, got, tc.want)
			}
			for k := range got {
				if got[k] != tc.want[k] {
					t.Errorf("lateness %v ms, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// TestOutOfSockets: a machine out of file descriptors or ports fails the
// request that met the limit as the generator's (other), not the server's
// (connect), and the open model then opens no more connections than it
// has.
func TestOutOfSockets(t *testing.T) {
	for _, tc := range []struct {
		err  unix.Errno
		out  bool
		kind protocols.ErrorKind
	}{
		{unix.EMFILE, true, protocols.KindOther},
		{unix.EADDRNOTAVAIL, true, protocols.KindOther},
		{unix.ECONNREFUSED, false, protocols.KindConnect},
	} {
		var tl tally
		e, p := engineTo(t, 1, &tl)
		e.sockets = 5
		e.ConnectFailed(0, "socket", tc.err)
		if e.canSend() == tc.out || tl.kinds[tc.kind] != 1 || p.ended != 1 {
			t.Errorf("%v: can open another connection %v, kinds %v, ended %d; want %v and one of kind %v",
				tc.err, e.canSend(), tl.kinds, p.ended, !tc.out, tc.kind)
		}
	}
}

// TestSelfConnectedIsRefused: a connection whose kernel-chosen port is
// the target's own reached itself, since nothing listens there; whatever
// then fails, the request failed to connect.
func TestSelfConnectedIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	self := &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	if err := syscall.Bind(fd, self); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Connect(fd, self); err != nil { // a simultaneous open with itself
		t.Fatal(err)
	}
	var tl tally
	e, p := engineTo(t, port, &tl)
	e.slots[0].FD, e.slots[0].dialAt = int32(fd), e.tick(protocols.Now())
	e.sockets = 1
	e.Fail(0, protocols.KindProtocol, errors.New("malformed reply"))
	if tl.kinds[protocols.KindConnect] != 1 || len(tl.errs) != 1 || !strings.Contains(tl.errs[0], "connection refused") {
		t.Errorf("kinds %v, errors %q: want one connect failure, connection refused", tl.kinds, tl.errs)
	}
	if e.slots[0].FD != -1 || e.sockets != 0 || p.closed != 1 {
		t.Errorf("the connection is not closed: fd %d, %d sockets, protocol told %d times", e.slots[0].FD, e.sockets, p.closed)
	}
}

// A million connections must fit in a gigabyte of the generator's memory:
// a closed-model slot, with its places in the ready lists and the think
// queue, takes at most maxSlotBytes of the engine's heap before any
// connection opens (the protocol's share of a slot is its own).
func TestSlotBytes(t *testing.T) {
	const slots, maxSlotBytes = 100_000, 160
	var tl tally
	e := New(Config{}, &nopProtocol{})
	e.job = tl.job(slots)
	e.job.Arrival = nil
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e.setUpClosed()
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / slots
	if per > maxSlotBytes || len(e.slots) != slots {
		t.Errorf("%d slots took %d bytes each, want at most %d (Slot is %d bytes)", len(e.slots), per, maxSlotBytes, unsafe.Sizeof(Slot{}))
	}
	t.Logf("%d bytes per slot, Slot %d", per, unsafe.Sizeof(Slot{}))
}
