// Package textutil holds the small text helpers shared by ingest and the
// graph builder: sentence splitting and word tokenisation.
//
// Sentences end at '.', '!' or '?' (or the CJK '。！？') followed by white
// space or the end of the text; a period after a single capital letter, a
// digit followed by a digit ("3.14") or a common abbreviation ("e.g.",
// "Fig.") does not end a sentence. Words are maximal runs of letters, digits
// and inner apostrophes, hyphens or periods between digits.
package textutil
