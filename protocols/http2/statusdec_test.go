package http2

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// refDecoder is x/net's Decoder as a flow's connection uses it, reduced
// to what statusDecoder reads: each block's last :status.
type refDecoder struct {
	dec    *hpack.Decoder
	status int
}

func newRefDecoder() *refDecoder {
	r := &refDecoder{}
	r.dec = hpack.NewDecoder(maxTable, func(f hpack.HeaderField) {
		if f.Name == ":status" {
			r.status, _ = strconv.Atoi(f.Value)
		}
	})
	r.dec.SetMaxStringLength(maxHeaderBytes)
	return r
}

func (r *refDecoder) decode(block []byte) (int, error) {
	r.status = 0
	if _, err := r.dec.Write(block); err != nil {
		return 0, err
	}
	return r.status, r.dec.Close()
}

// blocks encodes each response's fields with one hpack.Encoder, as one
// connection's server does, indexing every field; tables, when not 0,
// sets the encoder's table size before each block.
func blocks(table uint32, responses ...[]hpack.HeaderField) [][]byte {
	var b bytes.Buffer
	enc := hpack.NewEncoder(&b)
	var out [][]byte
	for _, fs := range responses {
		if table > 0 {
			enc.SetMaxDynamicTableSize(table)
		}
		b.Reset()
		for _, f := range fs {
			_ = enc.WriteField(f)
		}
		out = append(out, bytes.Clone(b.Bytes()))
	}
	return out
}

// nginxLike is the header block of response i as nginx's are: a status
// and four fields it adds to the table, one of which changes every time.
func nginxLike(i int, status string) []hpack.HeaderField {
	return []hpack.HeaderField{{Name: ":status", Value: status}, {Name: "server", Value: "nginx/1.22.1"},
		{Name: "date", Value: fmt.Sprintf("Thu, 03 Dec 2026 13:%02d:%02d GMT", i/60%60, i%60)},
		{Name: "content-type", Value: "text/plain"}, {Name: "content-length", Value: strconv.Itoa(i)}}
}

// nginxBlock is a header block as nginx 1.22 sends it: status 200 from the
// static table, then its four fields as Huffman-coded literals added to
// the table that it never refers to again.
func nginxBlock(second int) []byte {
	b := []byte{0x88}
	for _, f := range []struct {
		name  byte // static table index
		value string
	}{{54, "nginx/1.22.1"}, {33, fmt.Sprintf("Thu, 03 Dec 2026 13:%02d:%02d GMT", second/60%60, second%60)},
		{31, "text/plain"}, {28, "6"}} {
		v := hpack.AppendHuffmanString(nil, f.value)
		b = append(append(b, 0x40|f.name, 0x80|byte(len(v))), v...)
	}
	return b
}

func TestStatusDecoder(t *testing.T) {
	var nginxBlocks [][]byte
	var want200 []int
	for i := range 300 {
		nginxBlocks = append(nginxBlocks, nginxBlock(i/7))
		want200 = append(want200, 200)
	}
	var nginx, statuses [][]hpack.HeaderField
	var wantNginx, wantStatuses []int
	for i := range 300 {
		nginx = append(nginx, nginxLike(i, "200"))
		wantNginx = append(wantNginx, 200)
		// Statuses outside the static table are indexed, then referenced.
		s := []int{201, 503, 201, 200, 418, 503}[i%6]
		statuses = append(statuses, nginxLike(i, strconv.Itoa(s)))
		wantStatuses = append(wantStatuses, s)
	}
	big := strings.Repeat("b", 5000) // larger than the whole table: it empties it
	for _, tc := range []struct {
		name   string
		blocks [][]byte
		want   []int
		err    error // of the last block
	}{
		{"nginx's responses, evicting", blocks(0, nginx...), wantNginx, nil},
		{"nginx's blocks", nginxBlocks, want200, nil},
		{"statuses from the table", blocks(0, statuses...), wantStatuses, nil},
		{"a smaller table", blocks(200, statuses[:20]...), wantStatuses[:20], nil},
		{"no table", blocks(1, statuses[:20]...), wantStatuses[:20], nil},
		{"a field larger than the table", blocks(0, nginxLike(0, "201"),
			[]hpack.HeaderField{{Name: ":status", Value: "404"}, {Name: "x-big", Value: big}}, nginxLike(1, "201")),
			[]int{201, 404, 201}, nil},
		{"no status", blocks(0, []hpack.HeaderField{{Name: "x-a", Value: "1"}}), []int{0}, nil},
		{"status not a number", blocks(0, []hpack.HeaderField{{Name: ":status", Value: "2x0"}}), []int{0}, nil},
		{"index 0", [][]byte{{0x80}}, []int{0}, errHPACK},
		{"index past the table", [][]byte{{0xbe}}, []int{0}, errHPACK},
		{"truncated string", [][]byte{{0x48, 0x03, '2', '0'}}, []int{0}, errHPACK},
		{"truncated integer", [][]byte{{0x7f, 0x80}}, []int{0}, errHPACK},
		{"table size beyond the limit", [][]byte{{0x3f, 0xe2, 0x1f}}, []int{0}, errHPACK},
		{"string too long", [][]byte{{0x40, 0x7f, 0xff, 0xff, 0x04}}, []int{0}, errHPACKString},
		{"bad Huffman code", [][]byte{{0x48, 0x81, 0xff}}, []int{0}, errHPACK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ref := newStatusDecoder(), newRefDecoder()
			for i, b := range tc.blocks {
				got, err := d.decode(b)
				refGot, refErr := ref.decode(b)
				if i == len(tc.blocks)-1 && !errors.Is(err, tc.err) {
					t.Fatalf("block %d: err %v, want %v", i, err, tc.err)
				}
				if err != nil {
					if refErr == nil {
						t.Fatalf("block %d: err %v, x/net's decoder had none", i, err)
					}
					return
				}
				if got != tc.want[i] || refGot != got || refErr != nil {
					t.Fatalf("block %d: status %d, want %d (x/net's decoder: %d, %v)", i, got, tc.want[i], refGot, refErr)
				}
			}
		})
	}
}

// BenchmarkStatusDecoder is the reader's decoding of one of nginx's
// response header blocks, its date changing every 100 blocks, by
// statusDecoder and by x/net's Decoder as the reader used it before (all
// fields but :status skipped).
func BenchmarkStatusDecoder(b *testing.B) {
	var bs [][]byte
	for i := range 1000 {
		bs = append(bs, nginxBlock(i/100))
	}
	b.Run("statusDecoder", func(b *testing.B) {
		d := newStatusDecoder()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if s, err := d.decode(bs[i%len(bs)]); s != 200 || err != nil {
				b.Fatal(s, err)
			}
			i++
		}
	})
	b.Run("x/net", func(b *testing.B) {
		d := hpack.NewDecoder(maxTable, func(hpack.HeaderField) {})
		d.SetEmitEnabled(false)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := d.Write(bs[i%len(bs)]); err != nil || d.Close() != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// FuzzStatusDecoder checks statusDecoder against x/net's Decoder over a
// connection's header blocks (each prefixed by its length in two bytes):
// where x/net's decodes a block, statusDecoder must too, with the same
// :status, table and all. It may accept what x/net's rejects only in the
// strings it skips, which it does not decode.
func FuzzStatusDecoder(f *testing.F) {
	var seed [][]hpack.HeaderField
	for i := range 40 {
		seed = append(seed, nginxLike(i, []string{"200", "201", "404", "503"}[i%4]))
	}
	for _, table := range []uint32{0, 100, 1} {
		var in []byte
		for _, b := range blocks(table, seed...) {
			in = append(append(in, byte(len(b)>>8), byte(len(b))), b...)
		}
		f.Add(in)
	}
	f.Add([]byte{0, 3, 0x3f, 0xe1, 0x1f, 0, 1, 0x88})
	var in []byte
	for i := range 20 {
		b := nginxBlock(i / 3)
		in = append(append(in, byte(len(b)>>8), byte(len(b))), b...)
	}
	f.Add(in)
	f.Fuzz(func(t *testing.T, in []byte) {
		d, ref := newStatusDecoder(), newRefDecoder()
		for i := 0; len(in) >= 2; i++ {
			n := min(int(in[0])<<8|int(in[1]), len(in)-2)
			b := in[2 : 2+n]
			in = in[2+n:]
			got, err := d.decode(b)
			refGot, refErr := ref.decode(b)
			if refErr != nil {
				return
			}
			if err != nil || got != refGot {
				t.Fatalf("block %d %x: status %d, %v; x/net's decoder: %d", i, b, got, err, refGot)
			}
		}
	})
}
