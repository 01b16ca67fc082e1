package ingest

import (
	"strings"
	"unicode/utf8"
)

// Chunking defaults of G2-Reader (LangChain RecursiveCharacterTextSplitter,
// METHOD §0).
const (
	DefaultChunkSize    = 3000
	DefaultChunkOverlap = 300
)

// DefaultSeparators are tried in order: paragraph, line, CJK sentence ends,
// Latin sentence ends, space, and finally single characters ("").
var DefaultSeparators = []string{"\n\n", "\n", "。", "！", "？", ". ", "! ", "? ", " ", ""}

// Options configures Chunk. The zero value means G2-Reader's settings.
type Options struct {
	// Size is the largest chunk in characters (runes); 0 means 3000.
	Size int
	// Overlap is how many characters consecutive chunks may share; 0 means
	// 300, a negative value means none. It is capped at Size/2.
	Overlap int
	// Separators are tried in order; nil means DefaultSeparators. The empty
	// separator splits into single characters; it is always tried last.
	Separators []string
}

func (o Options) norm() Options {
	if o.Size <= 0 {
		o.Size = DefaultChunkSize
	}
	switch {
	case o.Overlap == 0:
		o.Overlap = DefaultChunkOverlap
	case o.Overlap < 0:
		o.Overlap = 0
	}
	if o.Overlap > o.Size/2 {
		o.Overlap = o.Size / 2
	}
	if o.Separators == nil {
		o.Separators = DefaultSeparators
	}
	if len(o.Separators) == 0 || o.Separators[len(o.Separators)-1] != "" {
		o.Separators = append(append([]string(nil), o.Separators...), "")
	}
	return o
}

// Chunk splits text the way LangChain's RecursiveCharacterTextSplitter does:
// it splits on the first separator present in the text, merges consecutive
// pieces into chunks of at most Size characters that overlap by up to
// Overlap characters, and splits a piece that is still too long with the
// next separator. One difference: a separator stays at the end of the piece
// before it (LangChain keeps it at the start of the next), so that a chunk
// ends with its sentence's period. Every chunk is a substring of text,
// trimmed of surrounding white space; empty chunks are dropped.
func Chunk(text string, o Options) []string {
	spans := chunkSpans(text, o)
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s[0]:s[1]]
	}
	return out
}

// chunkSpans returns the byte bounds of Chunk's chunks within text.
func chunkSpans(text string, o Options) [][2]int {
	o = o.norm()
	var out [][2]int
	splitRec(text, 0, o.Separators, o, &out)
	return out
}

// splitRec appends the chunks of text (which starts at byte base of the
// whole input) to out.
func splitRec(text string, base int, seps []string, o Options, out *[][2]int) {
	sep, rest := "", []string(nil)
	for i, s := range seps {
		if s == "" || strings.Contains(text, s) {
			sep, rest = s, seps[i+1:]
			break
		}
	}
	pieces := splitKeep(text, sep)
	var good [][2]int
	for _, p := range pieces {
		if runes(text[p[0]:p[1]]) < o.Size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			merge(text, base, good, o, out)
			good = good[:0]
		}
		if len(rest) == 0 {
			emit(text, base, p, out)
		} else {
			splitRec(text[p[0]:p[1]], base+p[0], rest, o, out)
		}
	}
	if len(good) > 0 {
		merge(text, base, good, o, out)
	}
}

// splitKeep splits text after each occurrence of sep (the separator stays
// with the piece before it); "" splits into runes.
func splitKeep(text, sep string) [][2]int {
	var out [][2]int
	if sep == "" {
		for i := 0; i < len(text); {
			_, w := utf8.DecodeRuneInString(text[i:])
			out = append(out, [2]int{i, i + w})
			i += w
		}
		return out
	}
	start := 0
	for {
		j := strings.Index(text[start:], sep)
		if j < 0 {
			break
		}
		end := start + j + len(sep)
		out = append(out, [2]int{start, end})
		start = end
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// merge packs consecutive pieces (contiguous spans of text) into chunks of
// at most o.Size runes, each new chunk starting with up to o.Overlap runes
// of the previous one's tail pieces.
func merge(text string, base int, pieces [][2]int, o Options, out *[][2]int) {
	lens := make([]int, len(pieces))
	for i, p := range pieces {
		lens[i] = runes(text[p[0]:p[1]])
	}
	first, total := 0, 0 // current chunk is pieces[first:i]
	for i := range pieces {
		if total+lens[i] > o.Size && i > first {
			emit(text, base, [2]int{pieces[first][0], pieces[i-1][1]}, out)
			for first < i && (total > o.Overlap || total+lens[i] > o.Size) {
				total -= lens[first]
				first++
			}
		}
		total += lens[i]
	}
	if first < len(pieces) {
		emit(text, base, [2]int{pieces[first][0], pieces[len(pieces)-1][1]}, out)
	}
}

// emit appends span p of text, trimmed, unless it is blank or inside the
// previous chunk.
func emit(text string, base int, p [2]int, out *[][2]int) {
	a, b := p[0], p[1]
	s := text[a:b]
	t := strings.TrimSpace(s)
	if t == "" {
		return
	}
	a += strings.Index(s, t)
	b = a + len(t)
	sp := [2]int{base + a, base + b}
	if k := len(*out); k > 0 {
		prev := (*out)[k-1]
		if sp[0] >= prev[0] && sp[1] <= prev[1] {
			return // nothing new (white space trimmed away the difference)
		}
		if sp[0] <= prev[0] {
			(*out)[k-1] = sp // the new chunk covers the previous one
			return
		}
	}
	*out = append(*out, sp)
}

func runes(s string) int { return utf8.RuneCountInString(s) }
