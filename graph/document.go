package graph

import "strconv"

// Document is one ingested document, ready for the Builder: its items are
// the future nodes, in reading order, already chunked.
type Document struct {
	// ID is unique within a collection and stable (for example the file's
	// path relative to the collection root).
	ID string
	// Title is a human-readable name.
	Title string
	// Root is the folder that image paths are relative to ("" when the
	// document has no images). Items' image paths never escape it.
	Root string
	// Items are the document's content units in reading order.
	Items []Item
	// Metadata holds key/values given at ingest (for example a file's
	// front matter): what per-call filters select documents by. It does
	// not change the document's nodes.
	Metadata map[string]string
}

// Item is one content unit of a document: a text chunk, a table or a figure.
type Item struct {
	Modality Modality
	// Text is the chunk's text, or a table rendered to text.
	Text     string
	Caption  string
	Footnote string
	// Section is the nearest heading above the item.
	Section string
	// Page is the 0-based page, or -1 when unknown.
	Page int
	// LastPage is the last 0-based page of an item that runs over several
	// pages (a paragraph continued on the next page); when it is not above
	// Page, as in the zero value, or Page is unknown, the item lies on
	// Page alone.
	LastPage int
	// Image is the item's image, relative to the document's Root.
	Image *ImageRef
	// Context is surrounding text for visual items (filled by ingest).
	Context string
}

// itemNode is the node that item i of d becomes before analysis: ID
// "docID#i", reading order i, and the item's fields, so that a node's ID
// and Order always point back at its item.
func (d *Document) itemNode(i int) Node {
	it := &d.Items[i]
	return Node{
		ID:       d.ID + "#" + strconv.Itoa(i),
		Doc:      d.ID,
		Page:     it.Page,
		LastPage: it.LastPage,
		Order:    i,
		Modality: it.Modality,
		Section:  it.Section,
		Content:  it.Text,
		Caption:  it.Caption,
		Footnote: it.Footnote,
		Image:    it.Image,
		Context:  it.Context,
	}
}
