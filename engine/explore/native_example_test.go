package explore_test

import (
	"context"
	"fmt"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// stackModel is a bounded stack as a Go-native model. The state is a string
// of digits (immutable, so steps cannot change it by accident).
func stackModel(capacity int) model.Model {
	digits := []model.Value{model.Int(1), model.Int(2)}
	m, err := model.Native(&model.NativeModel[string]{
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
	})
	if err != nil {
		panic(err)
	}
	return m
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
