// Command kitadapter is a tiny adapter on the kit, for the kit's tests of
// a real process: a stack of integers (Push, Pop), an action that prints
// to standard output (Print), Tick, which emits Ticked events, and Sleep(ms). Its close
// hook says "closed" on standard error.
package main

import (
	"fmt"
	"log"
	"os"
	"time"

	modexadapter "github.com/modex/modex/adapters/go"
)

func main() {
	var stack []int
	a := modexadapter.New("kitadapter")
	a.Handle("Push", func(args modexadapter.Args) (any, error) {
		if len(stack) == 2 {
			return nil, modexadapter.Refuse("the stack is full")
		}
		stack = append(stack, args.Int(0))
		return nil, nil
	})
	a.Handle("Pop", func(args modexadapter.Args) (any, error) {
		if len(stack) == 0 {
			return nil, modexadapter.Refuse("the stack is empty")
		}
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return x, nil
	})
	a.Handle("Print", func(args modexadapter.Args) (any, error) {
		fmt.Println("a stray line on standard output")
		return "printed", nil
	})
	a.Handle("Tick", func(args modexadapter.Args) (any, error) {
		a.Emit("Ticked", args.String(0))
		return nil, nil
	})
	a.Handle("Sleep", func(args modexadapter.Args) (any, error) {
		fmt.Fprintln(os.Stderr, "sleeping")
		time.Sleep(time.Duration(args.Int(0)) * time.Millisecond)
		fmt.Fprintln(os.Stderr, "slept")
		return "slept", nil
	})
	a.OnReset(func() error { stack = nil; return nil })
	a.OnClose(func() { fmt.Fprintln(os.Stderr, "closed") })
	if err := a.Run(); err != nil {
		log.Fatal(err)
	}
}
