// Command prog is a small program the coverage tests build with -cover:
// it reaches f's branches as its argument says, and writes its counters
// at once when asked (the way the adapter kit flushes between runs).
package main

import (
	"fmt"
	"os"
	"runtime/coverage"
	"strconv"
)

func f(n int) int {
	if n > 3 {
		return n * 2
	}
	if n < 0 {
		return -n
	}
	return n
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	fmt.Println(f(n))
	if len(os.Args) > 2 && os.Args[2] == "flush" {
		dir := os.Getenv("GOCOVERDIR")
		if err := coverage.WriteMetaDir(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		if err := coverage.WriteCountersDir(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}
