package engine_test

import (
	"context"
	"fmt"

	"github.com/modex/modex/engine"
)

// stackModel is a bounded stack as a Go-native model. The state is a string
// of digits (immutable, so steps cannot change it by accident).
func stackModel(capacity int) engine.Model {
	digits := []engine.Value{engine.Int(1), engine.Int(2)}
	m, err := engine.Native(&engine.NativeModel[string]{
		Name:   "stack",
		Vars:   []string{"stack"},
		Init:   func() string { return "" },
		Encode: func(dst []byte, s string) []byte { return append(dst, s...) },
		Decode: func(key []byte) (string, error) { return string(key), nil },
		Show: func(s string) []engine.Value {
			var vs []engine.Value
			for _, c := range s {
				vs = append(vs, engine.Int(int(c-'0')))
			}
			return []engine.Value{engine.Tuple(vs...)}
		},
		Actions: []engine.NativeAction[string]{
			{Name: "Push", Params: []string{"x"},
				Domains: []func(string) []engine.Value{func(string) []engine.Value { return digits }},
				Step: func(s string, args []engine.Value) (string, engine.Value, bool, string) {
					if len(s) >= capacity {
						return s, nil, false, "the stack is full"
					}
					x, _ := engine.AsInt(args[0])
					return s + string(rune('0'+x)), nil, true, ""
				}},
			{Name: "Pop",
				Step: func(s string, _ []engine.Value) (string, engine.Value, bool, string) {
					if s == "" {
						return s, nil, false, "the stack is empty"
					}
					return s[:len(s)-1], engine.Int(int(s[len(s)-1] - '0')), true, ""
				}},
		},
		Accepting: func(s string) bool { return s == "" },
		Properties: map[string]func(string) engine.Value{
			"size": func(s string) engine.Value { return engine.Int(len(s)) },
		},
	})
	if err != nil {
		panic(err)
	}
	return m
}

// A Go-native model explores like a Starlark one.
func ExampleNative() {
	m := stackModel(2)
	x, err := engine.Explore(context.Background(), m, nil)
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
