package model

import (
	"fmt"
	"testing"
)

// StepScratch from a DecodeScratch state gives what Step gives from a
// decoded one, each outcome of a step its own state, for Starlark (lists,
// dicts, sets, a list in a tuple, changed from their encodings) and Go-native
// models.
func TestStepScratchMatchesStep(t *testing.T) {
	star, err := LoadStarlarkSource("coin.star", []byte(`
def init():
    return {"side": None, "n": 0, "l": [], "d": {}, "t": ([], 1), "set": set()}

def Toss(s, k):
    require(s.side == None)
    require(len(s.l) < 3)
    s.side = choose(["heads", "tails", "edge"])
    s.n += k
    s.l.append(k)
    s.d[s.side] = len(s.l)
    s.t[0].append(s.n)
    s.set.add(k)
    return s.n

def Reset(s):
    require(s.side != None)
    s.side = None

actions = [Toss, Reset]
domains = {Toss: {"k": [1, 2]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	native, err := Native(&NativeModel[int]{
		Name: "counter", Vars: []string{"n"},
		Init:   func() int { return 0 },
		Encode: func(dst []byte, s int) []byte { return append(dst, byte(s)) },
		Decode: func(k []byte) (int, error) { return int(k[0]), nil },
		Actions: []NativeAction[int]{{Name: "Inc", Step: func(s int, _ []Value) (int, Value, bool, string) {
			return (s + 1) % 5, Int(s), s < 4, "full"
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Model{star, native} {
		w, err := m.NewWorker()
		if err != nil {
			t.Fatal(err)
		}
		sw, ok := w.(ScratchStepper)
		if !ok {
			t.Fatalf("%T has no StepScratch", w)
		}
		s0, _ := w.Init()
		queue, seen := []string{s0.Key()}, map[string]bool{s0.Key(): true}
		for len(queue) > 0 {
			st, err := w.Decode(queue[0])
			if err != nil {
				t.Fatal(err)
			}
			sst, err := sw.DecodeScratch(queue[0])
			if err != nil {
				t.Fatal(err)
			}
			queue = queue[1:]
			for ai, a := range m.Info().Actions {
				var combos [][]Value = [][]Value{nil}
				if len(a.Params) == 1 {
					combos = [][]Value{{Int(1)}, {Int(2)}}
				}
				for _, args := range combos {
					outs, why, err := w.Step(st, ai, args)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					for _, o := range outs {
						want = append(want, Format(o.Output)+" "+o.Next.Key())
					}
					souts, swhy, err := sw.StepScratch(sst, ai, args)
					if err != nil {
						t.Fatal(err)
					}
					if swhy != why || len(souts) != len(want) {
						t.Fatalf("%s %s: StepScratch %d outcomes (%q), Step %d (%q)", m.Info().Name, a.Name, len(souts), swhy, len(want), why)
					}
					for i, o := range souts {
						if got := Format(o.Output) + " " + o.Next.Key(); got != want[i] {
							t.Errorf("%s %s outcome %d: StepScratch %q, Step %q", m.Info().Name, a.Name, i, got, want[i])
						}
						if k := o.Next.Key(); !seen[k] {
							k = string([]byte(k)) // the key is the worker's scratch
							seen[k] = true
							queue = append(queue, k)
						}
					}
				}
			}
			// After the steps (which changed its variables from their
			// encodings), the scratch state shows what the decoded one shows.
			if got, want := fmt.Sprint(w.Vars(sst)), fmt.Sprint(w.Vars(st)); got != want {
				t.Errorf("%s: Vars %s, want %s", m.Info().Name, got, want)
			}
		}
		if len(seen) < 5 {
			t.Errorf("%s: only %d states reached", m.Info().Name, len(seen))
		}
	}
}
