package flow

// paperAspects is flowreader.PaperAspects().Router (paper v3 §3 and
// App. A exactly); package flow's own tests use the same values here.
func paperAspects() *Aspects {
	return &Aspects{
		NodeCredit:       true,
		DemandRatio:      true,
		TerminationShare: 0.634,
		PoolEveryArc:     true,
		SplitChains:      true,
		KeepCopies:       true,
	}
}
