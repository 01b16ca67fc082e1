package llmutil

import "sync"

// MemoryStore is an unbounded in-memory llm.Store, for the evaluation lab
// (one process per run) and tests; a library user brings a store bounded
// as their application needs.
type MemoryStore struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: make(map[string][]byte)} }

// Get returns a copy of the value under key.
func (s *MemoryStore) Get(key string) ([]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	return append([]byte(nil), v...), ok
}

// Put stores a copy of value under key.
func (s *MemoryStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
	return nil
}
