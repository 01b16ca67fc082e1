package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"
)

// The file format; the package doc describes it.
const (
	// formatVersion is the version of the file format Write produces.
	formatVersion = 1
	magic         = "FLWGRAPH"
	headerSize    = 32
	edgeSize      = 13
	// maxDim bounds the embedding dimension a file may declare.
	maxDim = 1 << 16
	// flagRecord, in the header's flags, says that a build record follows
	// the edges. Files without it (graphs made by New, and every file
	// written before the record existed) read as before.
	flagRecord = 1
	// flagImageRoot marks a payload that starts with the graph's image
	// root (a length-prefixed string padded to four bytes); files without
	// an image root keep the flag clear, as every earlier file has it.
	flagImageRoot = 2
	// flagInt8 marks a graph of int8 embeddings (Builder.Int8Embeddings):
	// the payload ends with one float32 scale per node, then the nodes'
	// int8 rows, instead of float32 rows.
	flagInt8 = 4
	// flagPageRanges marks a file where some node runs over several pages
	// (Node.LastPage above Page): every node's page is then followed by
	// its span LastPage−Page (a uvarint, 0 for one page). Files without a
	// spanning node keep the flag clear and read as before.
	flagPageRanges = 8
	// flagMetadata says that the documents' metadata (Graph.Metadata)
	// follows the edges and build record. A graph without metadata keeps
	// it clear, so its file reads in versions from before metadata; a
	// version that does not know the flag refuses a file that has it
	// ("unknown flags") rather than drop the metadata.
	flagMetadata = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// littleEndian reports whether the machine stores float32 little-endian, in
// which case embeddings are copied (written) or aliased (read) as raw bytes.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Write writes g to w in the versioned binary format. The output depends
// only on g: equal graphs give equal bytes. A graph that [Read] would refuse
// (see the package doc's limits) fails with [ErrFormat] before anything is
// written.
func Write(w io.Writer, g *Graph) error {
	if err := validate(g); err != nil {
		return fmt.Errorf("graph: write: %w", err)
	}
	return write(w, g, g.ImageRoot)
}

// write is Write without the checks, with the image root to record.
func write(w io.Writer, g *Graph, root string) error {
	// The payload is the image root (when set), the body, and the
	// embeddings sent from the graph's storage: only the body is encoded
	// into a buffer.
	var pre []byte
	if root != "" {
		pre = appendString(make([]byte, 0, len(root)+16), root)
		for len(pre)%4 != 0 { // keep the embeddings 4-byte aligned
			pre = append(pre, 0)
		}
	}
	parts := append([][]byte{pre, encodeBody(g)}, embeddingBytes(g)...)
	size, crc := 0, uint32(0)
	for _, p := range parts {
		size += len(p)
		crc = crc32.Update(crc, castagnoli, p)
	}
	var h [headerSize]byte
	copy(h[0:8], magic)
	binary.LittleEndian.PutUint32(h[8:], formatVersion)
	var flags uint32
	if g.build != nil {
		flags |= flagRecord
	}
	if g.int8 {
		flags |= flagInt8
	}
	if pageRanges(g) {
		flags |= flagPageRanges
	}
	if root != "" {
		flags |= flagImageRoot
	}
	if hasMetadata(g) {
		flags |= flagMetadata
	}
	if flags != 0 {
		binary.LittleEndian.PutUint32(h[12:], flags)
	}
	binary.LittleEndian.PutUint64(h[16:], uint64(size))
	binary.LittleEndian.PutUint32(h[24:], crc)
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	if _, err := w.Write(h[:]); err != nil {
		return fmt.Errorf("graph: write: %w", err)
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return fmt.Errorf("graph: write: %w", err)
		}
	}
	return nil
}

// Save writes g to path atomically: to a temporary file in the same folder,
// synced, then renamed over path. A failure leaves any old file intact; a
// graph that [Write] refuses creates no file at all. The file is created
// with mode 0666 less the umask, as other tools' files are. g.ImageRoot is
// recorded relative to path's folder, so that a graph moved together with
// its images still finds them ([Load] resolves it back).
func Save(path string, g *Graph) (err error) {
	if err := validate(g); err != nil {
		return fmt.Errorf("graph: save: %w", err)
	}
	dir := filepath.Dir(path)
	// The temporary name holds the process ID, so that a later run can
	// tell a file left by a process that died from one being written.
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return fmt.Errorf("graph: save: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f, g, relativeRoot(dir, g.ImageRoot)); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("graph: save: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("graph: save: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("graph: save: %w", err)
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return nil
}

// Read reads a graph written by Write from r. It reads exactly one graph
// and never allocates much more than the bytes actually present.
func Read(r io.Reader) (*Graph, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: header", errTruncated)
		}
		return nil, fmt.Errorf("graph: read: %w", err)
	}
	n, _, err := checkHeader(h[:])
	if err != nil {
		return nil, err
	}
	// Grow the buffer as bytes arrive rather than trusting n up front.
	const step = 16 << 20
	buf := make([]byte, headerSize, headerSize+min(n, step))
	copy(buf, h[:])
	for uint64(len(buf)-headerSize) < n {
		k := min(n-uint64(len(buf)-headerSize), step)
		if cap(buf)-len(buf) < int(k) {
			nb := make([]byte, len(buf), len(buf)+max(int(k), len(buf)))
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(r, buf[len(buf):len(buf)+int(k)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: %d of %d payload bytes", errTruncated, len(buf)-headerSize, n)
			}
			return nil, fmt.Errorf("graph: read: %w", err)
		}
	}
	return decode(buf)
}

// checkHeader validates the header and returns the payload length and the
// flags.
func checkHeader(h []byte) (uint64, uint32, error) {
	if string(h[0:8]) != magic {
		return 0, 0, fmt.Errorf("%w: not a graph file (bad magic)", ErrFormat)
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != formatVersion {
		return 0, 0, fmt.Errorf("%w: version %d, this build reads %d", errVersion, v, formatVersion)
	}
	if crc32.Checksum(h[:28], castagnoli) != binary.LittleEndian.Uint32(h[28:]) {
		return 0, 0, fmt.Errorf("%w: header", errChecksum)
	}
	flags := binary.LittleEndian.Uint32(h[12:])
	if flags&^(flagRecord|flagImageRoot|flagInt8|flagPageRanges|flagMetadata) != 0 {
		return 0, 0, fmt.Errorf("%w: unknown flags", ErrFormat)
	}
	n := binary.LittleEndian.Uint64(h[16:])
	if n > math.MaxInt-headerSize {
		return 0, 0, fmt.Errorf("%w: payload length %d", ErrFormat, n)
	}
	return n, flags, nil
}

// decode parses a whole file held in data.
func decode(data []byte) (*Graph, error) {
	if len(data) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes", errTruncated, len(data))
	}
	n, flags, err := checkHeader(data[:headerSize])
	if err != nil {
		return nil, err
	}
	p := data[headerSize:]
	if uint64(len(p)) < n {
		return nil, fmt.Errorf("%w: %d of %d payload bytes", errTruncated, len(p), n)
	}
	if uint64(len(p)) > n {
		return nil, fmt.Errorf("%w: %d bytes after the payload", ErrFormat, uint64(len(p))-n)
	}
	// The checksum runs alongside decoding: the decoder is safe on any
	// bytes, and its result is discarded unless the checksum matches.
	sum := make(chan uint32, 1)
	go func() { sum <- crc32.Checksum(p, castagnoli) }()
	root, body, err := splitImageRoot(p, flags&flagImageRoot != 0)
	var g *Graph
	if err == nil {
		g, err = decodePayload(body, flags)
	}
	if <-sum != binary.LittleEndian.Uint32(data[24:]) {
		return nil, fmt.Errorf("%w: payload", errChecksum)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if err := validate(g); err != nil {
		return nil, err
	}
	g.ImageRoot = root
	return g, nil
}
