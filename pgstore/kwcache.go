package pgstore

import "sync"

// kwCacheMax bounds the keyword frequencies a replica holds per
// collection (about 60 bytes each): past it, the frequencies not held are
// read per question.
const kwCacheMax = 1 << 19

// kwCache holds, per collection, the node frequencies of the normalised
// keywords that questions have read (what the router reads of the whole
// collection), at one version: a question reads from the database only
// the keywords of its candidates that are not held. The frequencies are
// of one version only, the newest a question has seen; a question of
// another version neither reads nor fills them, so no answer mixes
// versions.
type kwCache struct {
	mu sync.Mutex
	m  map[string]*kwSet // collection name → its frequencies
}

type kwSet struct {
	id      int32
	version int64
	df      map[string]int32
}

// lookup fills df with the held frequencies at (id, version) of the
// keywords in kws (lists that may repeat one) and returns the keywords not
// held, each once, in their first occurrence's order.
func (c *kwCache) lookup(name string, id int32, version int64, kws [][]string, df map[string]int32) (missing []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m[name]
	if s != nil && (s.id != id || s.version != version) {
		s = nil
	}
	// A keyword is looked up once: df holds those found, miss the others.
	var miss map[string]bool
	for _, ks := range kws {
		for _, k := range ks {
			if _, ok := df[k]; ok || miss[k] {
				continue
			}
			if s != nil {
				if d, ok := s.df[k]; ok {
					df[k] = d
					continue
				}
			}
			if miss == nil {
				miss = map[string]bool{}
			}
			miss[k] = true
			missing = append(missing, k)
		}
	}
	return missing
}

// add holds the frequencies read at (id, version): they replace those of
// an older version (or another collection of the name), and are dropped
// when the held ones are of a newer version.
func (c *kwCache) add(name string, id int32, version int64, df map[string]int32, kws []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*kwSet{}
	}
	s := c.m[name]
	if s == nil || s.id != id || s.version < version {
		s = &kwSet{id: id, version: version, df: map[string]int32{}}
		c.m[name] = s
	}
	if s.version != version {
		return
	}
	for _, k := range kws {
		if len(s.df) >= kwCacheMax {
			return
		}
		if d, ok := df[k]; ok {
			s.df[k] = d
		}
	}
}
