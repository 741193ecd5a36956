package fpset

import "math"

// Collision is TLC's "calculated (optimistic)" estimate of the probability
// that two of the distinct states found have the same fingerprint, so that
// one was taken for the other and not explored: n·(m−n)/2⁶⁴ for n distinct
// states among m generated (every successor computed, duplicates
// included, and the initial states). Each of the m−n duplicates could have
// been a new state whose fingerprint equals one of the n; for m near n²
// it is about n²/2⁶⁴, the chance that some two of n random 64-bit values
// are equal (n²/2⁶⁵) within a factor of two.
func Collision(distinct, generated int64) float64 {
	n := float64(distinct)
	return n * (math.Max(float64(generated)-n, 0) / math.Pow(2, 64))
}

// CollisionFromGap is TLC's estimate "based on the actual fingerprints":
// 1/d, d the least distance between two of the set's fingerprints in
// increasing order (Summary.MinGap; 0 for none gives 0). Random values
// that keep apart by d make a collision about as likely as 1/d.
func CollisionFromGap(minGap uint64) float64 {
	if minGap == 0 {
		return 0
	}
	return 1 / float64(minGap)
}
