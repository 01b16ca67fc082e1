package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// buildRecord is what Builder.Update needs to know about how a graph was
// built: the settings that shape its nodes and edges, and its documents in
// order with a hash of each one's content. Build and Update attach it; Write
// stores it (header flag flagRecord) and Read restores it.
type buildRecord struct {
	// knn is Builder.KNN as set: 0 for the default k, -1 for none.
	knn int
	// window is the effective reading-order window (0 for none).
	window int
	// mentions reports whether MentionLinks edges were added.
	mentions bool
	// model reports whether nodes were analysed by a model (P1/P2).
	model bool
	// rounds is the number of evolution rounds run.
	rounds int
	// docs are the documents in graph order.
	docs []docRecord
}

// docRecord is one document of a built graph: its nodes are the next
// nodes of the graph, in order (fewer than its items when a model dropped
// some).
type docRecord struct {
	id    string
	hash  docHash
	nodes int
}

// docHash identifies a document's content as the Builder sees it.
type docHash [16]byte

const (
	// recordVersion is the version of the record's encoding.
	recordVersion = 1
	// maxSetting bounds the window and rounds a record may hold.
	maxSetting = 1 << 20
)

// settingsRecord returns the record of b's settings, without documents.
func (b *Builder) settingsRecord() *buildRecord {
	r := &buildRecord{
		knn:      b.KNN,
		window:   defaultInt(b.Window, defaultWindow),
		mentions: !b.NoMentionLinks,
		model:    b.Model != nil,
	}
	if r.knn < 0 {
		r.knn = -1
	}
	if b.Model != nil {
		r.rounds = b.rounds()
	}
	return r
}

// sameSettings reports whether r and o were made with equal settings.
func (r *buildRecord) sameSettings(o *buildRecord) bool {
	return r.knn == o.knn && r.window == o.window && r.mentions == o.mentions && r.model == o.model && r.rounds == o.rounds
}

// hashDocument hashes a document's ID and its unanalysed nodes (as
// Builder.nodes makes them, image paths mapped): everything the Builder
// reads of it. Each field is length-prefixed, so that no two documents
// share an encoding.
func hashDocument(id string, nodes []Node, buf *[]byte) docHash {
	h := sha256.New()
	b := (*buf)[:0]
	defer func() { *buf = b[:0] }()
	b = appendString(b, id)
	b = binary.AppendUvarint(b, uint64(len(nodes)))
	for i := range nodes {
		n := &nodes[i]
		if s := pageSpan(n); s > 0 {
			// A marker no page takes, then the range: documents
			// without page ranges hash as before.
			b = binary.AppendVarint(b, minPage-1)
			b = binary.AppendVarint(b, int64(n.Page))
			b = binary.AppendUvarint(b, uint64(s))
		} else {
			b = binary.AppendVarint(b, int64(n.Page))
		}
		b = append(b, byte(n.Modality))
		b = appendString(b, n.Section)
		b = appendString(b, n.Content)
		b = appendString(b, n.Caption)
		b = appendString(b, n.Footnote)
		b = appendImage(b, n.Image)
		b = appendString(b, n.Context)
		if len(b) > 1<<16 {
			h.Write(b)
			b = b[:0]
		}
	}
	h.Write(b)
	var out docHash
	copy(out[:], h.Sum(nil))
	return out
}

func appendRecord(b []byte, r *buildRecord) []byte {
	b = binary.AppendUvarint(b, recordVersion)
	b = binary.AppendVarint(b, int64(r.knn))
	b = binary.AppendUvarint(b, uint64(r.window))
	var f byte
	if r.mentions {
		f |= 1
	}
	if r.model {
		f |= 2
	}
	b = append(b, f)
	b = binary.AppendUvarint(b, uint64(r.rounds))
	b = binary.AppendUvarint(b, uint64(len(r.docs)))
	for _, d := range r.docs {
		b = appendString(b, d.id)
		b = append(b, d.hash[:]...)
		b = binary.AppendUvarint(b, uint64(d.nodes))
	}
	return b
}

// minDocRecord is the fewest bytes a document record takes.
const minDocRecord = 1 + len(docHash{}) + 1

// decodeRecord reads a build record and checks it against the nodes: the
// documents' node counts add up to the nodes, each document's nodes name
// it, and no document appears twice.
func decodeRecord(d *decoder, nodes []Node) (*buildRecord, error) {
	if v := d.uvarint(); d.err == nil && v != recordVersion {
		return nil, fmt.Errorf("build record version %d", v)
	}
	r := &buildRecord{}
	r.knn = d.varint32()
	window := d.uvarint()
	f := d.byte()
	rounds := d.uvarint()
	if d.err == nil && (f&^3 != 0 || r.knn < -1 || window > maxSetting || rounds > maxSetting) {
		return nil, fmt.Errorf("bad build settings")
	}
	r.window, r.rounds = int(window), int(rounds)
	r.mentions, r.model = f&1 != 0, f&2 != 0
	nd := d.count(minDocRecord)
	if d.err != nil {
		return nil, d.err
	}
	r.docs = make([]docRecord, nd)
	seen := make(map[string]bool, nd)
	at := 0
	for i := range r.docs {
		dr := &r.docs[i]
		dr.id = d.str()
		if d.err == nil && len(d.b)-d.off < len(dr.hash) {
			d.fail(errShort)
		}
		if d.err != nil {
			return nil, d.err
		}
		copy(dr.hash[:], d.b[d.off:])
		d.off += len(dr.hash)
		dr.nodes = int(d.uvarint())
		if d.err != nil {
			return nil, d.err
		}
		if seen[dr.id] {
			return nil, fmt.Errorf("build record: document %q twice", dr.id)
		}
		seen[dr.id] = true
		if dr.nodes > len(nodes)-at {
			return nil, fmt.Errorf("build record: document %q has more nodes than the graph", dr.id)
		}
		for j := at; j < at+dr.nodes; j++ {
			if nodes[j].Doc != dr.id {
				return nil, fmt.Errorf("build record: node %d is not of document %q", j, dr.id)
			}
		}
		at += dr.nodes
	}
	if at != len(nodes) {
		return nil, fmt.Errorf("build record: %d of %d nodes in documents", at, len(nodes))
	}
	return r, nil
}
