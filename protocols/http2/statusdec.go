package http2

// statusDecoder reads the :status of a connection's response header blocks
// and keeps the connection's HPACK state (RFC 7541) without making a string
// of any field: the reader of a connection whose responses' other fields
// nobody keeps (every connection but a flow's) decodes only what the
// dynamic table holds and the :status. x/net's Decoder, which a flow's
// connections use, makes two strings and two map entries of every field a
// server adds to the table (nginx adds its server, date, content-type and
// content-length to every response), which cost more than the rest of
// reading the response.

import (
	"bytes"
	"errors"
	"strconv"

	"golang.org/x/net/http2/hpack"
)

// maxTable is the dynamic table size this client allows, HPACK's default,
// which it does not change in its SETTINGS.
const maxTable = 4096

var (
	errHPACK = errors.New("hpack: malformed header block")
	// errHPACKString is a string longer than maxHeaderBytes, as
	// hpack.ErrStringLength is for x/net's Decoder.
	errHPACKString = errors.New("hpack: string too long")
)

// staticNames are the names of HPACK's static table (RFC 7541 Appendix A),
// entry 1 first; entries 8 to 14 are :status with staticStatus's values.
var staticNames = [...]string{"", ":authority", ":method", ":method", ":path", ":path", ":scheme", ":scheme",
	":status", ":status", ":status", ":status", ":status", ":status", ":status",
	"accept-charset", "accept-encoding", "accept-language", "accept-ranges", "accept",
	"access-control-allow-origin", "age", "allow", "authorization", "cache-control",
	"content-disposition", "content-encoding", "content-language", "content-length",
	"content-location", "content-range", "content-type", "cookie", "date", "etag", "expect",
	"expires", "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range",
	"if-unmodified-since", "last-modified", "link", "location", "max-forwards",
	"proxy-authenticate", "proxy-authorization", "range", "referer", "refresh", "retry-after",
	"server", "set-cookie", "strict-transport-security", "transfer-encoding", "user-agent",
	"vary", "via", "www-authenticate"}

// entry is one field of the dynamic table: its name and value at arena[off:].
type entry struct{ off, name, value int }

// statusDecoder's table holds at most maxTable/32 entries (each counts 32
// bytes more than its name and value), in a ring, newest at head-1, with
// their bytes in arena, compacted when it is full.
type statusDecoder struct {
	ring        [maxTable / 32]entry
	head, n     int
	size, limit int // the table's size and its maximum, as RFC 7541 §4.1 counts them
	arena       []byte
	huff        bytes.Buffer // a Huffman-coded string, decoded
	name        []byte       // the name of the field being decoded
	// seen are the last Huffman-coded strings decoded, as sent and
	// decoded, next the one to replace: a server sends the same values
	// again and again (nginx's server, content-type, content-length and
	// the date of the second), and decoding them is most of the work.
	seen [8]struct{ raw, text []byte }
	next int
}

// maxSeen bounds the strings seen keeps, as sent.
const maxSeen = 128

func newStatusDecoder() *statusDecoder {
	return &statusDecoder{limit: maxTable, arena: make([]byte, 0, 2*maxTable)}
}

// decode reads one whole header block and returns its :status, 0 when it
// has none (the last one when it has several, as x/net's emits them).
func (d *statusDecoder) decode(block []byte) (int, error) {
	status := 0
	for first := true; len(block) > 0; first = false {
		b := block[0]
		var err error
		switch {
		case b&0x80 != 0: // indexed field
			var i uint64
			if i, block, err = varint(7, block); err != nil {
				return 0, err
			}
			if status, err = d.indexed(i, status); err != nil {
				return 0, err
			}
		case b&0xe0 == 0x20: // dynamic table size update
			if !first && d.size > 0 {
				return 0, errHPACK
			}
			var n uint64
			if n, block, err = varint(5, block); err != nil {
				return 0, err
			}
			if n > maxTable {
				return 0, errHPACK
			}
			d.limit = int(n)
			d.evict(0)
		default: // a literal: with indexing (01), without (0000) or never (0001)
			add := b&0xc0 == 0x40
			prefix := byte(4)
			if add {
				prefix = 6
			}
			if block, status, err = d.literal(block, prefix, add, status); err != nil {
				return 0, err
			}
		}
	}
	return status, nil
}

// indexed is the :status after indexed field i.
func (d *statusDecoder) indexed(i uint64, status int) (int, error) {
	switch {
	case i == 0:
		return 0, errHPACK
	case i >= 8 && i <= 14:
		return staticStatus[i-8], nil
	case i < uint64(len(staticNames)):
		return status, nil
	}
	e, ok := d.at(i)
	if !ok {
		return 0, errHPACK
	}
	if string(d.arena[e.off:e.off+e.name]) == ":status" {
		return parseStatus(d.arena[e.off+e.name : e.off+e.name+e.value]), nil
	}
	return status, nil
}

// literal reads a literal field whose name index has prefix bits, adds it
// to the table when add says so, and returns the rest of the block and
// the :status after it.
func (d *statusDecoder) literal(block []byte, prefix byte, add bool, status int) ([]byte, int, error) {
	i, block, err := varint(prefix, block)
	if err != nil {
		return nil, 0, err
	}
	isStatus := false
	switch {
	case i == 0:
		var raw []byte
		var huff bool
		if raw, huff, block, err = str(block); err != nil {
			return nil, 0, err
		}
		name, err := d.text(raw, huff)
		if err != nil {
			return nil, 0, err
		}
		d.name = append(d.name[:0], name...)
		isStatus = string(d.name) == ":status"
	case i < uint64(len(staticNames)):
		d.name = append(d.name[:0], staticNames[i]...)
		isStatus = i >= 8 && i <= 14
	default:
		e, ok := d.at(i)
		if !ok {
			return nil, 0, errHPACK
		}
		d.name = append(d.name[:0], d.arena[e.off:e.off+e.name]...)
		isStatus = string(d.name) == ":status"
	}
	raw, huff, block, err := str(block)
	if err != nil {
		return nil, 0, err
	}
	if !add && !isStatus {
		// Neither kept nor read: x/net's Decoder does not decode such a
		// string either while it emits nothing.
		return block, status, nil
	}
	value, err := d.text(raw, huff)
	if err != nil {
		return nil, 0, err
	}
	if isStatus {
		status = parseStatus(value)
	}
	if add {
		d.insert(d.name, value)
	}
	return block, status, nil
}

// text is string raw, Huffman-decoded when huff says so; it holds until
// the next call.
func (d *statusDecoder) text(raw []byte, huff bool) ([]byte, error) {
	if !huff {
		return raw, nil
	}
	if len(raw) <= maxSeen {
		for i := range d.seen {
			if e := &d.seen[i]; len(e.raw) == len(raw) && bytes.Equal(e.raw, raw) {
				return e.text, nil
			}
		}
	}
	d.huff.Reset()
	if _, err := hpack.HuffmanDecode(&d.huff, raw); err != nil {
		return nil, errHPACK
	}
	text := d.huff.Bytes()
	if len(raw) <= maxSeen {
		e := &d.seen[d.next]
		d.next = (d.next + 1) % len(d.seen)
		e.raw, e.text = append(e.raw[:0], raw...), append(e.text[:0], text...)
	}
	return text, nil
}

// at is dynamic table entry i (62: the newest).
func (d *statusDecoder) at(i uint64) (entry, bool) {
	k := i - uint64(len(staticNames))
	if k >= uint64(d.n) {
		return entry{}, false
	}
	return d.ring[(d.head-1-int(k)+2*len(d.ring))%len(d.ring)], true
}

// insert adds a field to the table, evicting the oldest as need be; a
// field larger than the whole table empties it (RFC 7541 §4.4).
func (d *statusDecoder) insert(name, value []byte) {
	sz := len(name) + len(value) + 32
	if sz > d.limit {
		d.evict(d.limit)
		return
	}
	d.evict(sz)
	if len(d.arena)+len(name)+len(value) > cap(d.arena) {
		d.compact()
	}
	off := len(d.arena)
	d.arena = append(append(d.arena, name...), value...)
	d.ring[d.head] = entry{off: off, name: len(name), value: len(value)}
	d.head = (d.head + 1) % len(d.ring)
	d.n++
	d.size += sz
}

// evict drops the oldest entries until room more bytes fit.
func (d *statusDecoder) evict(room int) {
	for d.n > 0 && d.size+room > d.limit {
		e := d.ring[(d.head-d.n+len(d.ring))%len(d.ring)]
		d.size -= e.name + e.value + 32
		d.n--
	}
	if d.n == 0 {
		d.arena = d.arena[:0]
	}
}

// compact moves the entries' bytes to the arena's start, oldest first:
// they are at most maxTable bytes, half the arena.
func (d *statusDecoder) compact() {
	var moved [2 * maxTable]byte
	m := 0
	for k := d.n; k > 0; k-- {
		j := (d.head - k + len(d.ring)) % len(d.ring)
		e := &d.ring[j]
		m += copy(moved[m:], d.arena[e.off:e.off+e.name+e.value])
		e.off = m - e.name - e.value
	}
	d.arena = append(d.arena[:0], moved[:m]...)
}

// parseStatus is a :status value as a number, 0 when it is not one.
func parseStatus(v []byte) int {
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0
	}
	return n
}

// varint reads an integer with an n-bit prefix (RFC 7541 §5.1), as x/net
// does, and returns the rest of p.
func varint(n byte, p []byte) (uint64, []byte, error) {
	i := uint64(p[0]) & (1<<n - 1)
	if i < 1<<n-1 {
		return i, p[1:], nil
	}
	p = p[1:]
	for m := uint(0); len(p) > 0; m += 7 {
		if m >= 63 {
			return 0, nil, errHPACK
		}
		b := p[0]
		p = p[1:]
		i += uint64(b&127) << m
		if b&128 == 0 {
			return i, p, nil
		}
	}
	return 0, nil, errHPACK
}

// str reads a string literal (RFC 7541 §5.2): its bytes as sent, whether
// they are Huffman-coded, and the rest of p.
func str(p []byte) (raw []byte, huff bool, rest []byte, err error) {
	if len(p) == 0 {
		return nil, false, nil, errHPACK
	}
	huff = p[0]&0x80 != 0
	n, p, err := varint(7, p)
	switch {
	case err != nil:
		return nil, false, nil, err
	case n > maxHeaderBytes:
		return nil, false, nil, errHPACKString
	case n > uint64(len(p)):
		return nil, false, nil, errHPACK
	}
	return p[:n], huff, p[n:], nil
}

// reset empties the dynamic table, for a new connection.
func (d *statusDecoder) reset() {
	d.head, d.n, d.size, d.limit = 0, 0, 0, maxTable
	d.arena = d.arena[:0]
}
