// Package codecov measures how much of the implementation under test a test
// ran: code coverage profiles read from Go's coverage data (GOCOVERDIR, or
// its text format), coverage.py and LCOV, merged across runs and workers,
// summarised per file and written back in Go's text format or LCOV.
//
// A profile is a set of code units — a Go block of statements, or a line
// for coverage.py and LCOV — each with its statement count and whether a
// test reached it. Merging keeps a unit reached when any source reached it.
package codecov

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Unit is one measured piece of code: a Go block (its position range in
// the file) or a line.
type Unit struct {
	File string
	// Pos is the unit's place in its file: "12.3,14.9" for a Go block,
	// "12" for a line.
	Pos   string
	Stmts int
}

// Profile is what a test reached of the implementation's code.
type Profile struct {
	// Format is where the profile came from: "go", "coverage.py" or
	// "lcov" (merging two formats keeps the first one's name).
	Format string
	units  map[Unit]bool // reached?
}

// New returns an empty profile of a format.
func New(format string) *Profile { return &Profile{Format: format, units: map[Unit]bool{}} }

// Add records a unit, reached or not (reached wins over an earlier
// record of the same unit).
func (p *Profile) Add(u Unit, reached bool) {
	if p.units == nil {
		p.units = map[Unit]bool{}
	}
	p.units[u] = p.units[u] || reached
}

// Merge adds every unit of q to p.
func (p *Profile) Merge(q *Profile) {
	if q == nil {
		return
	}
	if p.Format == "" {
		p.Format = q.Format
	}
	for u, r := range q.units {
		p.Add(u, r)
	}
}

// Empty says the profile has no unit.
func (p *Profile) Empty() bool { return p == nil || len(p.units) == 0 }

// Filter keeps the units of files that match one of the patterns (all when
// there are none): a pattern is a path.Match pattern matched against the
// file's whole name, its last elements, or its base name — "server.go",
// "impl/*.go", "github.com/x/y/*".
func (p *Profile) Filter(patterns []string) *Profile {
	if len(patterns) == 0 {
		return p
	}
	q := New(p.Format)
	for u, r := range p.units {
		if Matches(u.File, patterns) {
			q.units[u] = r
		}
	}
	return q
}

// Matches says whether a file name matches one of the patterns (see
// Filter).
func Matches(name string, patterns []string) bool {
	name = strings.ReplaceAll(name, `\`, "/")
	for _, pat := range patterns {
		n := strings.Count(pat, "/") + 1
		parts := strings.Split(name, "/")
		tail := strings.Join(parts[max(0, len(parts)-n):], "/")
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
		if ok, _ := path.Match(pat, tail); ok {
			return true
		}
	}
	return false
}

// Count is a number of statements reached of a total.
type Count struct {
	Reached, Total int
}

// Percent is the share reached, 0 to 100 (0 for no statement).
func (c Count) Percent() float64 {
	if c.Total == 0 {
		return 0
	}
	return 100 * float64(c.Reached) / float64(c.Total)
}

// String prints "73.4 % of 321 statements".
func (c Count) String() string {
	return fmt.Sprintf("%.1f %% of %d statements", c.Percent(), c.Total)
}

// FileCount is a file's count.
type FileCount struct {
	File string
	Count
}

// Summary counts the statements reached, in all and per file (files
// sorted by name).
func (p *Profile) Summary() (Count, []FileCount) {
	var all Count
	per := map[string]*Count{}
	if p == nil {
		return all, nil
	}
	for u, r := range p.units {
		c := per[u.File]
		if c == nil {
			c = &Count{}
			per[u.File] = c
		}
		c.Total += u.Stmts
		all.Total += u.Stmts
		if r {
			c.Reached += u.Stmts
			all.Reached += u.Stmts
		}
	}
	files := make([]FileCount, 0, len(per))
	for f, c := range per {
		files = append(files, FileCount{File: f, Count: *c})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].File < files[j].File })
	return all, files
}

// sortedUnits lists the units by file, then position.
func (p *Profile) sortedUnits() []Unit {
	us := make([]Unit, 0, len(p.units))
	for u := range p.units {
		us = append(us, u)
	}
	sort.Slice(us, func(i, j int) bool {
		if us[i].File != us[j].File {
			return us[i].File < us[j].File
		}
		return posLess(us[i].Pos, us[j].Pos)
	})
	return us
}

// posLess orders positions by their numbers ("9.19,10.11" before
// "10.11,12.3"; "9" before "10").
func posLess(a, b string) bool {
	na, nb := numbers(a), numbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] < nb[i]
		}
	}
	return len(na) < len(nb)
}

func numbers(s string) []int {
	var out []int
	n, in := 0, false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n, in = n*10+int(r-'0'), true
			continue
		}
		if in {
			out = append(out, n)
		}
		n, in = 0, false
	}
	if in {
		out = append(out, n)
	}
	return out
}

// Block is a unit of a profile and whether it was reached: a profile sent
// over the network (a campaign worker's to its coordinator).
type Block struct {
	File    string `json:"f"`
	Pos     string `json:"p"`
	Stmts   int    `json:"n"`
	Reached bool   `json:"r,omitempty"`
}

// Blocks lists the profile's units, by file and position.
func (p *Profile) Blocks() []Block {
	if p == nil {
		return nil
	}
	us := p.sortedUnits()
	out := make([]Block, len(us))
	for i, u := range us {
		out[i] = Block{File: u.File, Pos: u.Pos, Stmts: u.Stmts, Reached: p.units[u]}
	}
	return out
}

// AddBlocks merges blocks into the profile; statement counts are bounded
// (a block from the network claims at most 1<<20).
func (p *Profile) AddBlocks(bs []Block) {
	for _, b := range bs {
		if b.Stmts < 0 || b.Stmts > 1<<20 {
			continue
		}
		p.Add(Unit{File: b.File, Pos: b.Pos, Stmts: b.Stmts}, b.Reached)
	}
}

// Len is the number of units.
func (p *Profile) Len() int {
	if p == nil {
		return 0
	}
	return len(p.units)
}
