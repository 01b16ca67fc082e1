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

func TestListsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		kws, refs []string
		names     []int64
	}{
		{nil, nil, nil},
		{[]string{"harbour", "", "lamp keeper"}, nil, []int64{0, 7, 7, 1 << 40}},
		{nil, []string{"doi:10.1/x", "fig 2"}, nil},
	} {
		b := appendLists(nil, c.kws, c.refs, c.names)
		k, r, n, err := decodeLists(b)
		if err != nil || !slices.Equal(k, c.kws) || !slices.Equal(r, c.refs) || !slices.Equal(n, c.names) {
			t.Fatalf("%q %q %v: decoded %q %q %v, %v", c.kws, c.refs, c.names, k, r, n, err)
		}
	}
}

// FuzzDecodeLists: stored lists never make the decoder panic, and what it
// accepts encodes back to the same bytes.
func FuzzDecodeLists(f *testing.F) {
	f.Add(appendLists(nil, []string{"harbour", "lamp"}, []string{"fig 2"}, []int64{3, 900}))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, r, n, err := decodeLists(b)
		if err != nil {
			return
		}
		for i := 1; i < len(n); i++ {
			if n[i] < n[i-1] {
				t.Fatalf("decoded seqs not ascending: %v", n)
			}
		}
		if got := appendLists(nil, k, r, n); !bytes.Equal(got, b) {
			t.Fatalf("%x decodes to %q %q %v, which encodes to %x", b, k, r, n, got)
		}
	})
}
