package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
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
	g.ImageRoot = resolveRoot(path, g.ImageRoot)
	return g, nil
}

func loadFile(f *os.File) (*Graph, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("graph: load: %w", err)
	}
	if !st.Mode().IsRegular() {
		// No size to go by (a pipe, a device such as /dev/zero): check the
		// header first, then grow the buffer as bytes arrive.
		return readOne(f)
	}
	// A file whose bytes are all on disk (not a sparse file announcing
	// gigabytes it does not hold) is as large as it says: allocate for it up
	// front whatever its size, since growing the buffer as bytes arrive
	// holds up to twice the payload (a 1M × 768 graph is 3.7 GB).
	eager := int64(loadEager)
	if onDisk(st) >= st.Size() {
		eager = max(eager, st.Size())
	}
	return loadFromEager(f, st.Size(), loadChunk, eager)
}

// loadEager is the largest payload Load allocates for up front, trusting
// the file's size; a larger one (a forged header in a sparse file
// announcing gigabytes) is read as [Read] does, its buffer growing only as
// bytes arrive.
const loadEager = 1 << 30

// readOne is Read that also requires r to end after the graph.
func readOne(r io.Reader) (*Graph, error) {
	g, err := Read(r)
	if err != nil {
		return nil, err
	}
	var one [1]byte
	if k, _ := io.ReadFull(r, one[:]); k > 0 {
		return nil, fmt.Errorf("%w: bytes after the payload", ErrFormat)
	}
	return g, nil
}

// loadFrom loads the graph file that r reads, size bytes long by its
// metadata, reading chunk bytes at a time. It checks what decode checks, in
// the same order, and that r holds exactly size bytes.
func loadFrom(r io.Reader, size int64, chunk int) (*Graph, error) {
	return loadFromEager(r, size, chunk, loadEager)
}

// loadFromEager is loadFrom allocating up front for a payload of at most
// eager bytes.
func loadFromEager(r io.Reader, size int64, chunk int, eager int64) (*Graph, error) {
	var h [headerSize]byte
	if k, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: %d bytes", errTruncated, k)
		}
		return nil, fmt.Errorf("graph: read: %w", err)
	}
	n, flags, err := checkHeader(h[:])
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
	if n > uint64(eager) {
		return readOne(io.MultiReader(bytes.NewReader(h[:]), r))
	}
	// A payload that starts with the image root: read that first, so that
	// the rest streams as any payload does.
	var root string
	var crc0 uint32
	if flags&flagImageRoot != 0 {
		pre, err := readImageRoot(r, n)
		if err != nil {
			return nil, err
		}
		if root, _, err = splitImageRoot(pre, true); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		crc0 = crc32.Update(0, castagnoli, pre)
		n -= uint64(len(pre))
	}
	// The file is known to be this large, so the length can be trusted.
	buf := makeNoZero(headerSize + int(n))
	copy(buf, h[:])
	p := buf[headerSize:]

	found := make(chan layout, 1)
	done := make(chan readResult, 1)
	go func() { done <- readPayload(r, p, chunk, found, crc0, flags) }()
	// Decode the nodes and edges as soon as they are in; the reader goes on
	// with the embeddings, which the decoder does not touch.
	var (
		nodes []Node
		edges []Edge
		deg   []int32
		tr    trailer
		derr  error
	)
	l, ok := <-found
	if ok {
		l.flags = flags
		var edgeRecs []byte
		nodes, edges, deg, tr, edgeRecs, derr = decodeRecords(p, l)
		if derr == nil {
			// The edge records are decoded into edges and never read
			// again (node strings and the build record alias other parts
			// of p); their pages need not stay resident while the
			// embeddings are still arriving.
			release(edgeRecs)
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
		g, err := decodePayload(p, flags)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		if err := validate(g); err != nil {
			return nil, err
		}
		g.ImageRoot = root
		return g, nil
	}
	if derr != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, derr)
	}
	if res.nanAt >= 0 {
		return nil, fmt.Errorf("%w: %v", ErrFormat, l.nanError(res.nanAt))
	}
	// The same checks as validate, its row half done while reading.
	g := l.graph(p, nodes, edges, deg, tr)
	if err := validateShape(g); err != nil {
		return nil, err
	}
	if res.badRow >= 0 {
		return nil, rowError(res.badRow, g.Embedding(res.badRow))
	}
	g.ImageRoot = root
	return g, nil
}

// readResult is what readPayload found.
type readResult struct {
	crc    uint32 // CRC-32C of the payload
	nanAt  int    // index of the first NaN or Inf embedding value, or -1
	badRow int    // the first embedding row failing unitRow, or -1
	err    error  // a read error, or the file shrank or grew
}

// readPayload fills p from r, chunk bytes per read, and checksums each chunk
// right after reading it. As soon as the payload's leading fields parse it
// knows where the embeddings start: it checks them for NaN and Inf as they
// arrive too, and sends the layout on found once every byte before them is
// in p. It closes found when done; it writes p only past the bytes before
// the embeddings once it has sent the layout.
func readPayload(r io.Reader, p []byte, chunk int, found chan<- layout, crc uint32, flags uint32) readResult {
	defer close(found)
	var (
		avail   int // bytes of p read
		l       layout
		known   bool // l is parsed
		nanNext int  // next embedding byte to check
		nanAt   = -1
		rowNext int // the next embedding row to check
		badRow  = -1
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
				if pl, perr := parseLayout(p[:next], len(p), flags); perr == nil {
					l, known, nanNext, rowNext = pl, true, pl.emb, 0
				}
			}
			if known && nanAt < 0 && min(next, l.floatEnd())-nanNext >= 4 {
				end := nanNext + (min(next, l.floatEnd())-nanNext)&^3
				if i := nonFinite(p[nanNext:end]); i >= 0 {
					nanAt = (nanNext-l.emb)/4 + i
				}
				nanNext = end
			}
			// Check each embedding row for unit length as soon as all of
			// it is in, while it is still in the cache.
			for rw := l.rowBytes(); known && badRow < 0 && rw > 0 && rowNext < l.nn && l.rowsAt()+(rowNext+1)*rw <= next; rowNext++ {
				if !l.unitRowAt(p, rowNext) {
					badRow = rowNext
				}
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
			return readResult{crc: crc, nanAt: nanAt, badRow: badRow}
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

// floats returns the little-endian float32s in b, aliasing b when the
// machine's layout and b's alignment allow.
func floats(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
