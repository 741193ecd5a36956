package model

import (
	"fmt"
	"runtime"
	"sync"

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
	seen  *keySet
	calls int
	// all: keep every key, repeated or not (a chunk of a parallel loop,
	// whose keys the loop's sink takes in order; parinit.go)
	all bool
	// returned counts the elements of a list init() returns that were
	// taken one by one as it was made (streamedReturn); streamed: the
	// list was, and the keys are its states'
	returned int
	streamed bool
	// counted: the bytes of this sink's keys added to the model's
	// initLived; pending: those not added yet (count)
	counted, pending int64
	// scratch: where its keys are encoded
	scratch keyScratch
}

// newInitSink returns a sink for m's init().
func newInitSink(m *StarModel) *initSink {
	return &initSink{m: m}
}

// reset forgets what was given (init() runs again from the start).
func (s *initSink) reset() {
	s.uncount()
	s.keys, s.seen, s.calls, s.returned, s.streamed = nil, nil, 0, 0, false
}

// countBatch is how many bytes of keys a sink gathers before it adds them
// to the model's initLived.
const countBatch = 64 << 10

// count counts a kept key in model.LongLived: half a million keys that stay
// until the exploration has stored them are no garbage, and the GC policy
// keeps no headroom in proportion to them (Bakery: 93 collections
// without, 57 with).
func (s *initSink) count(key string) {
	s.pending += keyCost(key)
	if s.pending >= countBatch {
		s.flush()
	}
}

// keyCost is what a key counts: its string header and its bytes.
func keyCost(key string) int64 { return int64(len(key)) + 16 }

// flush adds the pending bytes to the model's initLived.
func (s *initSink) flush() {
	s.m.initLived.add(s.pending)
	s.counted += s.pending
	s.pending = 0
}

// uncount takes back what the sink counted: its keys are dropped.
func (s *initSink) uncount() {
	s.m.initLived.add(-s.counted)
	s.counted, s.pending = 0, 0
}

// forget takes back the count of an adopted key that is not kept.
func (s *initSink) forget(key string) {
	n := keyCost(key)
	s.m.initLived.add(-n)
	s.counted -= n
}

// adopt takes over a chunk's counts, whose keys the sink now holds.
func (s *initSink) adopt(ch *initSink) {
	ch.flush()
	s.counted += ch.counted
	ch.counted = 0
}

// add takes one state given by initial().
func (s *initSink) add(v starlark.Value) error {
	s.calls++
	what := initWhat{call: true, n: s.calls}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("%v: a state is a dict of the state variables, not %s", what, v.Type())
	}
	return s.encode(d, s.calls == 1, what)
}

// encode keeps the key of state d; the first state given names the
// variables while the model loads (the others must have the same).
func (s *initSink) encode(d *starlark.Dict, first bool, what initWhat) error {
	m := s.m
	if first && len(m.info.Vars) == 0 {
		if err := m.setVars(d); err != nil {
			return err
		}
	}
	key, err := m.encodeInit(s.record(), d, what, &s.scratch)
	if err != nil {
		return err
	}
	return s.addKey(key)
}

// addKey keeps a state's key unless given before.
func (s *initSink) addKey(key string) error {
	kept, err := s.keep(key)
	if kept {
		s.count(key)
	}
	return err
}

// keep keeps a key unless given before, without counting it.
func (s *initSink) keep(key string) (bool, error) {
	if s.all {
		if len(s.keys) >= MaxInitialStates {
			return false, fmt.Errorf("more than %d initial states", MaxInitialStates)
		}
		s.keys = append(s.keys, key)
		return true, nil
	}
	if s.seen == nil {
		s.seen = newKeySet(0)
	}
	s.keys = append(s.keys, key)
	if !s.seen.add(s.keys, len(s.keys)-1) {
		s.keys = s.keys[:len(s.keys)-1]
		return false, nil
	}
	if len(s.keys) > MaxInitialStates {
		return true, fmt.Errorf("%v: more than %d initial states", initWhat{call: true, n: s.calls}, MaxInitialStates)
	}
	return true, nil
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
	return s.encode(d, s.returned == 1, initWhat{n: s.returned - 1})
}

// result returns the keys init() gave by initial(), given what init()
// returned, and whether it called initial() at all.
func (s *initSink) result(v starlark.Value) (keys []string, given bool, err error) {
	defer func() {
		if err != nil {
			s.uncount()
		}
	}()
	s.flush()
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

// ReleaseInitKeys lets go of the initial states' keys (see InitReleaser):
// Bakery's 655,200 are 39 MB that an exploration has stored in its own
// tables.
func (w *starWorker) ReleaseInitKeys() {
	m := w.m
	m.initMu.Lock()
	defer m.initMu.Unlock()
	if m.initKeys != nil {
		m.initKeys, m.initAgain = nil, true
		m.initLived.release()
	}
}

// TakeInitKeys implements InitTaker: the keys, which the model lets go.
// Their count in LongLived goes with them: the caller clears them batch by
// batch as it stores them, and the GC policy then sees them shrink as live
// data (counted long-lived until the end, they raised Bakery's peak by
// 25 MB: the limit kept its floor of headroom on top of them and of the
// tables that hold them again).
func (w *starWorker) TakeInitKeys() ([]string, error) {
	keys, err := w.initKeys()
	if err != nil {
		return nil, err
	}
	w.ReleaseInitKeys()
	return keys, nil
}

// initAgainCompiled runs init() compiled again for keys let go of: the
// keys, or ok false when the interpreter must run it.
func (w *starWorker) initAgainCompiled() (keys []string, v starlark.Value, ok bool) {
	m := w.m
	t := newThread("init")
	t.SetMaxExecutionSteps(InitBudget)
	t.SetLocal(localRec, &rec{m: m})
	sink := newInitSink(m)
	t.SetLocal(localInit, sink)
	// A compiler of its own: the model's keeps no function compiled with
	// appends (compile).
	cf := m.initFunc(newCompiler(m, m.cc.sources))
	if v, ok = m.runCompiledInit(cf, t, &w.halt); !ok {
		sink.uncount()
		return nil, nil, false
	}
	keys, given, err := sink.result(v)
	if err != nil {
		return nil, nil, false
	}
	if !given {
		return nil, v, true
	}
	return keys, nil, true
}

// initKeys returns the keys of the initial states, made from init()'s value
// at load the first time.
func (w *starWorker) initKeys() ([]string, error) {
	m := w.m
	m.initMu.Lock()
	defer m.initMu.Unlock()
	if m.initKeys != nil {
		return m.initKeys, nil
	}
	v := m.initVal
	if v == nil && m.initAgain {
		keys, val, ok := w.initAgainCompiled()
		if ok && val == nil {
			m.initKeys, m.initAgain = keys, false
			return keys, nil
		}
		if v = val; v != nil { // a returned list to encode (nil: the interpreter runs init())
			v.Freeze() // encoded by several goroutines
		}
	}
	if v == nil {
		// init() may list many states (a TLA+ Init of half a million): its
		// budget is a hundred steps', and at least InitBudget.
		budget := w.budget
		w.budget = max(budget*initBudgetFactor, InitBudget)
		var err error
		sink := newInitSink(m)
		w.thread.SetLocal(localInit, sink)
		v, err = w.call(m.init, nil)
		w.thread.SetLocal(localInit, nil)
		w.budget = budget
		if err != nil {
			sink.uncount()
			return nil, convertErr(err, fnPos(m.init), "init()")
		}
		if keys, given, err := sink.result(v); given {
			m.initKeys = keys
			return keys, err
		}
		v.Freeze() // encoded by several goroutines
	}
	keys, err := w.encodeInits(v)
	if err != nil {
		return nil, err
	}
	m.initKeys, m.initVal = keys, nil
	return keys, nil
}

// encodeInits checks init()'s value and returns its distinct states' keys.
func (w *starWorker) encodeInits(v starlark.Value) ([]string, error) {
	var dicts []starlark.Value
	switch x := v.(type) {
	case *starlark.Dict:
		dicts = []starlark.Value{x}
	case *starlark.List, starlark.Tuple:
		seq := x.(starlark.Indexable)
		if seq.Len() == 0 {
			return nil, &PosError{Pos: fnPos(w.m.init), Msg: "init() returned no initial state (an empty list)"}
		}
		if seq.Len() > MaxInitialStates {
			return nil, &PosError{Pos: fnPos(w.m.init), Msg: fmt.Sprintf("init() returned %d initial states, more than %d", seq.Len(), MaxInitialStates)}
		}
		for i := 0; i < seq.Len(); i++ {
			dicts = append(dicts, seq.Index(i))
		}
	default:
		return nil, &PosError{Pos: fnPos(w.m.init), Msg: "init() must return a dict of the state variables, or a list of such dicts (several initial states), not " + v.Type()}
	}
	keys := make([]string, len(dicts))
	errs := make([]error, len(dicts))
	several := len(dicts) > 1 || v.Type() != "dict"
	// Encoded in parallel (half a million initial states take a second
	// on one core), in order of the list.
	parts := 1
	if len(dicts) >= 4096 {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			r := rec{m: w.m, cur: make([]starlark.Value, len(w.m.info.Vars)), touched: make([]bool, len(w.m.info.Vars))}
			var ks keyScratch
			for i := lo; i < hi; i++ {
				what := initWhat{n: -1}
				if several {
					what.n = i
				}
				if keys[i], errs[i] = w.m.encodeInit(&r, dicts[i], what, &ks); errs[i] != nil {
					return
				}
			}
		}(p*len(dicts)/parts, (p+1)*len(dicts)/parts)
	}
	wg.Wait()
	out := keys[:0] // the distinct keys, in order, in place
	seen := newKeySet(len(keys))
	for i, k := range keys {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if out = append(out, k); !seen.add(out, len(out)-1) {
			out = out[:len(out)-1]
		}
	}
	return out, nil
}

// encodeInit checks one of init()'s states and returns its key; r is the
// caller's record, reused.
func (m *StarModel) encodeInit(r *rec, dv starlark.Value, what initWhat, ks *keyScratch) (string, error) {
	d, ok := dv.(*starlark.Dict)
	if !ok {
		return "", &PosError{Pos: fnPos(m.init), Msg: what.String() + " must be a dict of the state variables, not " + dv.Type()}
	}
	clear(r.cur)
	clear(r.touched)
	for k, v := range d.Entries() {
		name, _ := starlark.AsString(k)
		i, ok := m.varIndex[name]
		if !ok {
			return "", &PosError{Pos: fnPos(m.init), Msg: fmt.Sprintf("%s returned a different set of variables (%s)", what, k)}
		}
		r.cur[i] = v
		r.touched[i] = true
	}
	for i, t := range r.touched {
		if !t {
			return "", &PosError{Pos: fnPos(m.init), Msg: fmt.Sprintf("%s lacks the variable %s", what, m.info.Vars[i])}
		}
	}
	return m.encodeRec(r, what, ks)
}

// keyScratch is where initial states' keys are encoded, one after the
// other, before each is copied to its string: a key encoded from nothing
// grew its buffer and its ends several times over.
type keyScratch struct {
	buf  []byte
	ends []int
}

// encodeRec encodes r, whose every variable is set, as initial state what.
func (m *StarModel) encodeRec(r *rec, what initWhat, ks *keyScratch) (string, error) {
	buf, ends, err := r.encode(ks.buf[:0], ks.ends)
	if err != nil {
		return "", &PosError{Pos: fnPos(m.init), Msg: what.String() + ": " + err.Error()}
	}
	ks.buf, ks.ends = buf, ends
	return string(buf), nil
}

// record returns the sink's record, sized for the model's variables.
func (s *initSink) record() *rec {
	if n := len(s.m.info.Vars); s.r.cur == nil || len(s.r.cur) != n {
		s.r = rec{m: s.m, cur: make([]starlark.Value, n), touched: make([]bool, n)}
	}
	return &s.r
}

// addValues is add for a state given as the values of the variables
// slots (each variable once; see initialDict).
func (s *initSink) addValues(slots []int, vals []starlark.Value) error {
	s.calls++
	r := s.record()
	for j, i := range slots {
		r.cur[i], r.touched[i] = vals[j], true
	}
	key, err := s.m.encodeRec(r, initWhat{call: true, n: s.calls}, &s.scratch)
	if err != nil {
		return err
	}
	return s.addKey(key)
}
