package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A MinerU download without its images warns once per image: the report
// keeps every warning (up to its bound) and folds them into one summary
// line; missing images lose no content, a content list not read does.
func TestWarningSummary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "paper")
	os.Mkdir(dir, 0o755)
	var items []map[string]any
	for i := range 70 {
		items = append(items, map[string]any{"type": "image", "img_path": fmt.Sprintf("images/%02d.jpg", i), "image_caption": []string{fmt.Sprintf("Figure %d", i+1)}})
	}
	data, _ := json.Marshal(items)
	os.WriteFile(filepath.Join(dir, "paper_content_list.json"), data, 0o644)
	_, rep, err := Config{}.Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	if len(f.Warnings) != maxWarnings+1 || !strings.HasPrefix(f.Warnings[maxWarnings], "and 20 more") {
		t.Errorf("%d warnings, last %q", len(f.Warnings), f.Warnings[len(f.Warnings)-1])
	}
	want := []string{`item 0 (image): image "images/00.jpg" is missing: kept without it (and 69 more like it)`}
	if !slices.Equal(f.Summary, want) || len(f.Lost) != 0 {
		t.Errorf("summary %q lost %q", f.Summary, f.Lost)
	}

	// A second content list in the folder is not read: content lost.
	os.WriteFile(filepath.Join(dir, "other_content_list.json"), []byte(`[{"type":"text","text":"Other."}]`), 0o644)
	_, rep, _ = Config{}.Read(context.Background(), dir)
	f = rep.Files[0]
	if len(f.Lost) != 1 || !strings.Contains(f.Lost[0], "also holds paper_content_list.json: not read") || len(f.Summary) != 1 {
		t.Errorf("lost %q summary %q", f.Lost, f.Summary)
	}
}
