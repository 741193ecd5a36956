package explore_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// naiveStarExplore is issue 15's naive reference explorer as the issue
// describes it, written without any of Modex's engine: the model program runs
// in a plain Starlark interpreter; before each step the state is deep-copied
// (the action mutates it), each new state is identified by a canonical string
// (its variables in name order, each printed by Starlark), and the deep
// copies themselves are kept (the queue) — breadth first on one core. It
// understands what the bounded-stack model uses: init(), actions, constant
// parameter domains, require() and plain values (lists, dicts, ints,
// strings); it checks its counts against Modex's.
func naiveStarExplore(tb testing.TB, src string) (states, trans int) {
	errRequire := errors.New("require failed")
	require := starlark.NewBuiltin("require", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) < 1 || !args[0].Truth() {
			return nil, errRequire
		}
		return starlark.None, nil
	})
	thread := &starlark.Thread{Name: "naive"}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true}
	g, err := starlark.ExecFileOptions(opts, thread, "naive.star", src, starlark.StringDict{"require": require})
	if err != nil {
		tb.Fatal(err)
	}
	init := g["init"].(starlark.Callable)
	actions := g["actions"].(*starlark.List)
	doms := g["domains"].(*starlark.Dict)
	type action struct {
		fn   *starlark.Function
		args [][]starlark.Value // every combination of inputs
	}
	var as []action
	for i := 0; i < actions.Len(); i++ {
		fn := actions.Index(i).(*starlark.Function)
		combos := [][]starlark.Value{nil}
		d, _, _ := doms.Get(fn)
		for p := 0; p < fn.NumParams()-1; p++ {
			name, _ := fn.Param(p + 1)
			vals, _, _ := d.(*starlark.Dict).Get(starlark.String(name))
			var next [][]starlark.Value
			for _, c := range combos {
				it := vals.(starlark.Iterable).Iterate()
				var v starlark.Value
				for it.Next(&v) {
					next = append(next, append(append([]starlark.Value(nil), c...), v))
				}
				it.Done()
			}
			combos = next
		}
		as = append(as, action{fn, combos})
	}
	v0, err := starlark.Call(thread, init, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s0 := &naiveState{vars: v0.(*starlark.Dict)}
	seen := map[string]bool{s0.canonical(): true}
	queue := []*naiveState{s0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, a := range as {
			for _, args := range a.args {
				next := s.deepCopy()
				argv := append(starlark.Tuple{next}, args...)
				if _, err := starlark.Call(thread, a.fn, argv, nil); err != nil {
					if errors.Is(err, errRequire) {
						continue
					}
					tb.Fatal(err)
				}
				trans++
				k := next.canonical()
				if seen[k] {
					continue
				}
				seen[k] = true
				queue = append(queue, next)
			}
		}
	}
	return len(seen), trans
}

// naiveState is a model state for the naive explorer: its variables by name,
// read and assigned as attributes (s.stack).
type naiveState struct{ vars *starlark.Dict }

func (s *naiveState) String() string        { return s.canonical() }
func (s *naiveState) Type() string          { return "state" }
func (s *naiveState) Freeze()               {}
func (s *naiveState) Truth() starlark.Bool  { return true }
func (s *naiveState) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: state") }
func (s *naiveState) Attr(name string) (starlark.Value, error) {
	v, _, err := s.vars.Get(starlark.String(name))
	return v, err
}
func (s *naiveState) AttrNames() []string {
	var ns []string
	for _, k := range s.vars.Keys() {
		ns = append(ns, string(k.(starlark.String)))
	}
	return ns
}
func (s *naiveState) SetField(name string, v starlark.Value) error {
	return s.vars.SetKey(starlark.String(name), v)
}

// deepCopy copies the state and every list and dict in it.
func (s *naiveState) deepCopy() *naiveState {
	return &naiveState{vars: naiveCopy(s.vars).(*starlark.Dict)}
}

func naiveCopy(v starlark.Value) starlark.Value {
	switch v := v.(type) {
	case *starlark.List:
		elems := make([]starlark.Value, v.Len())
		for i := range elems {
			elems[i] = naiveCopy(v.Index(i))
		}
		return starlark.NewList(elems)
	case *starlark.Dict:
		d := starlark.NewDict(v.Len())
		for _, kv := range v.Items() {
			_ = d.SetKey(kv[0], naiveCopy(kv[1]))
		}
		return d
	}
	return v
}

// canonical is the state's identity: its variables in name order, each
// printed by Starlark.
func (s *naiveState) canonical() string {
	names := s.AttrNames()
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		v, _ := s.Attr(n)
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(v.String())
		b.WriteByte(';')
	}
	return b.String()
}
