package eval

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// Near-duplicate augmentation: a dataset's collections as real ones are,
// with each document exported twice, versioned, mirrored or wrapped in a
// site's boilerplate. See Augment.

// The perturbation family of Augment: each item of a copy is made by one.
const (
	// KindExact copies the item's text unchanged.
	KindExact = "exact"
	// KindEdit makes light edits: each word of the body is, with
	// probability EditRate (at least one word per item), deleted,
	// repeated, swapped with the next word, or given a typo (two inner
	// letters transposed). Words with a digit are left as they are: a
	// version that states another figure says something new.
	KindEdit = "edit"
	// KindReorder shuffles the body's sentences (or, with one sentence, its
	// lines); a body with neither stays as it is.
	KindReorder = "reorder"
	// KindBoilerplate adds one boilerplate line (a site's footer, a
	// navigation line, a copyright notice; Boilerplate lists them) before
	// or after the text.
	KindBoilerplate = "boiler"
)

// Boilerplate is the line set KindBoilerplate draws from: what exported
// web pages, wikis and reports repeat on every page.
var Boilerplate = []string{
	"Copyright © 2024 The Authors. All rights reserved.",
	"Edit this page on GitHub",
	"Was this page helpful? Yes No",
	"Last updated: March 3, 2024",
	"Skip to main content",
	"This page was exported from the internal wiki.",
	"Download PDF | Print | Share",
	"Previous page Next page",
	"Table of contents",
	"Licensed under CC BY-SA 4.0 unless otherwise noted.",
	"Subscribe to our newsletter for updates.",
	"Report an issue with this page",
}

// ErrAugment is returned (wrapped) for an augmentation spec that does not
// parse.
var ErrAugment = errors.New("eval: bad augmentation")

// Augment adds near-duplicates to every document set of a dataset: for each
// document chosen (a share Rate of them), Copies copy documents, each
// item of which is the original item changed by one kind of the family,
// drawn with the weights of Mix. A copy keeps the document's title and
// every item's section, modality, page and position (so a copy of a gold
// item is at the same item index), and sits right before or right after
// its original (a fair coin), the originals keeping their order. Its ID is
// the original's with "~copy" (then "~copy2", …) appended.
//
// Everything is drawn from a PCG seeded by Seed and the document's ID, so
// a document has the same copies in every document set that holds it
// (FeTaQA's and PaperTab's distractors) and in every run.
//
// Gold units of the augmented questions list every copy of a gold item
// next to it, so reading any copy covers the unit; Question.CopyOf maps
// each copy to its original, so that document recall counts a copy's read
// as its original's, and Measure counts reads of near-duplicates
// (Metrics.Dups).
type Augment struct {
	// Name labels the variant: its datasets are named "<dataset>+<Name>"
	// ("" = "dup").
	Name string
	// Seed seeds every draw.
	Seed uint64
	// Copies is the number of copies of a chosen document (0 = 1).
	Copies int
	// Rate is the share of documents that get copies, in (0, 1] (0 = 1).
	Rate float64
	// Mix weighs the kinds, by name (KindExact, …); nil means DefaultMix.
	Mix map[string]float64
	// EditRate is KindEdit's per-word edit probability (0 = 0.06).
	EditRate float64
}

// DefaultMix is the default perturbation mix: a quarter exact copies (the
// same page exported twice), a third light edits (versions), a fifth
// re-ordered sentences and a fifth with a boilerplate line added.
var DefaultMix = map[string]float64{KindExact: 0.25, KindEdit: 0.35, KindReorder: 0.2, KindBoilerplate: 0.2}

var kinds = []string{KindExact, KindEdit, KindReorder, KindBoilerplate}

// ParseAugment reads a spec: comma-separated key=value pairs with keys
// name, seed, copies, rate, editrate and the kinds' names (exact, edit,
// reorder, boiler) for their weights; a spec that sets no weight uses
// DefaultMix. "" and "dup" are the defaults.
func ParseAugment(spec string) (Augment, error) {
	var a Augment
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "dup" {
		return a, nil
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return a, fmt.Errorf("%w: %q is not key=value", ErrAugment, kv)
		}
		num := func() (float64, error) {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || x != x {
				return 0, fmt.Errorf("%w: %s=%q is not a non-negative number", ErrAugment, k, v)
			}
			return x, nil
		}
		switch k {
		case "name":
			if v == "" || strings.ContainsAny(v, ",/") {
				return a, fmt.Errorf("%w: name %q", ErrAugment, v)
			}
			a.Name = v
		case "seed":
			s, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return a, fmt.Errorf("%w: seed %q", ErrAugment, v)
			}
			a.Seed = s
		case "copies":
			c, err := strconv.Atoi(v)
			if err != nil || c < 1 || c > 8 {
				return a, fmt.Errorf("%w: copies %q (want 1 to 8)", ErrAugment, v)
			}
			a.Copies = c
		case "rate":
			x, err := num()
			if err != nil {
				return a, err
			}
			if x == 0 || x > 1 {
				return a, fmt.Errorf("%w: rate %q not in (0, 1]", ErrAugment, v)
			}
			a.Rate = x
		case "editrate":
			x, err := num()
			if err != nil {
				return a, err
			}
			if x == 0 || x > 0.5 {
				return a, fmt.Errorf("%w: editrate %q not in (0, 0.5]", ErrAugment, v)
			}
			a.EditRate = x
		case KindExact, KindEdit, KindReorder, KindBoilerplate:
			x, err := num()
			if err != nil {
				return a, err
			}
			if a.Mix == nil {
				a.Mix = map[string]float64{}
			}
			a.Mix[k] = x
		default:
			return a, fmt.Errorf("%w: unknown key %q (name, seed, copies, rate, editrate, %s)", ErrAugment, k, strings.Join(kinds, ", "))
		}
	}
	if a.Mix != nil {
		var s float64
		for _, w := range a.Mix {
			s += w
		}
		if s == 0 {
			return a, fmt.Errorf("%w: the mix's weights sum to 0", ErrAugment)
		}
	}
	return a, nil
}

// String is the spec ParseAugment reads back (weights normalised).
func (a Augment) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name=%s,seed=%d,copies=%d,rate=%g,editrate=%g", a.name(), a.Seed, a.copies(), a.rate(), a.editRate())
	mix := a.mix()
	for _, k := range kinds {
		fmt.Fprintf(&b, ",%s=%.3g", k, mix[k])
	}
	return b.String()
}

func (a Augment) name() string {
	if a.Name == "" {
		return "dup"
	}
	return a.Name
}

func (a Augment) copies() int { return max(a.Copies, 1) }

func (a Augment) rate() float64 {
	if a.Rate <= 0 || a.Rate > 1 {
		return 1
	}
	return a.Rate
}

func (a Augment) editRate() float64 {
	if a.EditRate <= 0 {
		return 0.06
	}
	return a.EditRate
}

// mix returns the weights normalised to sum 1.
func (a Augment) mix() map[string]float64 {
	m := a.Mix
	if m == nil {
		m = DefaultMix
	}
	var s float64
	for _, k := range kinds {
		s += m[k]
	}
	out := map[string]float64{}
	for _, k := range kinds {
		out[k] = m[k] / s
	}
	return out
}

// Apply returns the augmented dataset: the same questions (and order) over
// document sets with the copies added, gold units extended to the copies,
// and the name "<ds.Name>+<Name>". ds is not modified.
func (a Augment) Apply(ds *Dataset) *Dataset {
	out := &Dataset{Name: ds.Name + "+" + a.name(), Overall: ds.Overall, Notes: append([]string(nil), ds.Notes...)}
	out.Notes = append(out.Notes, fmt.Sprintf("%s: near-duplicates added (%s)", out.Name, a))
	copies := map[string][]graph.Document{} // per original ID; nil: none
	sets := map[string][]graph.Document{}
	origin := map[string]map[string]string{}
	for _, q := range ds.Questions {
		q2 := q
		docs, ok := sets[q.DocSet]
		if !ok {
			docs = nil
			of := map[string]string{}
			for _, d := range q.Docs {
				cs, seen := copies[d.ID]
				if !seen {
					cs = a.copyDoc(d)
					copies[d.ID] = cs
				}
				for _, c := range cs {
					of[c.ID] = d.ID
				}
				if len(cs) == 0 {
					docs = append(docs, d)
					continue
				}
				// The original takes a random place among its copies.
				rng := a.rng(d.ID, 1)
				at := rng.IntN(len(cs) + 1)
				group := append(append(append([]graph.Document(nil), cs[:at]...), d), cs[at:]...)
				docs = append(docs, group...)
			}
			sets[q.DocSet] = docs
			origin[q.DocSet] = of
		}
		q2.Docs = docs
		q2.DocSet = q.DocSet + "\x00+" + a.name()
		q2.CopyOf = origin[q.DocSet]
		q2.Gold = make([][]Unit, len(q.Gold))
		for j, units := range q.Gold {
			us := make([]Unit, len(units))
			for k, u := range units {
				u2 := Unit{Label: u.Label}
				for _, it := range u.Items {
					u2.Items = append(u2.Items, it)
					for _, c := range copies[it.Doc] {
						u2.Items = append(u2.Items, ItemRef{Doc: c.ID, Item: it.Item})
					}
				}
				us[k] = u2
			}
			q2.Gold[j] = us
		}
		out.Questions = append(out.Questions, q2)
	}
	return out
}

// rng is the PCG of one document and purpose.
func (a Augment) rng(doc string, purpose uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(doc))
	return rand.New(rand.NewPCG(a.Seed^h.Sum64(), purpose))
}

// copyDoc returns d's copies (none when d is not drawn).
func (a Augment) copyDoc(d graph.Document) []graph.Document {
	rng := a.rng(d.ID, 0)
	if rng.Float64() >= a.rate() {
		return nil
	}
	mix := a.mix()
	out := make([]graph.Document, a.copies())
	for c := range out {
		cd := d
		cd.ID = d.ID + "~copy"
		if c > 0 {
			cd.ID += strconv.Itoa(c + 1)
		}
		cd.Items = make([]graph.Item, len(d.Items))
		for i, it := range d.Items {
			it.Text = a.perturb(rng, pickKind(rng, mix), it.Text)
			if it.Caption != "" && it.Caption == d.Items[i].Text {
				it.Caption = it.Text
			}
			cd.Items[i] = it
		}
		out[c] = cd
	}
	return out
}

func pickKind(rng *rand.Rand, mix map[string]float64) string {
	x := rng.Float64()
	for _, k := range kinds {
		if x < mix[k] {
			return k
		}
		x -= mix[k]
	}
	return KindExact
}

// perturb applies kind to text. A text of several lines keeps its first
// line (a title or a table's header) in place under edits and re-ordering:
// the body changes, as in a new version of a page.
func (a Augment) perturb(rng *rand.Rand, kind, text string) string {
	switch kind {
	case KindEdit:
		head, body := splitHead(text)
		return head + editWords(rng, body, a.editRate())
	case KindReorder:
		head, body := splitHead(text)
		return head + reorder(rng, body)
	case KindBoilerplate:
		line := Boilerplate[rng.IntN(len(Boilerplate))]
		if rng.IntN(2) == 0 {
			return line + "\n" + text
		}
		return text + "\n" + line
	}
	return text
}

// splitHead splits off the first line (with its newline) of a text of
// several lines; a one-line text is all body.
func splitHead(text string) (head, body string) {
	if i := strings.IndexByte(text, '\n'); i >= 0 && i < len(text)-1 {
		return text[:i+1], text[i+1:]
	}
	return "", text
}

// editWords edits each word with probability p, at least one word of a
// text that has one. White space is kept as it is.
func editWords(rng *rand.Rand, text string, p float64) string {
	type span struct{ a, b int }
	var words []span
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		words = append(words, span{i, j})
		i = j
	}
	if len(words) == 0 {
		return text
	}
	// Words with a digit are left alone: a version that states another
	// figure says something new, it is not a copy.
	var editable []int
	for i, w := range words {
		if !strings.ContainsFunc(text[w.a:w.b], unicode.IsDigit) {
			editable = append(editable, i)
		}
	}
	if len(editable) == 0 {
		return text
	}
	edit := make([]bool, len(words))
	any := false
	for _, i := range editable {
		edit[i] = rng.Float64() < p
		any = any || edit[i]
	}
	if !any {
		edit[editable[rng.IntN(len(editable))]] = true
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	last := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		b.WriteString(text[last:w.a])
		last = w.b
		word := text[w.a:w.b]
		if !edit[i] {
			b.WriteString(word)
			continue
		}
		switch rng.IntN(4) {
		case 0: // delete
		case 1: // repeat
			b.WriteString(word + " " + word)
		case 2: // swap with the next word (a word without a digit)
			if i+1 < len(words) && !strings.ContainsFunc(text[words[i+1].a:words[i+1].b], unicode.IsDigit) {
				n := words[i+1]
				b.WriteString(text[n.a:n.b])
				b.WriteString(text[w.b:n.a])
				b.WriteString(word)
				last = n.b
				i++
			} else {
				b.WriteString(typo(rng, word))
			}
		case 3: // typo: two inner letters transposed
			b.WriteString(typo(rng, word))
		}
	}
	b.WriteString(text[last:])
	return b.String()
}

func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	if len(r) < 4 {
		return w + w[len(w)-1:]
	}
	i := 1 + rng.IntN(len(r)-3)
	r[i], r[i+1] = r[i+1], r[i]
	return string(r)
}

// reorder shuffles text's sentences, or its lines when it has one
// sentence; the result differs from text whenever it can.
func reorder(rng *rand.Rand, text string) string {
	parts, sep := sentences(text), " "
	if len(parts) < 2 {
		parts, sep = strings.Split(text, "\n"), "\n"
	}
	if len(parts) < 2 {
		return text
	}
	perm := rng.Perm(len(parts))
	same := true
	for i, p := range perm {
		same = same && i == p
	}
	if same {
		perm[0], perm[1] = perm[1], perm[0]
	}
	out := make([]string, len(parts))
	for i, p := range perm {
		out[i] = parts[p]
	}
	return strings.Join(out, sep)
}

// sentences splits text after '.', '!' or '?' followed by white space,
// trimming each sentence.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text)-1; i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (text[i+1] == ' ' || text[i+1] == '\n') {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
