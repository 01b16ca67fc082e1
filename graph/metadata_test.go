package graph

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// metadataGraph is a record graph whose documents have metadata.
func metadataGraph(t testing.TB) *Graph {
	g := recordGraph(t, 7, 4)
	g.Metadata = map[string]map[string]string{
		"doc0": {"kind": "report", "year": "2021"},
		"doc2": {"kind": "notes"},
		"doc1": {},
	}
	return g
}

// Metadata survives Write and Read (and Load) under its flag; a graph
// without metadata writes no flag (older versions read its file), and a
// version that does not know the flag refuses a file that has it.
func TestMetadataRoundTrip(t *testing.T) {
	g := metadataGraph(t)
	data := encode(t, g)
	if f := binary.LittleEndian.Uint32(data[12:]); f != flagRecord|flagMetadata {
		t.Fatalf("flags %b", f)
	}
	h, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"doc0": {"kind": "report", "year": "2021"}, "doc2": {"kind": "notes"}}
	if !reflect.DeepEqual(h.Metadata, want) {
		t.Fatalf("metadata %v, want %v", h.Metadata, want)
	}
	loadMatchesDecode(t, data)
	if !bytes.Equal(encode(t, h), data) {
		t.Fatal("re-encoding differs")
	}
	// Equal graphs, equal bytes: map order does not leak into the file.
	for range 5 {
		if !bytes.Equal(encode(t, metadataGraph(t)), data) {
			t.Fatal("two writes of one graph differ")
		}
	}
	// No metadata (or only empty maps): no flag, the file of before.
	plain := recordGraph(t, 7, 4)
	plain.Metadata = map[string]map[string]string{"doc0": {}}
	if f := binary.LittleEndian.Uint32(encode(t, plain)[12:]); f != flagRecord {
		t.Fatalf("flags %b without metadata", f)
	}
	if !bytes.Equal(encode(t, plain), encode(t, recordGraph(t, 7, 4))) {
		t.Fatal("empty metadata changed the file")
	}
	// A reader of the format before metadata: the flag is unknown to it.
	old := data[12]
	if flagsBefore := uint32(flagRecord | flagImageRoot | flagInt8 | flagPageRanges); uint32(old)&^flagsBefore == 0 {
		t.Fatal("the metadata flag is one an older reader knows")
	}
}

// Metadata not in its one encoding is ErrFormat.
func TestMetadataNonCanonical(t *testing.T) {
	for name, md := range map[string][]byte{
		"order":   appendMetadataRaw(nil, [][3]string{{"b", "k", "v"}, {"a", "k", "v"}}),
		"twice":   twice(),
		"keys":    appendMetadataRaw(nil, [][3]string{{"a", "l", "v"}, {"a", "k", "v"}}),
		"no keys": binary.AppendUvarint(appendString(binary.AppendUvarint(nil, 1), "a"), 0),
		"none":    binary.AppendUvarint(nil, 0),
		"short":   appendMetadataRaw(nil, [][3]string{{"a", "k", "v"}})[:4],
	} {
		d := &decoder{b: md}
		if _, err := decodeMetadata(d); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// appendMetadataRaw encodes (document, key, value) triples in the given
// order, one document per run of equal IDs, without sorting.
func appendMetadataRaw(b []byte, triples [][3]string) []byte {
	type doc struct {
		id    string
		pairs [][2]string
	}
	var docs []doc
	for _, t := range triples {
		if len(docs) == 0 || docs[len(docs)-1].id != t[0] {
			docs = append(docs, doc{id: t[0]})
		}
		docs[len(docs)-1].pairs = append(docs[len(docs)-1].pairs, [2]string{t[1], t[2]})
	}
	b = binary.AppendUvarint(b, uint64(len(docs)))
	for _, d := range docs {
		b = appendString(b, d.id)
		b = binary.AppendUvarint(b, uint64(len(d.pairs)))
		for _, p := range d.pairs {
			b = appendString(appendString(b, p[0]), p[1])
		}
	}
	return b
}

// twice is metadata naming document "a" twice.
func twice() []byte {
	one := appendMetadataRaw(nil, [][3]string{{"a", "k", "v"}})
	return append(binary.AppendUvarint(nil, 2), append(one[1:], one[1:]...)...)
}

// Metadata (bit 4) and page spans (bit 3) in one file: both flags, both
// read back.
func TestMetadataWithPageRanges(t *testing.T) {
	g := metadataGraph(t)
	g.Nodes[1].LastPage = g.Nodes[1].Page + 2
	data := encode(t, g)
	if f := binary.LittleEndian.Uint32(data[12:]); f != flagRecord|flagPageRanges|flagMetadata {
		t.Fatalf("flags %b", f)
	}
	h, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h.Nodes[1].LastPage != g.Nodes[1].LastPage || len(h.Metadata) != 2 {
		t.Fatalf("last page %d, metadata %v", h.Nodes[1].LastPage, h.Metadata)
	}
	loadMatchesDecode(t, data)
}
