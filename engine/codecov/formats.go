package codecov

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Bounds on what a reader takes: a profile comes from an implementation's
// files, which a test does not trust.
const (
	maxLine  = 64 << 10
	maxUnits = 4 << 20
	maxBytes = 256 << 20
)

// ReadGo reads a profile in Go's text format (go test -coverprofile, go
// tool covdata textfmt): "mode: set", then one block a line,
// "file:12.3,14.9 2 1" (its statements and its count).
func ReadGo(r io.Reader) (*Profile, error) {
	p := New("go")
	sc := bufio.NewScanner(io.LimitReader(r, maxBytes))
	sc.Buffer(make([]byte, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if line == 1 || strings.HasPrefix(text, "mode:") {
			if !strings.HasPrefix(text, "mode: ") {
				return nil, fmt.Errorf("line %d: a Go coverage profile starts with \"mode: set|count|atomic\", not %.60q", line, text)
			}
			continue
		}
		u, count, err := goBlock(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if len(p.units) >= maxUnits {
			return nil, fmt.Errorf("line %d: more than %d blocks", line, maxUnits)
		}
		p.Add(u, count > 0)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", line+1, err)
	}
	return p, nil
}

// goBlock parses "file:12.3,14.9 2 1".
func goBlock(text string) (Unit, int64, error) {
	f := strings.Fields(text)
	if len(f) != 3 {
		return Unit{}, 0, fmt.Errorf("want \"file:line.col,line.col statements count\", got %.80q", text)
	}
	colon := strings.LastIndexByte(f[0], ':')
	if colon <= 0 || !validRange(f[0][colon+1:]) {
		return Unit{}, 0, fmt.Errorf("no block position in %.80q", f[0])
	}
	stmts, err1 := strconv.Atoi(f[1])
	count, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || stmts < 0 || stmts > 1<<20 || count < 0 {
		return Unit{}, 0, fmt.Errorf("bad statement count or hit count in %.80q", text)
	}
	return Unit{File: f[0][:colon], Pos: f[0][colon+1:], Stmts: stmts}, count, nil
}

// validRange checks "12.3,14.9".
func validRange(s string) bool {
	a, b, ok := strings.Cut(s, ",")
	return ok && validPos(a) && validPos(b)
}

func validPos(s string) bool {
	l, c, ok := strings.Cut(s, ".")
	_, e1 := strconv.Atoi(l)
	_, e2 := strconv.Atoi(c)
	return ok && e1 == nil && e2 == nil
}

// ReadLCOV reads an LCOV tracefile: per file (SF:), a line's hits (DA:).
// Each instrumented line counts as one statement.
func ReadLCOV(r io.Reader) (*Profile, error) {
	p := New("lcov")
	sc := bufio.NewScanner(io.LimitReader(r, maxBytes))
	sc.Buffer(make([]byte, 4096), maxLine)
	file := ""
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "SF:"):
			file = text[3:]
		case text == "end_of_record":
			file = ""
		case strings.HasPrefix(text, "DA:"):
			if file == "" {
				return nil, fmt.Errorf("line %d: DA outside a file's record (no SF: before it)", line)
			}
			parts := strings.Split(text[3:], ",")
			n, err1 := strconv.Atoi(parts[0])
			hits := int64(0)
			var err2 error
			if len(parts) >= 2 {
				hits, err2 = strconv.ParseInt(parts[1], 10, 64)
			}
			if len(parts) < 2 || err1 != nil || err2 != nil || n <= 0 {
				return nil, fmt.Errorf("line %d: want DA:line,hits, got %.80q", line, text)
			}
			if len(p.units) >= maxUnits {
				return nil, fmt.Errorf("line %d: more than %d lines", line, maxUnits)
			}
			p.Add(Unit{File: file, Pos: strconv.Itoa(n), Stmts: 1}, hits > 0)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", line+1, err)
	}
	return p, nil
}

// ReadCoveragePy reads coverage.py's JSON report (coverage json): per
// file, its executed and missing lines.
func ReadCoveragePy(r io.Reader) (*Profile, error) {
	var doc struct {
		Files map[string]struct {
			Executed []int `json:"executed_lines"`
			Missing  []int `json:"missing_lines"`
		} `json:"files"`
	}
	dec := json.NewDecoder(io.LimitReader(r, maxBytes))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a coverage.py JSON report: %v", err)
	}
	p := New("coverage.py")
	for file, f := range doc.Files {
		for _, n := range f.Executed {
			p.Add(Unit{File: file, Pos: strconv.Itoa(n), Stmts: 1}, true)
		}
		for _, n := range f.Missing {
			p.Add(Unit{File: file, Pos: strconv.Itoa(n), Stmts: 1}, false)
		}
		if len(p.units) > maxUnits {
			return nil, fmt.Errorf("more than %d lines", maxUnits)
		}
	}
	return p, nil
}

// WriteGo writes the profile in Go's text format (mode set), for go tool
// cover -html; line units are written as one-line blocks.
func (p *Profile) WriteGo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "mode: set")
	for _, u := range p.sortedUnits() {
		pos := u.Pos
		if !strings.Contains(pos, ",") {
			pos = pos + ".1," + pos + ".1000"
		}
		reached := 0
		if p.units[u] {
			reached = 1
		}
		fmt.Fprintf(bw, "%s:%s %d %d\n", u.File, pos, u.Stmts, reached)
	}
	return bw.Flush()
}

// WriteLCOV writes the profile as an LCOV tracefile (a Go block counts at
// its first line).
func (p *Profile) WriteLCOV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	file := ""
	lines := map[int]bool{}
	var order []int
	flush := func() {
		if file == "" {
			return
		}
		fmt.Fprintf(bw, "SF:%s\n", file)
		hit := 0
		for _, n := range order {
			h := 0
			if lines[n] {
				h, hit = 1, hit+1
			}
			fmt.Fprintf(bw, "DA:%d,%d\n", n, h)
		}
		fmt.Fprintf(bw, "LF:%d\nLH:%d\nend_of_record\n", len(order), hit)
	}
	for _, u := range p.sortedUnits() {
		if u.File != file {
			flush()
			file, lines, order = u.File, map[int]bool{}, nil
		}
		nums := numbers(u.Pos)
		if len(nums) == 0 {
			continue
		}
		n := nums[0]
		if _, seen := lines[n]; !seen {
			order = append(order, n)
		}
		lines[n] = lines[n] || p.units[u]
	}
	flush()
	return bw.Flush()
}
