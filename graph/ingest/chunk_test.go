package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkShortText(t *testing.T) {
	got := chunk("  Hello world.  ", chunking{})
	if len(got) != 1 || got[0] != "Hello world." {
		t.Fatalf("Chunk = %q", got)
	}
	if got := chunk(" \n\n ", chunking{}); len(got) != 0 {
		t.Fatalf("blank text gave %q", got)
	}
}

func TestChunkParagraphsFirst(t *testing.T) {
	p1 := strings.Repeat("alpha beta. ", 20) // 240 runes
	p2 := strings.Repeat("gamma delta. ", 20)
	text := p1 + "\n\n" + p2
	got := chunk(text, chunking{size: 300, overlap: -1})
	if len(got) != 2 {
		t.Fatalf("got %d chunks: %q", len(got), got)
	}
	if got[0] != strings.TrimSpace(p1) || got[1] != strings.TrimSpace(p2) {
		t.Fatalf("chunks not split on the paragraph: %q", got)
	}
}

func TestChunkProperties(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		b.WriteString("Sentence number ")
		b.WriteString(strings.Repeat("x", i%17))
		b.WriteString(" ends here. ")
		if i%7 == 0 {
			b.WriteString("\n")
		}
		if i%23 == 0 {
			b.WriteString("\n\n")
		}
	}
	text := b.String()
	for _, o := range []chunking{{}, {size: 500, overlap: 50}, {size: 120, overlap: -1}, {size: 40, overlap: 10}} {
		checkChunks(t, text, o)
	}
}

// checkChunks asserts the chunker's contract: chunks are in-order substrings
// of at most size runes that together cover every non-space character.
func checkChunks(t *testing.T, text string, o chunking) {
	t.Helper()
	n := o.norm()
	spans := chunkSpans(text, o)
	covered := 0 // bytes of text covered so far
	prevStart := -1
	for _, s := range spans {
		c := text[s[0]:s[1]]
		if utf8.RuneCountInString(c) > n.size {
			t.Fatalf("%+v: chunk of %d runes > %d", o, utf8.RuneCountInString(c), n.size)
		}
		if s[0] <= prevStart {
			t.Fatalf("%+v: chunks out of order", o)
		}
		if strings.TrimSpace(text[covered:max(covered, s[0])]) != "" {
			t.Fatalf("%+v: text %q dropped between chunks", o, text[covered:s[0]])
		}
		prevStart = s[0]
		covered = max(covered, s[1])
	}
	if strings.TrimSpace(text[covered:]) != "" {
		t.Fatalf("%+v: tail dropped", o)
	}
}

func TestChunkOverlap(t *testing.T) {
	text := strings.Repeat("word ", 2000)
	got := chunk(text, chunking{size: 100, overlap: 30})
	if len(got) < 2 {
		t.Fatal("expected several chunks")
	}
	tail := got[0][len(got[0])-20:]
	if !strings.HasPrefix(got[1], strings.TrimSpace(tail)[:4]) && !strings.Contains(got[1], strings.TrimSpace(tail)) {
		t.Fatalf("no overlap between %q and %q", got[0], got[1])
	}
}

func FuzzChunk(f *testing.F) {
	f.Add("Hello. World!\n\nNext paragraph here.", 10, 3)
	f.Add("日本語。テキスト！", 2, 1)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		if size > 5000 || size < -5 || overlap > 5000 || overlap < -5 {
			return
		}
		checkChunks(t, text, chunking{size: size, overlap: overlap})
	})
}
