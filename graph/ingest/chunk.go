package ingest

import (
	"strings"
	"unicode/utf8"
)

// G2-Reader's chunking: LangChain's RecursiveCharacterTextSplitter with
// chunks of 3,000 characters overlapping by 300.
const (
	defaultChunkSize    = 3000
	defaultChunkOverlap = 300
)

// separators are tried in order: paragraph, line, CJK sentence ends, Latin
// sentence ends, space, and finally single characters ("").
var separators = []string{"\n\n", "\n", "。", "！", "？", ". ", "! ", "? ", " ", ""}

// chunking configures chunk; the zero value means G2-Reader's settings.
type chunking struct {
	// size is the largest chunk in characters (runes); 0 means 3000.
	size int
	// overlap is how many characters consecutive chunks may share; 0 means
	// 300, a negative value means none. It is capped at size/2.
	overlap int
}

func (o chunking) norm() chunking {
	if o.size <= 0 {
		o.size = defaultChunkSize
	}
	switch {
	case o.overlap == 0:
		o.overlap = defaultChunkOverlap
	case o.overlap < 0:
		o.overlap = 0
	}
	if o.overlap > o.size/2 {
		o.overlap = o.size / 2
	}
	return o
}

// chunk splits text the way LangChain's RecursiveCharacterTextSplitter does:
// it splits on the first separator present in the text, merges consecutive
// pieces into chunks of at most size characters that overlap by up to
// overlap characters, and splits a piece that is still too long with the
// next separator. One difference: a separator stays at the end of the piece
// before it (LangChain keeps it at the start of the next), so that a chunk
// ends with its sentence's period. Every chunk is a substring of text,
// trimmed of surrounding white space; empty chunks are dropped.
func chunk(text string, o chunking) []string {
	spans := chunkSpans(text, o)
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s[0]:s[1]]
	}
	return out
}

// chunkSpans returns the byte bounds of chunk's chunks within text.
func chunkSpans(text string, o chunking) [][2]int {
	o = o.norm()
	var out [][2]int
	splitRec(text, 0, separators, o, &out)
	return out
}

// splitRec appends the chunks of text (which starts at byte base of the
// whole input) to out.
func splitRec(text string, base int, seps []string, o chunking, out *[][2]int) {
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
		if runes(text[p[0]:p[1]]) < o.size {
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
// at most o.size runes, each new chunk starting with up to o.overlap runes
// of the previous one's tail pieces.
func merge(text string, base int, pieces [][2]int, o chunking, out *[][2]int) {
	lens := make([]int, len(pieces))
	for i, p := range pieces {
		lens[i] = runes(text[p[0]:p[1]])
	}
	first, total := 0, 0 // current chunk is pieces[first:i]
	for i := range pieces {
		if total+lens[i] > o.size && i > first {
			emit(text, base, [2]int{pieces[first][0], pieces[i-1][1]}, out)
			for first < i && (total > o.overlap || total+lens[i] > o.size) {
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
