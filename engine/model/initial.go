package model

import (
	"fmt"

	"go.starlark.net/starlark"
)

// initial(state): init() gives its initial states one by one instead of
// returning them (docs/model-language.md, "several initial states"). Each
// is encoded when given and only its key kept: MCBakery's Init lists
// 655,200 states, whose dicts held at once take over a gigabyte.

// localInit is the thread-local initSink while init() runs.
const localInit = "modex.init"

// initSink collects the states init() gives by initial(): their keys, in
// the order given, each once.
type initSink struct {
	m     *StarModel
	r     rec
	keys  []string
	seen  map[string]struct{}
	calls int
	// all: keep every key, repeated or not (a chunk of a parallel loop,
	// whose keys the loop's sink takes in order; parinit.go)
	all bool
	// returned counts the elements of a list init() returns that were
	// taken one by one as it was made (streamedReturn); streamed: the
	// list was, and the keys are its states'
	returned int
	streamed bool
}

// newInitSink returns a sink for m's init().
func newInitSink(m *StarModel) *initSink {
	return &initSink{m: m}
}

// reset forgets what was given (init() runs again from the start).
func (s *initSink) reset() {
	s.keys, s.seen, s.calls, s.returned, s.streamed = nil, nil, 0, 0, false
}

// add takes one state given by initial(): the first names the variables
// while the model loads (the others must have the same).
func (s *initSink) add(v starlark.Value) error {
	s.calls++
	what := initWhat{call: true, n: s.calls}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("%v: a state is a dict of the state variables, not %s", what, v.Type())
	}
	m := s.m
	if len(m.info.Vars) == 0 {
		if err := m.setVars(d); err != nil {
			return err
		}
	}
	if s.r.cur == nil {
		s.r = rec{m: m, cur: make([]starlark.Value, len(m.info.Vars)), touched: make([]bool, len(m.info.Vars))}
	}
	key, err := m.encodeInit(&s.r, d, what)
	if err != nil {
		return err
	}
	return s.addKey(key)
}

// addKey keeps a state's key unless given before.
func (s *initSink) addKey(key string) error {
	if s.all {
		if len(s.keys) >= MaxInitialStates {
			return fmt.Errorf("more than %d initial states", MaxInitialStates)
		}
		s.keys = append(s.keys, key)
		return nil
	}
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	if _, dup := s.seen[key]; dup {
		return nil
	}
	if len(s.keys) >= MaxInitialStates {
		return fmt.Errorf("%v: more than %d initial states", initWhat{call: true, n: s.calls}, MaxInitialStates)
	}
	s.seen[key] = struct{}{}
	s.keys = append(s.keys, key)
	return nil
}

// builtinInitial is initial(state), for init() only.
func builtinInitial(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var state starlark.Value
	if err := starlark.UnpackPositionalArgs("initial", args, kwargs, 1, &state); err != nil {
		return nil, err
	}
	sink, _ := t.Local(localInit).(*initSink)
	if sink == nil {
		return nil, fmt.Errorf("initial(state) gives an initial state: only init() may call it")
	}
	if err := sink.add(state); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// addReturned takes the next element of the list init() returns, as the
// list is made: the states are the ones the list would give (encodeInits),
// but no more than one of them is alive at a time.
func (s *initSink) addReturned(v starlark.Value) error {
	s.returned++
	if s.returned > MaxInitialStates {
		return fmt.Errorf("more than %d initial states", MaxInitialStates)
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("init()[%d] is a %s", s.returned-1, v.Type())
	}
	m := s.m
	if len(m.info.Vars) == 0 {
		if err := m.setVars(d); err != nil {
			return err
		}
	}
	if s.r.cur == nil {
		s.r = rec{m: m, cur: make([]starlark.Value, len(m.info.Vars)), touched: make([]bool, len(m.info.Vars))}
	}
	key, err := m.encodeInit(&s.r, d, initWhat{n: s.returned - 1})
	if err != nil {
		return err
	}
	return s.addKey(key)
}

// result returns the keys init() gave by initial(), given what init()
// returned, and whether it called initial() at all.
func (s *initSink) result(v starlark.Value) ([]string, bool, error) {
	if s.streamed {
		s.seen = nil
		return s.keys, true, nil
	}
	if s.calls == 0 {
		return nil, false, nil
	}
	if v != starlark.None {
		return nil, true, &PosError{Pos: fnPos(s.m.init), Msg: fmt.Sprintf("init() gave states by initial() and returned %s: give them one way (return None)", v.Type())}
	}
	s.seen = nil // done: the keys are kept, not the set
	return s.keys, true, nil
}

// initWhat names one of init()'s states in errors: init() (n < 0),
// init()[n] of a returned list, or init()'s nth initial() call. It is
// formatted only when an error names it (half a million states are
// encoded without one).
type initWhat struct {
	call bool
	n    int
}

func (w initWhat) String() string {
	switch {
	case w.call:
		return fmt.Sprintf("init(): initial() call %d", w.n)
	case w.n >= 0:
		return fmt.Sprintf("init()[%d]", w.n)
	}
	return "init()"
}
