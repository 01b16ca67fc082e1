package graph

// Modality is the kind of content a node holds. Equations are text. Both
// formulations of the paper use two modality classes, text and visual:
// a modality other than ModalityText (a table or a figure) is visual.
type Modality uint8

const (
	// ModalityText is a chunk of prose, a list, code or an equation.
	ModalityText Modality = iota
	// ModalityTable is a table (rendered to text, possibly with an image).
	ModalityTable
	// ModalityFigure is an image, chart or slide.
	ModalityFigure
)

// String returns "text", "table" or "figure".
func (m Modality) String() string {
	switch m {
	case ModalityText:
		return "text"
	case ModalityTable:
		return "table"
	case ModalityFigure:
		return "figure"
	}
	return "unknown"
}

// ImageRef locates a node's image inside the collection.
type ImageRef struct {
	// Path is slash-separated and relative to the collection root; it never
	// escapes it (ingest rejects such paths).
	Path string
	// MIME is image/png or image/jpeg.
	MIME string
}

// Node is one content node: a text chunk, table or figure.
type Node struct {
	// ID is stable across builds of the same input: document ID plus position.
	ID string
	// Doc is the document the node comes from.
	Doc string
	// Page is the 0-based page, or -1 when unknown.
	Page int
	// LastPage is the last 0-based page of a node that runs over several
	// pages; when it is not above Page, as in the zero value, or Page is
	// unknown, the node lies on Page alone. Citations name the range
	// ("pp. 3-4").
	LastPage int
	// Order is the node's reading-order position within its document.
	Order int
	// Modality is text, table or figure.
	Modality Modality
	// Section is the nearest heading above the node, if any.
	Section string
	// Content is the node's text (a table rendered to text for tables).
	Content string
	// Caption and Footnote are the caption and footnotes of visual nodes.
	Caption  string
	Footnote string
	// Summary, Keywords and Tags come from node analysis (model or offline).
	Summary  string
	Keywords []string
	Tags     []string
	// ImageText is text read inside the image (visual nodes).
	ImageText string
	// Image is the node's image, nil when it has none.
	Image *ImageRef
	// Context is surrounding text given to visual nodes (up to 1,000 words
	// before and after).
	Context string
}
