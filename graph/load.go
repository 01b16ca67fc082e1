package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"unsafe"
)

// loadChunk is how many bytes Load asks for per read. Each chunk is
// checksummed, and its embedding values checked, right after it is read,
// while it is still in the cache.
const loadChunk = 256 << 10

// Load reads a graph file written by Save or Write. Node strings and the
// embeddings share the one buffer the file is read into.
//
// Load reads the file in chunks and checks each as it arrives; once the
// nodes and edges are in, it decodes them while the embeddings are still
// being read. It fails as [Read] would on the file's bytes, and also with
// [ErrFormat] when the file has more bytes than the one graph or changes
// size while it is read.
func Load(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graph: load: %w", err)
	}
	defer f.Close()
	g, err := loadFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func loadFile(f *os.File) (*Graph, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("graph: load: %w", err)
	}
	if !st.Mode().IsRegular() {
		// No size to go by (a pipe, a device): read it all, then decode.
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, fmt.Errorf("graph: read: %w", err)
		}
		return decode(data)
	}
	return loadFrom(f, st.Size(), loadChunk)
}

// loadFrom loads the graph file that r reads, size bytes long by its
// metadata, reading chunk bytes at a time. It checks what decode checks, in
// the same order, and that r holds exactly size bytes.
func loadFrom(r io.Reader, size int64, chunk int) (*Graph, error) {
	var h [headerSize]byte
	if k, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: %d bytes", errTruncated, k)
		}
		return nil, fmt.Errorf("graph: read: %w", err)
	}
	n, err := checkHeader(h[:])
	if err != nil {
		return nil, err
	}
	have := uint64(max(size-headerSize, 0))
	if have < n {
		return nil, fmt.Errorf("%w: %d of %d payload bytes", errTruncated, have, n)
	}
	if have > n {
		return nil, fmt.Errorf("%w: %d bytes after the payload", ErrFormat, have-n)
	}
	// The file is known to be this large, so the length can be trusted.
	buf := makeNoZero(headerSize + int(n))
	copy(buf, h[:])
	p := buf[headerSize:]

	found := make(chan layout, 1)
	done := make(chan readResult, 1)
	go func() { done <- readPayload(r, p, chunk, found) }()
	// Decode the nodes and edges as soon as they are in; the reader goes on
	// with the embeddings, which the decoder does not touch.
	var (
		nodes []Node
		edges []Edge
		deg   []int32
		derr  error
	)
	l, ok := <-found
	if ok {
		nodes, edges, deg, derr = decodeBody(p, l)
		if derr == nil {
			// The edge records are decoded into edges and never read
			// again; their pages need not stay resident while the
			// embeddings are still arriving.
			release(p[l.emb-edgeBytes(l) : l.emb])
		}
	}
	res := <-done
	if res.err != nil {
		return nil, res.err
	}
	if res.crc != binary.LittleEndian.Uint32(h[24:]) {
		return nil, fmt.Errorf("%w: payload", errChecksum)
	}
	if !ok { // the leading fields are bad: let decodePayload say how
		g, err := decodePayload(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return g, nil
	}
	if derr != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, derr)
	}
	if res.nanAt >= 0 {
		return nil, fmt.Errorf("%w: %v", ErrFormat, l.nanError(res.nanAt))
	}
	return l.graph(p, nodes, edges, deg), nil
}

// edgeBytes is the length of the edge records. They end at most 3 bytes of
// padding before the embeddings, so p[l.emb-edgeBytes(l):l.emb] lies
// inside them and the padding: it never holds a node's bytes.
func edgeBytes(l layout) int { return l.ne * edgeSize }

// readResult is what readPayload found.
type readResult struct {
	crc   uint32 // CRC-32C of the payload
	nanAt int    // index of the first NaN or Inf embedding value, or -1
	err   error  // a read error, or the file shrank or grew
}

// readPayload fills p from r, chunk bytes per read, and checksums each chunk
// right after reading it. As soon as the payload's leading fields parse it
// knows where the embeddings start: it checks them for NaN and Inf as they
// arrive too, and sends the layout on found once every byte before them is
// in p. It closes found when done; it writes p only past the bytes before
// the embeddings once it has sent the layout.
func readPayload(r io.Reader, p []byte, chunk int, found chan<- layout) readResult {
	defer close(found)
	var (
		crc     uint32
		avail   int // bytes of p read
		l       layout
		known   bool // l is parsed
		nanNext int  // next embedding byte to check
		nanAt   = -1
		sent    bool
		idle    int
	)
	for avail < len(p) {
		want := min(chunk, len(p)-avail)
		k, err := r.Read(p[avail : avail+want])
		if k < 0 || k > want { // p holds garbage until read: trust no more than asked
			return readResult{err: fmt.Errorf("graph: read: reader returned %d of %d bytes", k, want)}
		}
		if k > 0 {
			idle = 0
			next := avail + k
			crc = crc32.Update(crc, castagnoli, p[avail:next])
			if !known {
				if pl, perr := parseLayout(p[:next], len(p)); perr == nil {
					l, known, nanNext = pl, true, pl.emb
				}
			}
			if known && nanAt < 0 && next-nanNext >= 4 {
				end := nanNext + (next-nanNext)&^3
				if i := nonFinite(p[nanNext:end]); i >= 0 {
					nanAt = (nanNext-l.emb)/4 + i
				}
				nanNext = end
			}
			if known && !sent && next >= l.emb {
				found <- l
				sent = true
			}
			avail = next
		}
		switch {
		case err == io.EOF && avail < len(p):
			return readResult{err: fmt.Errorf("%w: %d of %d payload bytes (the file shrank while it was read)", errTruncated, avail, len(p))}
		case err != nil && err != io.EOF:
			return readResult{err: fmt.Errorf("graph: read: %w", err)}
		case k == 0:
			if idle++; idle > 100 {
				return readResult{err: fmt.Errorf("graph: read: %w", io.ErrNoProgress)}
			}
		}
	}
	// The file must end here.
	var one [1]byte
	for range 100 {
		k, err := r.Read(one[:])
		switch {
		case k > 0:
			return readResult{err: fmt.Errorf("%w: bytes after the payload (the file grew while it was read)", ErrFormat)}
		case err == io.EOF:
			return readResult{crc: crc, nanAt: nanAt}
		case err != nil:
			return readResult{err: fmt.Errorf("graph: read: %w", err)}
		}
	}
	return readResult{err: fmt.Errorf("graph: read: %w", io.ErrNoProgress)}
}

// makeNoZero returns a byte slice of length n whose contents are
// unspecified (not cleared): Load overwrites every byte with the file before
// looking at it, and never returns the buffer unless all of it was read;
// clearing it first would write every byte once more before the file does. A
// strings.Builder grows its buffer without clearing it, and after Grow(n)
// that buffer has room for n bytes.
func makeNoZero(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(sb.String()), n)
}
