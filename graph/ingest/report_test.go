package ingest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/flowreader/flowreader/graph"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const mixed = "testdata/mixed"

// renderReport renders a report with paths relative to root, one file a
// line and its warnings or reason below, as the golden file holds it.
func renderReport(root string, rep Report) string {
	var b strings.Builder
	for _, f := range rep.Files {
		rel := f.Path
		if r, err := filepath.Rel(root, f.Path); err == nil {
			rel = filepath.ToSlash(r)
		}
		fmt.Fprintf(&b, "%s\tformat=%q doc=%q items=%d\n", rel, f.Format, f.Doc, f.Items)
		if f.Err != nil {
			fmt.Fprintf(&b, "\tskipped: %v\n", f.Err)
		}
		lost := map[string]bool{}
		for _, w := range f.Lost {
			lost[w] = true
		}
		for _, w := range f.Warnings {
			kind := "warning"
			if lost[w] {
				kind = "lost"
			}
			fmt.Fprintf(&b, "\t%s: %s\n", kind, w)
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// docText joins a document's items for content checks.
func docText(d graph.Document) string {
	var b strings.Builder
	for _, it := range d.Items {
		fmt.Fprintf(&b, "[%s] %s | %s", it.Modality, it.Text, it.Caption)
		if it.Image != nil {
			fmt.Fprintf(&b, " | image %s", it.Image.Path)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func byID(docs []graph.Document) map[string]graph.Document {
	m := map[string]graph.Document{}
	for _, d := range docs {
		m[d.ID] = d
	}
	return m
}

// A folder mixing good and bad files: every file is in the report, the
// bad ones skipped with their reason and the folder read nonetheless.
func TestReportMixedFolder(t *testing.T) {
	docs, rep, err := Config{}.Read(context.Background(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "mixed.report.golden", renderReport(mixed, rep))
	m := byID(docs)
	for id, want := range map[string][]string{
		"latin1.txt":     {"Café notes", "naïve count – 42 nests – was revised in the “second” survey"},
		"utf16.txt":      {"Peak gust 31 m/s on 14 March"},
		"bom.txt":        {"[text] Tide table\n\nHigh water"},
		"broken.md":      {"Ring ÄB-12 was read twice; the \uFFFD second time badly."},
		"site/intro.mdx": {"Terns arrive in May.", "import x from 'y' // code stays", "lost to the May storm"},
		"guide.md":       {"[figure]  | Map of the north ridge | image site/ridge-map.png", "[figure]  | Nest photo\n"},
		"paper":          {"[figure]  | Figure 1: the flooded sections\n", "East Arm lost its tern colony"},
		"paper-v2": {"[text] Breakwater counts\n\nThe North Mole held $n=212$ nests.", "[figure]  | Figure 2: nests per year | image images/flow_chart.png",
			"[table] Mole | 212 | Table 1: counts\n", "North Mole\nEast Arm"},
	} {
		d, ok := m[id]
		if !ok {
			t.Errorf("no document %s", id)
			continue
		}
		text := docText(d)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in\n%s", id, w, text)
			}
		}
	}
	if text := docText(m["site/intro.mdx"]); strings.Contains(text, "Callout }") || strings.Contains(text, "export const") {
		t.Errorf("MDX import/export lines kept:\n%s", text)
	}
	if text := docText(m["paper-v2"]); strings.Contains(text, "Harbour report 2025") {
		t.Errorf("v2 page header kept as content:\n%s", text)
	}
	if m["paper-v2"].Items[0].Page != 0 || m["paper-v2"].Items[len(m["paper-v2"].Items)-1].Page != 1 {
		t.Errorf("v2 pages: %+v", m["paper-v2"].Items)
	}
	for _, f := range rep.Files {
		switch filepath.Base(f.Path) {
		case "binary.txt", "report.docx":
			if !errors.Is(f.Err, ErrUnsupported) {
				t.Errorf("%s: %v, want ErrUnsupported", f.Path, f.Err)
			}
		case "empty.md":
			if !errors.Is(f.Err, ErrEmpty) {
				t.Errorf("%s: %v, want ErrEmpty", f.Path, f.Err)
			}
		case "ridge-map.png", "flow_chart.png":
			t.Errorf("an image a document uses is listed: %+v", f)
		}
	}
}

// The same folder through fs.FS gives the same documents and report: as
// os.DirFS (which reports symbolic links) and as an in-memory MapFS.
func TestFSMatchesRead(t *testing.T) {
	ctx := context.Background()
	want, wantRep, err := Config{}.Read(ctx, mixed)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(docs []graph.Document) []graph.Document {
		out := make([]graph.Document, len(docs))
		for i, d := range docs {
			d.Root = ""
			out[i] = d
		}
		return out
	}
	mapFS := fstest.MapFS{}
	err = filepath.WalkDir(mixed, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(mixed, p)
		mapFS[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, fsys := range map[string]fs.FS{"DirFS": os.DirFS(mixed), "MapFS": mapFS} {
		got, rep, err := Config{}.FS(ctx, fsys, ".")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(strip(got), strip(want)) {
			t.Errorf("%s: documents differ from Read's", name)
		}
		if g, w := renderReport(".", rep), renderReport(mixed, wantRep); g != w {
			t.Errorf("%s: report\n%s\nwant\n%s", name, g, w)
		}
	}
	// A sub-folder as root; a single file as root.
	docs, _, err := Config{}.FS(ctx, os.DirFS(mixed), "paper-v2")
	if err != nil || len(docs) != 1 || docs[0].ID != "paper-v2" || docs[0].Root != "paper-v2" {
		t.Fatalf("MinerU folder as root: %+v, %v", docs, err)
	}
	docs, _, err = Config{}.FS(ctx, mapFS, "utf16.txt")
	if err != nil || len(docs) != 1 || docs[0].ID != "utf16.txt" {
		t.Fatalf("file as root: %+v, %v", docs, err)
	}
}

// os.DirFS follows symbolic links; FS follows them only inside the file
// system, so a link to /proc/self/environ or out of the folder is refused.
func TestFSRefusesEscapingLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	base := t.TempDir()
	root := filepath.Join(base, "col")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(base, "secret.md"), []byte("# S\n\nSECRET-77 outside\n"), 0o644)
	os.WriteFile(filepath.Join(root, "ok.md"), []byte("# Ok\n\nInside.\n"), 0o644)
	for name, target := range map[string]string{
		"env.txt":      "/proc/self/environ",
		"up.md":        "../secret.md",
		"sub/abs.md":   filepath.Join(base, "secret.md"),
		"sub/inner.md": "../ok.md",
		"loop.md":      "loop.md",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip(err)
		}
	}
	docs, rep, err := Config{}.FS(context.Background(), os.DirFS(root), ".")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
		if strings.Contains(docText(d), "SECRET-77") {
			t.Errorf("%s holds the outside file", d.ID)
		}
	}
	if strings.Join(ids, " ") != "ok.md sub/inner.md" {
		t.Errorf("documents %v", ids)
	}
	for _, f := range rep.Files {
		if f.Doc == "" && !errors.Is(f.Err, ErrPathEscape) {
			t.Errorf("%s: %v, want ErrPathEscape", f.Path, f.Err)
		}
	}
}

// A cancelled context stops the walk with its error.
func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := (Config{}).Read(ctx, mixed); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read: %v, want context.Canceled", err)
	}
	if _, _, err := (Config{}).FS(ctx, os.DirFS(mixed), "."); !errors.Is(err, context.Canceled) {
		t.Fatalf("FS: %v, want context.Canceled", err)
	}
}

// Markdown nested deeper than maxMarkdownNesting is read as plain text:
// "- " × 20,000 took goldmark 22–29 s and 1.8 GB (quadratic); now the work
// is linear. The bound is on allocation, not time.
func TestMarkdownDeepNesting(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "deep.md")
	src := strings.Repeat("- ", 20000) + "x\n"
	os.WriteFile(p, []byte(src), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	docs, rep, err := Config{}.Read(context.Background(), p)
	runtime.ReadMemStats(&after)
	if err != nil || len(docs) != 1 || len(rep.Files[0].Warnings) != 1 || !strings.Contains(rep.Files[0].Warnings[0], "plain text") {
		t.Fatalf("%d documents, report %+v, %v", len(docs), rep, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200*uint64(len(src)) {
		t.Errorf("%d bytes allocated for %d bytes of Markdown", alloc, len(src))
	}
	// Nesting within the bound is still Markdown, its indentation capped.
	d, _ := readReported(t, Config{}, writeFile(t, dir, "ok.md", strings.Repeat("- ", 40)+"x\n"))
	if len(d.Items) != 1 || strings.Count(d.Items[0].Text, "\n") != 39 || len(d.Items[0].Text) > 40*(2*maxListIndent+3)+1 {
		t.Errorf("nested list rendered as %q", d.Items[0].Text)
	}
}

func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Files above MaxFileSize are skipped without being read whole.
func TestMaxFileSize(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "big.txt", strings.Repeat("word ", 400))
	writeFile(t, dir, "small.txt", "word\n")
	docs, rep, err := Config{MaxFileSize: 1000}.Read(context.Background(), dir)
	if err != nil || len(docs) != 1 || docs[0].ID != "small.txt" || !errors.Is(rep.Files[0].Err, ErrTooLarge) {
		t.Fatalf("%+v %+v %v", docs, rep, err)
	}
}

func TestDecodeText(t *testing.T) {
	utf16be := append([]byte{0xFE, 0xFF}, 0, 'h', 0, 'i', 0xD8, 0x3D, 0xDE, 0x00)
	for _, c := range []struct {
		in         []byte
		want, note string
		err        error
	}{
		{in: []byte("plain"), want: "plain"},
		{in: []byte("\xef\xbb\xbfbom"), want: "bom"},
		{in: []byte{0xFF, 0xFE, 'h', 0, 'i', 0}, want: "hi"},
		{in: utf16be, want: "hi😀"},
		{in: []byte{0xFF, 0xFE, 'h', 0, 0x00, 0xD8}, want: "h\uFFFD", note: "decoded from UTF-16LE (1 invalid code units replaced by U+FFFD)"},
		{in: []byte{0xFF, 0xFE, 'h', 0, 'i'}, want: "h\uFFFD", note: "decoded from UTF-16LE (1 invalid code units replaced by U+FFFD)"},
		{in: []byte("h\x00e\x00l\x00l\x00o\x00 \x00w\x00"), want: "hello w", note: "decoded from UTF-16LE without a byte order mark"},
		{in: []byte("caf\xe9 \x93q\x94"), want: "café “q”", note: "not UTF-8: decoded as Windows-1252 (Latin-1)"},
		{in: []byte("é ok \xff"), want: "é ok \uFFFD", note: "invalid UTF-8: 1 bytes replaced by U+FFFD"},
		{in: []byte("bin\x00ary"), err: ErrUnsupported},
		{in: bytes.Repeat([]byte{1, 2, 3, 'a'}, 10), err: ErrUnsupported},
		{in: []byte(" \n\t"), err: ErrEmpty},
		{in: []byte{0xEF, 0xBB, 0xBF}, err: ErrEmpty},
	} {
		got, note, err := decodeText(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || note != c.note {
			t.Errorf("%q: %q, %q, %v; want %q, %q", c.in, got, note, err, c.want, c.note)
		}
	}
}

// FuzzDecodeText: any bytes decode to valid UTF-8 without zero bytes, or
// are refused with ErrEmpty or ErrUnsupported; the output grows at most
// linearly.
func FuzzDecodeText(f *testing.F) {
	for _, s := range []string{"plain", "\xef\xbb\xbfbom", "\xff\xfeh\x00i\x00", "\xfe\xff\x00h\xd8\x3d", "caf\xe9", "bin\x00", "h\x00e\x00l\x00l\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := decodeText(data)
		if err != nil {
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("%q: %v", data, err)
			}
			return
		}
		if !utf8ValidString(s) || strings.ContainsRune(s, 0) || len(s) > 3*len(data)+3 {
			t.Fatalf("%q gave %q", data, s)
		}
	})
}

// FuzzMinerUV2 feeds arbitrary v2 blocks to the content-list parser.
func FuzzMinerUV2(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join(mixed, "paper-v2", "paper-v2_content_list_v2.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`[[{"type":"x","content":{"a_content":[{"content":1}],"b_content":"s"}},{"type":"list","content":{"list_items":"no"}}]]`))
	r := testReading(f, filepath.Join(mixed, "paper-v2"))
	c := Config{ChunkSize: 200, ChunkOverlap: 20, ContextWords: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		r.log = warnings{}
		doc, err := c.parseMinerU(r, data)
		if err != nil {
			return
		}
		for _, it := range doc.Items {
			if !utf8ValidString(it.Text) || it.Image != nil && !filepath.IsLocal(filepath.FromSlash(it.Image.Path)) {
				t.Fatalf("bad item %+v", it)
			}
		}
	})
}

func utf8ValidString(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// One unreadable PDF is skipped with its reason; the folder is read.
func TestUnreadablePDFSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "bad.pdf", "%PDF-1.4 garbage")
	writeFile(t, dir, "good.md", "# Good\n\nRead.\n")
	docs, rep, err := Config{}.Read(context.Background(), dir)
	if err != nil || len(docs) != 1 || docs[0].ID != "good.md" {
		t.Fatalf("%+v, %v", docs, err)
	}
	if f := rep.Files[0]; !strings.HasPrefix(f.Format, "pdf") || !errors.Is(f.Err, ErrFormat) {
		t.Fatalf("bad.pdf: %+v", f)
	}
}
