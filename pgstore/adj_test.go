package pgstore

import (
	"bytes"
	"slices"
	"testing"
)

func TestAdjRoundTrip(t *testing.T) {
	for _, c := range []struct {
		nbrs  []int64
		kinds []int16
	}{
		{nil, nil},
		{[]int64{0}, []int16{1}},
		{[]int64{3, 4, 900, 1 << 40}, []int16{1, 2, 4, 7}},
	} {
		b := encodeAdj(c.nbrs, c.kinds)
		n, k, err := decodeAdj(b)
		if err != nil || !slices.Equal(n, c.nbrs) && len(c.nbrs) > 0 || !slices.Equal(k, c.kinds) && len(c.kinds) > 0 {
			t.Fatalf("%v %v: decoded %v %v, %v", c.nbrs, c.kinds, n, k, err)
		}
	}
}

// FuzzDecodeAdj: stored adjacency bytes never make the decoder panic, and
// what it accepts encodes back to the same bytes.
func FuzzDecodeAdj(f *testing.F) {
	f.Add(encodeAdj([]int64{3, 4, 900}, []int16{1, 2, 4}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, k, err := decodeAdj(b)
		if err != nil {
			return
		}
		for i := 1; i < len(n); i++ {
			if n[i] < n[i-1] {
				t.Fatalf("decoded seqs not ascending: %v", n)
			}
		}
		if got := encodeAdj(n, k); !bytes.Equal(got, b) {
			t.Fatalf("%x decodes to %v %v, which encodes to %x", b, n, k, got)
		}
	})
}
