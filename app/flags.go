package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// Numeric flags refuse what they cannot mean: a value out of the flag's
// range is a usage error (exit 2) that names the flag and the range —
// never silently replaced by a default. A flag left out keeps its default;
// where 0 (or -1) stands for "the default" or "none", the usage says so and
// the range admits it.

// intFlag declares an integer flag that accepts min to max only; words
// describe the range in the error ("at least 1", "0 (no bound) or more").
func intFlag(fs *flag.FlagSet, name string, def, min, max int, words, usage string) *int {
	v := new(int)
	intVar(fs, v, name, def, min, max, words, usage)
	return v
}

// intVar is intFlag storing the value in *p.
func intVar(fs *flag.FlagSet, p *int, name string, def, min, max int, words, usage string) {
	*p = def
	fs.Var(&rangedInt[int]{v: p, min: min, max: max, words: words}, name, usage)
}

// int64Flag is intFlag for an int64.
func int64Flag(fs *flag.FlagSet, name string, def, min, max int64, words, usage string) *int64 {
	v := def
	fs.Var(&rangedInt[int64]{v: &v, min: min, max: max, words: words}, name, usage)
	return &v
}

// secondsFlag declares a flag of seconds (a decimal number) above min
// (or at least min, with atMin) and at most max.
func secondsFlag(fs *flag.FlagSet, name string, def, min float64, atMin bool, max float64, words, usage string) *float64 {
	v := new(float64)
	secondsVar(fs, v, name, def, min, atMin, max, words, usage)
	return v
}

// secondsVar is secondsFlag storing the value in *p.
func secondsVar(fs *flag.FlagSet, p *float64, name string, def, min float64, atMin bool, max float64, words, usage string) {
	*p = def
	fs.Var(&rangedFloat{v: p, min: min, atMin: atMin, max: max, words: words}, name, usage)
}

// seedFlag declares --seed: -1 (the default: the project's seed, else
// one from the clock) or a seed of 0 or more.
func seedFlag(fs *flag.FlagSet, usage string) *int64 {
	return int64Flag(fs, "seed", -1, -1, math.MaxInt64, "-1 (the project's seed, else one from the clock) or a seed of 0 or more", usage)
}

// durationFlag declares a duration flag (30s, 5m) that must be above min.
func durationFlag(fs *flag.FlagSet, name string, def, min time.Duration, words, usage string) *time.Duration {
	v := def
	fs.Var(&rangedDuration{v: &v, min: min, words: words}, name, usage)
	return &v
}

// maxWorkers bounds the goroutines (explore) and local workers (campaign)
// a command starts.
const maxWorkers = 1024

// maxFlagSeconds bounds the flags of seconds: a week (beyond it a
// duration in nanoseconds is near its overflow, and no wait is meant).
const maxFlagSeconds = 7 * 24 * 3600

// errRange is the error of a value out of its flag's range; the flag
// package adds the flag's name and the value given.
func errRange(words string) error { return errors.New("must be " + words) }

// rangedInt is an integer flag (int or int64) with its range.
type rangedInt[T int | int64] struct {
	v        *T
	min, max T
	words    string
}

func (r *rangedInt[T]) String() string {
	if r.v == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*r.v), 10)
}

func (r *rangedInt[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, int(unsafe.Sizeof(T(0)))*8)
	if err != nil {
		return errors.New("not an integer: must be " + r.words)
	}
	if T(n) < r.min || T(n) > r.max {
		return errRange(r.words)
	}
	*r.v = T(n)
	return nil
}

// Get implements flag.Getter.
func (r *rangedInt[T]) Get() any { return *r.v }

// rangedFloat is a flag of seconds with its range.
type rangedFloat struct {
	v        *float64
	min, max float64
	atMin    bool // min itself is allowed
	words    string
}

func (r *rangedFloat) String() string {
	if r.v == nil {
		return "0"
	}
	return strconv.FormatFloat(*r.v, 'g', -1, 64)
}

func (r *rangedFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return errors.New("not a number: must be " + r.words)
	}
	if f < r.min || f == r.min && !r.atMin || f > r.max {
		return errRange(r.words)
	}
	*r.v = f
	return nil
}

// Get implements flag.Getter.
func (r *rangedFloat) Get() any { return *r.v }

// rangedDuration is a duration flag that must be above its minimum.
type rangedDuration struct {
	v     *time.Duration
	min   time.Duration
	words string
}

func (r *rangedDuration) String() string {
	if r.v == nil {
		return "0s"
	}
	return r.v.String()
}

func (r *rangedDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration (as 30s or 5m): must be %s", r.words)
	}
	if d <= r.min {
		return errRange(r.words)
	}
	*r.v = d
	return nil
}

// Get implements flag.Getter.
func (r *rangedDuration) Get() any { return *r.v }
