package http2

// streamTable maps a connection's open streams to the slots that sent
// them, with no map: stream ids are odd and rise, so id/2 modulo the
// table's size is a stream's place, and a new stream skips the ids whose
// place is taken (RFC 9113 §5.1.1 allows gaps: an id passed over is
// closed). The table is kept at least twice as large as its streams.
type streamTable struct {
	slot []int32 // the slot's number plus one at each place; 0: free
	id   []uint32
	n    int
	list []int32 // what slots last returned
}

// tableStart is a table's first size: twice the streams a server allows
// until its SETTINGS say otherwise.
const tableStart = 256

func (t *streamTable) reset() {
	if t.slot == nil {
		t.slot, t.id = make([]int32, tableStart), make([]uint32, tableStart)
	}
	clear(t.slot)
	t.n = 0
}

func (t *streamTable) place(id uint32) int { return int(id>>1) & (len(t.slot) - 1) }

// free is the first id from id on (odd, rising by two) whose place is
// free, making room for one more stream first.
func (t *streamTable) free(id uint32) uint32 {
	if 2*(t.n+1) > len(t.slot) {
		t.grow()
	}
	for t.slot[t.place(id)] != 0 {
		id += 2
	}
	return id
}

// put records stream id, whose place is free, as slot's.
func (t *streamTable) put(id uint32, slot int32) {
	k := t.place(id)
	t.slot[k], t.id[k] = slot+1, id
	t.n++
}

// get is the slot of stream id.
func (t *streamTable) get(id uint32) (int32, bool) {
	k := t.place(id)
	if t.slot[k] == 0 || t.id[k] != id {
		return 0, false
	}
	return t.slot[k] - 1, true
}

func (t *streamTable) remove(id uint32) {
	if k := t.place(id); t.slot[k] != 0 && t.id[k] == id {
		t.slot[k] = 0
		t.n--
	}
}

// grow doubles the table: ids apart in the low bits of id/2 stay apart.
func (t *streamTable) grow() {
	slot, id := t.slot, t.id
	t.slot, t.id = make([]int32, 2*len(slot)), make([]uint32, 2*len(slot))
	for k, s := range slot {
		if s != 0 {
			j := t.place(id[k])
			t.slot[j], t.id[j] = s, id[k]
		}
	}
}

// slots lists the slots of the open streams, in a list of the table's
// that the next call reuses.
func (t *streamTable) slots() []int32 {
	t.list = t.list[:0]
	for _, s := range t.slot {
		if s != 0 {
			t.list = append(t.list, s-1)
		}
	}
	return t.list
}
