//go:build !amd64 || purego

package score

const jointSweepFast = false

// jointSweep is one joint sweep (jointSweepGo).
func jointSweep(a *adjacency, st [][4]float64, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64) {
	return jointSweepGo(st, a.up, a.uoff, nc, alpha, d, dangling)
}
