package explore

import (
	"unsafe"

	"github.com/modex/modex/engine/model"
)

// MState is a state of the explored model (before the timeout extension).
// Its canonical encoding (Exploration.StateKey), label and error live in
// the exploration's tables: an MState holds no pointer for the garbage
// collector to follow (read them with Exploration.StateLabel and
// StateError).
type MState struct {
	// keyLo and keyHi are where the key starts in Exploration.keys (see
	// keyLoc): 40 bits, the chunk's index and the offset in it. Its end is
	// where the next state's key starts in the same chunk, or the chunk's
	// end: keys are stored in the order of the states (StateKey).
	keyLo uint32
	Depth int32
	keyHi uint8
	// Its label and error are in Exploration.notes: 16 bytes a state, not
	// 24, where most explorations have neither.
	Initial   bool
	Accepting bool
	Expanded  bool
	Frontier  bool // reached but not (fully) expanded because of a bound
	ModelErr  bool // the state stands for a model error, it has no variables
	// Deadlock is set on a state, fully expanded, in which no included
	// action is enabled (no step of any action with any inputs succeeds),
	// that is neither accepting nor an error: unlike a state whose
	// successors a filter, a grouping or a bound removed, which has enabled
	// actions.
	Deadlock bool
	// obs: an observable or internal transition leaves the state, marked
	// when the graph has passive twins (what hasObservables reads when the
	// transitions were dropped).
	obs bool
}

// MTrans is a transition of the explored model. Inputs and outputs are
// interned: Args indexes Exploration.ArgTable, Out indexes OutTable.
type MTrans struct {
	From, To int32
	Action   int32
	Args     int32
	Out      int32
}

// Stats summarise an exploration.
type Stats struct {
	States      int   `json:"states"`
	Transitions int   `json:"transitions"`
	Tried       int64 `json:"tried"`
	Filtered    int64 `json:"filtered"`
	// Pruned counts the distinct states a grouping pruned (reached, but
	// not new in any grouping), with the transitions into them.
	Pruned    int64   `json:"pruned"`
	Seconds   float64 `json:"seconds"`
	Complete  bool    `json:"complete"`
	StoppedBy string  `json:"stopped_by,omitempty"`
	// ModelStates counts the model's states (States counts the graph's,
	// which adds a passive twin where the tester first waits: Passive of
	// them, each with a timeout transition, Timeouts); InitialStates the
	// initial ones; Deadlocks the states in which nothing is enabled (see
	// MState.Deadlock); ErrorStates those with an invariant violation or
	// a model error.
	ModelStates   int `json:"model_states"`
	Passive       int `json:"passive_states"`
	Timeouts      int `json:"timeouts"`
	InitialStates int `json:"initial_states"`
	Deadlocks     int `json:"deadlocks"`
	ErrorStates   int `json:"error_states"`
	// Search is "walks" in a directed search (Config.Search =
	// SearchWalks), "" in a breadth-first one; Walks counts the walks it
	// ran, WalkDepth is their depth, Seed its seed, and Frontier counts
	// the states it visited whose graph lacks some of their transitions
	// or that it did not expand.
	Search    string `json:"search,omitempty"`
	Walks     int    `json:"walks,omitempty"`
	WalkDepth int    `json:"walk_depth,omitempty"`
	Seed      int64  `json:"seed,omitempty"`
	Frontier  int    `json:"frontier,omitempty"`
}

// Ending says how an exploration ended, for people: "complete", or
// "incomplete: stopped by max states", "incomplete: cancelled", …, or
// "partial: directed search" for the walks of a directed search that
// left some states on the frontier.
func (s *Stats) Ending() string {
	switch {
	case s.Complete:
		return "complete"
	case s.StoppedBy == "cancelled":
		return "incomplete: cancelled"
	case s.StoppedBy == "" && s.Search != "":
		return "partial: directed search"
	}
	return "incomplete: stopped by " + s.StoppedBy
}

// Exploration is the result of exploring a model under a configuration.
type Exploration struct {
	Model  model.Model
	Config *Config
	States []MState
	Trans  []MTrans
	Stats  Stats
	// ArgTable and OutTable hold the distinct input tuples and outputs.
	ArgTable [][]model.Value
	OutTable []model.Value
	// Merged, in a minimised exploration (see Minimize), is the number of
	// states of the exploration it was made from that each state stands
	// for; nil in an exploration that was not minimised.
	Merged []int
	// keys holds the states' canonical encodings end to end, in chunks
	// that are never moved or changed once written (strings point into
	// them).
	keys [][]byte
	// strs holds the states' labels and errors (0 is "").
	strs []string
	// notes holds the model states' labels and errors, from state 0 to the
	// last that has either (nil when none has).
	notes []stateNote
	// dropped is set when the transitions were counted, not kept
	// (Config.DropTransitions).
	dropped *dropped
	// walks is set in a directed search's exploration (see walk.go).
	walks *walkData
}

// StateLabel returns the label of model state i: its grouping values when
// groupings are set, else "".
func (x *Exploration) StateLabel(i int) string { return x.str(x.note(i).label) }

// StateError returns the error of model state i: an invariant violation or
// a model error, "" for none.
func (x *Exploration) StateError(i int) string { return x.str(x.note(i).err) }

// stateNote is a model state's label (its grouping values, when groupings
// are set) and error (an invariant violation or a model error), as ids in
// Exploration.strs (0: none).
type stateNote struct{ label, err int32 }

// note returns model state i's label and error.
func (x *Exploration) note(i int) stateNote {
	if i < len(x.notes) {
		return x.notes[i]
	}
	return stateNote{}
}

// setNote sets model state i's label and error; the table grows only for
// a state that has either.
func (x *Exploration) setNote(i int, n stateNote) {
	if i >= len(x.notes) {
		if n == (stateNote{}) {
			return
		}
		old := len(x.notes)
		x.notes = grow(x.notes, i+1-old)[:i+1]
		clear(x.notes[old:])
	}
	x.notes[i] = n
}

func (x *Exploration) str(id int32) string {
	if id == 0 {
		return ""
	}
	return x.strs[id]
}

// intern stores s in strs and returns its id (0 for "", which is not
// stored). Labels are mostly distinct: they are not looked up again.
func (x *Exploration) intern(s string) int32 {
	if s == "" {
		return 0
	}
	if len(x.strs) == 0 {
		x.strs = append(x.strs, "")
	}
	x.strs = append(x.strs, s)
	return int32(len(x.strs) - 1)
}

// keyChunk is the size of the key arena's chunks: the first is 4 KiB, each
// next one twice the last, up to keyChunk (a small graph does not keep, or
// zero, a megabyte for a few keys).
const keyChunk = 1 << 20

// keyOffBits is the number of bits of a key's location that give its
// offset in its chunk: chunks hold keyChunk bytes at most, or one key
// (storeKey).
const keyOffBits = 20

// maxKeyChunks bounds the chunks of a key arena (40-bit locations): 2^20
// chunks of up to a megabyte, a terabyte of keys.
const maxKeyChunks = 1 << (40 - keyOffBits)

// A chunk's offsets fit in keyOffBits (a compile-time check).
var _ [1<<keyOffBits - keyChunk]struct{}

// setKeyLoc sets where the state's key starts: chunk and offset in it.
func (s *MState) setKeyLoc(chunk, off int) {
	loc := uint64(chunk)<<keyOffBits | uint64(off)
	s.keyLo, s.keyHi = uint32(loc), uint8(loc>>32)
}

// keyLoc is where the state's key starts: its chunk and its offset in it.
func (s *MState) keyLoc() (chunk, off int) {
	loc := uint64(s.keyHi)<<32 | uint64(s.keyLo)
	return int(loc >> keyOffBits), int(loc & (1<<keyOffBits - 1))
}

// StateKey returns the canonical encoding of model state i; decode it with
// a Worker.
func (x *Exploration) StateKey(i int) string {
	c, off := x.States[i].keyLoc()
	if c >= len(x.keys) {
		return "" // no key stored (a state of a hand-built exploration)
	}
	chunk := x.keys[c]
	end := len(chunk)
	if i+1 < len(x.States) {
		if nc, noff := x.States[i+1].keyLoc(); nc == c {
			end = noff
		}
	}
	if end == off {
		return ""
	}
	return unsafe.String(&chunk[off], end-off)
}

// storeKey copies a key into the arena, after the keys of the states
// before, and returns where it starts (MState.setKeyLoc): the key of the
// state added next.
func (x *Exploration) storeKey(key string) (chunk, off int) {
	n := len(x.keys)
	if n == 0 || cap(x.keys[n-1])-len(x.keys[n-1]) < len(key) || len(x.keys[n-1]) >= keyChunk {
		size := 4 << 10
		if n > 0 {
			size = min(keyChunk, 2*cap(x.keys[n-1]))
		}
		if n == maxKeyChunks {
			panic("explore: more than a terabyte of state keys")
		}
		// A key larger than a chunk has a chunk of its own, full: the
		// next key starts another (offsets stay under keyChunk).
		x.keys = append(x.keys, make([]byte, 0, max(size, len(key))))
		n++
	}
	chunk = n - 1
	off = len(x.keys[chunk])
	x.keys[chunk] = append(x.keys[chunk], key...)
	return chunk, off
}

// ArgsOf returns the inputs of a transition.
func (x *Exploration) ArgsOf(t *MTrans) []model.Value { return x.ArgTable[t.Args] }

// OutputOf returns the output of a transition (None when there is none).
func (x *Exploration) OutputOf(t *MTrans) model.Value { return x.OutTable[t.Out] }

// countStates sets the counts of the model's states in Stats.
func (x *Exploration) countStates() {
	st := &x.Stats
	st.ModelStates, st.InitialStates, st.Deadlocks, st.ErrorStates = x.stateCounts()
}

// stateCounts counts the model's states: all, initial, deadlocks and
// error states. It changes nothing (Graph may run on an exploration that
// others read).
func (x *Exploration) stateCounts() (states, initial, deadlocks, errors int) {
	for i := range x.States {
		s := &x.States[i]
		if s.Initial {
			initial++
		}
		if s.Deadlock {
			deadlocks++
		}
		if s.ModelErr || x.note(i).err != 0 {
			errors++
		}
	}
	return len(x.States), initial, deadlocks, errors
}

// Deadlocks returns the model states in which nothing is enabled (see
// MState.Deadlock), in the order found (the first is one of the nearest to
// an initial state).
func (x *Exploration) Deadlocks() []int {
	var out []int
	for i := range x.States {
		if x.States[i].Deadlock {
			out = append(out, i)
		}
	}
	return out
}

// StateVars decodes the variables of model state i (nil for error states
// that stand for a model error).
func (x *Exploration) StateVars(w model.Worker, i int) ([]model.Var, error) {
	s := &x.States[i]
	if s.ModelErr {
		return nil, nil
	}
	st, err := w.Decode(x.StateKey(i))
	if err != nil {
		return nil, err
	}
	return w.Vars(st), nil
}
