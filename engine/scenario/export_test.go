package scenario

// SetPositionsOnly turns the minimal automaton off (on with false).
func SetPositionsOnly(on bool) { positionsOnly = on }
