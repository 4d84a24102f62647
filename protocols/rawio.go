package protocols

import "time"

// RawIdleLimit is how long a kept-alive connection may have been idle and
// still be written and read by its descriptor, skipping the poller's first
// read (see http1's and tcp's raw exchanges): far below any server's
// idle timeout, far above the gap between back-to-back requests. Writing
// resets the poller's readiness, which forgets a close that arrived while
// the connection sat idle; a connection busy moments ago has had no time
// to be closed that way.
const RawIdleLimit = 100 * time.Millisecond
