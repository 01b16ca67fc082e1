package graph

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// metadataOf is the Graph.Metadata of docs: each document's non-empty
// Metadata, copied, by ID; nil when no document has any.
func metadataOf(docs []Document) map[string]map[string]string {
	var out map[string]map[string]string
	for i := range docs {
		if len(docs[i].Metadata) == 0 {
			continue
		}
		if out == nil {
			out = map[string]map[string]string{}
		}
		out[docs[i].ID] = maps.Clone(docs[i].Metadata)
	}
	return out
}

// hasMetadata reports whether g has metadata to save: a document with at
// least one key.
func hasMetadata(g *Graph) bool {
	for _, md := range g.Metadata {
		if len(md) > 0 {
			return true
		}
	}
	return false
}

// appendMetadata appends the documents' metadata in its one encoding: the
// count of documents with a key, then for each, by ID ascending, the ID
// and its pairs by key ascending.
func appendMetadata(b []byte, md map[string]map[string]string) []byte {
	ids := make([]string, 0, len(md))
	for id, m := range md {
		if len(m) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		m := md[id]
		b = appendString(b, id)
		keys := slices.Sorted(maps.Keys(m))
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = appendString(b, k)
			b = appendString(b, m[k])
		}
	}
	return b
}

// decodeMetadata reads appendMetadata's encoding, which it accepts only
// in that form (IDs and keys strictly ascending, no document without a
// key), so that a graph has one file.
func decodeMetadata(d *decoder) (map[string]map[string]string, error) {
	nd := d.count(3) // an ID, a pair count and a pair take at least 3 bytes
	if d.err != nil {
		return nil, d.err
	}
	if nd == 0 {
		return nil, fmt.Errorf("metadata of no document")
	}
	out := make(map[string]map[string]string, nd)
	prev := ""
	for i := 0; i < nd; i++ {
		id := d.str()
		np := d.count(2)
		if d.err != nil {
			return nil, d.err
		}
		if i > 0 && id <= prev {
			return nil, fmt.Errorf("metadata: document %q out of order", id)
		}
		if np == 0 {
			return nil, fmt.Errorf("metadata: document %q without keys", id)
		}
		prev = id
		m := make(map[string]string, np)
		pk := ""
		for j := 0; j < np; j++ {
			k, v := d.str(), d.str()
			if d.err != nil {
				return nil, d.err
			}
			if j > 0 && k <= pk {
				return nil, fmt.Errorf("metadata: document %q: key %q out of order", id, k)
			}
			pk = k
			m[k] = v
		}
		out[id] = m
	}
	return out, nil
}
