package explore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// stackModel is a bounded stack as a Go-native model. The state is a string
// of digits (immutable, so steps cannot change it by accident).
func stackModel(capacity int) model.Model {
	m, err := model.Native(stackDef(capacity))
	if err != nil {
		panic(err)
	}
	return m
}

// stackDef is stackModel's definition.
func stackDef(capacity int) *model.NativeModel[string] {
	digits := []model.Value{model.Int(1), model.Int(2)}
	return &model.NativeModel[string]{
		Name:   "stack",
		Vars:   []string{"stack"},
		Init:   func() string { return "" },
		Encode: func(dst []byte, s string) []byte { return append(dst, s...) },
		Decode: func(key []byte) (string, error) { return string(key), nil },
		Show: func(s string) []model.Value {
			var vs []model.Value
			for _, c := range s {
				vs = append(vs, model.Int(int(c-'0')))
			}
			return []model.Value{model.Tuple(vs...)}
		},
		Actions: []model.NativeAction[string]{
			{Name: "Push", Params: []string{"x"},
				Domains: []func(string) []model.Value{func(string) []model.Value { return digits }},
				Step: func(s string, args []model.Value) (string, model.Value, bool, string) {
					if len(s) >= capacity {
						return s, nil, false, "the stack is full"
					}
					x, _ := model.AsInt(args[0])
					return s + string(rune('0'+x)), nil, true, ""
				}},
			{Name: "Pop",
				Step: func(s string, _ []model.Value) (string, model.Value, bool, string) {
					if s == "" {
						return s, nil, false, "the stack is empty"
					}
					return s[:len(s)-1], model.Int(int(s[len(s)-1] - '0')), true, ""
				}},
		},
		Accepting: func(s string) bool { return s == "" },
		Properties: map[string]func(string) model.Value{
			"size": func(s string) model.Value { return model.Int(len(s)) },
		},
	}
}

// A Go-native model explores like a Starlark one.
func Example_native() {
	m := stackModel(2)
	x, err := explore.Explore(context.Background(), m, nil)
	if err != nil {
		panic(err)
	}
	g := x.Graph()
	fmt.Println(len(g.States), "states,", len(g.Trans), "transitions")
	for _, t := range g.Trans[:4] {
		fmt.Println(g.States[t.From].ID, t.Label(), g.States[t.To].ID)
	}
	// Output:
	// 7 states, 12 transitions
	// S0 Push(1) S1
	// S0 Push(2) S2
	// S1 Push(1) S3
	// S1 Push(2) S4
}

// arrayStack is the state of arrayStackModel: the values in a fixed array,
// so that a step copies the state without allocating.
type arrayStack struct {
	v [15]byte
	n uint8
}

// arrayStackModel is stackModel written as a Go user writes a model for
// speed: the state is a value with no pointers, steps and decoding do not
// allocate. It has the same states and transitions as stackModel.
func arrayStackModel(capacity int) model.Model {
	if capacity > len(arrayStack{}.v) {
		panic("arrayStackModel: capacity too large")
	}
	digits := []model.Value{model.Int(1), model.Int(2)}
	outs := []model.Value{model.None, model.Int(1), model.Int(2)}
	m, err := model.Native(&model.NativeModel[arrayStack]{
		Name:   "stack",
		Vars:   []string{"stack"},
		Init:   func() arrayStack { return arrayStack{} },
		Encode: func(dst []byte, s arrayStack) []byte { return append(dst, s.v[:s.n]...) },
		Decode: func(key []byte) (arrayStack, error) {
			var s arrayStack
			if len(key) > len(s.v) {
				return s, fmt.Errorf("stack key of %d bytes", len(key))
			}
			s.n = uint8(copy(s.v[:], key))
			return s, nil
		},
		Show: func(s arrayStack) []model.Value {
			var vs []model.Value
			for _, c := range s.v[:s.n] {
				vs = append(vs, model.Int(int(c)))
			}
			return []model.Value{model.Tuple(vs...)}
		},
		Actions: []model.NativeAction[arrayStack]{
			{Name: "Push", Params: []string{"x"},
				Domains: []func(arrayStack) []model.Value{func(arrayStack) []model.Value { return digits }},
				Step: func(s arrayStack, args []model.Value) (arrayStack, model.Value, bool, string) {
					if int(s.n) >= capacity {
						return s, nil, false, "the stack is full"
					}
					x, _ := model.AsInt(args[0])
					s.v[s.n] = byte(x)
					s.n++
					return s, nil, true, ""
				}},
			{Name: "Pop",
				Step: func(s arrayStack, _ []model.Value) (arrayStack, model.Value, bool, string) {
					if s.n == 0 {
						return s, nil, false, "the stack is empty"
					}
					s.n--
					return s, outs[s.v[s.n]], true, ""
				}},
		},
		Accepting: func(s arrayStack) bool { return s.n == 0 },
		Properties: map[string]func(arrayStack) model.Value{
			"size": func(s arrayStack) model.Value { return model.Int(int(s.n)) },
		},
	})
	if err != nil {
		panic(err)
	}
	return m
}

// The benchmark's three stacks (Starlark, Go with a string, Go with an
// array) have the same graph: the same transitions between states with the
// same variables, in the same order.
func TestStackTwinsAgree(t *testing.T) {
	star, err := model.LoadStarlark("testdata/bigstack.star")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, m := range []model.Model{star, stackModel(14), arrayStackModel(14)} {
		x, err := explore.Explore(context.Background(), m, explore.DefaultConfig(m))
		if err != nil {
			t.Fatal(err)
		}
		if len(x.States) != 32767 || len(x.Trans) != 65532 {
			t.Fatalf("model %d: %d states, %d transitions", i, len(x.States), len(x.Trans))
		}
		w, err := m.NewWorker()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		g := x.Graph()
		for j := range x.Trans {
			tr := &x.Trans[j]
			from, err := x.StateVars(w, int(tr.From))
			if err != nil {
				t.Fatal(err)
			}
			to, err := x.StateVars(w, int(tr.To))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s %s %s -> %s", elems(from[0].Value), g.Trans[j].Label(), model.Format(x.OutputOf(tr)), elems(to[0].Value)))
		}
		if i == 0 {
			want = got
			continue
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("model %d, transition %d: %s, Starlark %s", i, j, got[j], want[j])
			}
		}
	}
}

// elems formats the elements of a list or tuple (a stack shown by Starlark
// or by Go).
func elems(v model.Value) string {
	seq, ok := v.(starlark.Indexable)
	if !ok {
		return "not a sequence: " + model.Format(v)
	}
	var b strings.Builder
	for i := 0; i < seq.Len(); i++ {
		b.WriteString(model.Format(seq.Index(i)) + " ")
	}
	return b.String()
}

// hiddenCheapFacts is a model whose workers hide model.CheapFacts (and
// keep model.ScratchStepper): the explorer then remembers each target's
// facts per chunk, as it does for Starlark.
type hiddenCheapFacts struct{ model.Model }

func (m hiddenCheapFacts) NewWorker() (model.Worker, error) {
	w, err := m.Model.NewWorker()
	if err != nil {
		return nil, err
	}
	return factsCached{w, w.(model.ScratchStepper)}, nil
}

type factsCached struct {
	model.Worker
	model.ScratchStepper
}

// Facts evaluated again for every transition (a Go-native worker) or
// remembered per target (the same worker with CheapFacts hidden, on two
// workers; one worker never needs to remember) give the same graph: the model's filter and invariant, a project filter, the
// acceptance, with and without a grouping, on one and two workers and in
// chunks of a few states (a target reached several times in a chunk).
func TestCheapFactsGiveTheSameGraph(t *testing.T) {
	def := stackDef(8)
	def.Filter = func(s string) bool { return !strings.Contains(s, "121") }
	def.Invariant = func(s string) string {
		if strings.HasSuffix(s, "2222") {
			return "four 2s on top"
		}
		return ""
	}
	def.Properties["shallow"] = func(s string) model.Value { return starlark.Bool(len(s) < 7) }
	native, err := model.Native(def)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mustWorker(t, native).(model.CheapFacts); !ok {
		t.Fatal("a Go-native worker should have CheapFacts")
	}
	cached := hiddenCheapFacts{native}
	if _, ok := mustWorker(t, cached).(model.CheapFacts); ok {
		t.Fatal("the wrapper should hide CheapFacts")
	}
	for _, grouping := range []string{"", "size(s)"} {
		var want string
		for _, m := range []model.Model{native, cached} {
			for _, workers := range []int{1, 2} {
				for _, chunk := range []int{4096, 3} {
					cfg := explore.DefaultConfig(m)
					cfg.Workers = workers
					f, err := m.Compile("shallow(s)", model.Pos{})
					if err != nil {
						t.Fatal(err)
					}
					cfg.Filters = []model.Expr{f}
					if grouping != "" {
						g, err := m.Compile(grouping, model.Pos{})
						if err != nil {
							t.Fatal(err)
						}
						cfg.Groupings = []model.Expr{g}
					}
					x := exploreInChunks(t, m, cfg, chunk)
					got := fingerprint(x)
					if want == "" {
						want = got
						broken := 0
						for i := range x.States {
							if x.StateError(i) != "" {
								broken++
							}
						}
						if x.Stats.Filtered == 0 || (grouping == "" && (x.Stats.States < 50 || broken == 0)) || (grouping != "" && x.Stats.Pruned == 0) {
							t.Fatalf("grouping %q: the filters, invariant and grouping should all act (%d states break the invariant): %s", grouping, broken, got)
						}
						continue
					}
					if got != want {
						t.Errorf("grouping %q, %T, %d workers, chunks of %d: %s, want %s", grouping, m, workers, chunk, got, want)
					}
				}
			}
		}
	}
}

func mustWorker(t *testing.T, m model.Model) model.Worker {
	t.Helper()
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	return w
}
