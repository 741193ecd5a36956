package explore

// SetLevelChunk sets how many states of a level are expanded before a
// merge, for tests; it returns a function that restores the default.
func SetLevelChunk(n int) (restore func()) {
	old := levelChunk
	levelChunk = n
	return func() { levelChunk = old }
}

// DroppedTail is the number of counted transitions an exploration that
// dropped its transitions still holds for finding duplicates.
func DroppedTail(x *Exploration) int { return len(x.dropped.tail) }
