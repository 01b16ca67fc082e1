package score

// The paper presets are flowreader.PaperAspects and flowreader.Classic;
// package score's own tests use the same Scoring values here.

// paperAspects is flowreader.PaperAspects().Scoring: paper v3 §3.1.
func paperAspects() Config { return Config{BM25Weight: -1, RawCosine: true, HopAlpha: -1} }

// classicConfig is flowreader.Classic().Scoring: paper v1 §3.3–3.4.
func classicConfig() Config {
	return Config{
		RefBoost:        -1,
		Fusion:          true,
		RelevanceWeight: 0.5, PropagationWeight: 0.3, DiffusionWeight: 0.2,
		MinEdgeWeight: 0.22,
		Sources:       8,
		Sinks:         8,
		HopAlpha:      -1,
	}
}
