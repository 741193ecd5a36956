package codecov

import (
	"bytes"
	"strings"
	"testing"
)

// Each reader takes its format and names the line of what it cannot
// read.
func TestReaders(t *testing.T) {
	for _, tc := range []struct {
		name, format, input string
		want                Count
		err                 string
	}{
		{"go", "go", "mode: set\na.go:1.1,2.2 3 1\na.go:3.1,4.2 2 0\nb.go:1.1,1.9 1 5\n", Count{4, 6}, ""},
		{"go twice the same block, reached once", "go", "mode: count\na.go:1.1,2.2 3 0\na.go:1.1,2.2 3 2\n", Count{3, 3}, ""},
		{"go without mode", "go", "a.go:1.1,2.2 3 1\n", Count{}, "line 1: a Go coverage profile starts with"},
		{"go bad block", "go", "mode: set\na.go:1.1-2.2 3 1\n", Count{}, "line 2: no block position"},
		{"go bad count", "go", "mode: set\na.go:1.1,2.2 x 1\n", Count{}, "line 2: bad statement count"},
		{"go fields", "go", "mode: set\na.go:1.1,2.2 1\n", Count{}, "line 2: want \"file:line.col,line.col statements count\""},
		{"lcov", "lcov", "TN:\nSF:/src/a.js\nDA:1,1\nDA:2,0\nDA:3,4\nend_of_record\nSF:/src/b.js\nDA:1,0\nend_of_record\n", Count{2, 4}, ""},
		{"lcov DA outside", "lcov", "DA:1,1\n", Count{}, "line 1: DA outside a file's record"},
		{"lcov bad DA", "lcov", "SF:a\nDA:x,1\n", Count{}, "line 2: want DA:line,hits"},
		{"coverage.py", "coverage.py", `{"meta":{},"files":{"a.py":{"executed_lines":[1,2,3],"missing_lines":[4]}}}`, Count{3, 4}, ""},
		{"coverage.py not JSON", "coverage.py", `nope`, Count{}, "not a coverage.py JSON report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := map[string]func(r *strings.Reader) (*Profile, error){
				"go":          func(r *strings.Reader) (*Profile, error) { return ReadGo(r) },
				"lcov":        func(r *strings.Reader) (*Profile, error) { return ReadLCOV(r) },
				"coverage.py": func(r *strings.Reader) (*Profile, error) { return ReadCoveragePy(r) },
			}[tc.format]
			p, err := read(strings.NewReader(tc.input))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error with %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c, _ := p.Summary(); c != tc.want || p.Format != tc.format {
				t.Fatalf("%s %+v, want %+v", p.Format, c, tc.want)
			}
		})
	}
}

// Merging keeps a unit reached when either side reached it; a filter
// keeps the files its patterns name; LCOV written reads back the same.
func TestMergeFilterLCOV(t *testing.T) {
	a, _ := ReadGo(strings.NewReader("mode: set\nx/impl/server.go:1.1,2.2 3 1\nx/impl/server.go:3.1,4.2 2 0\nx/impl/adapter.go:1.1,1.9 4 1\n"))
	b, _ := ReadGo(strings.NewReader("mode: set\nx/impl/server.go:3.1,4.2 2 1\n"))
	a.Merge(b)
	if c, _ := a.Summary(); c != (Count{9, 9}) {
		t.Fatalf("merged %+v", c)
	}
	for _, tc := range []struct {
		patterns []string
		want     Count
	}{
		{nil, Count{9, 9}},
		{[]string{"server.go"}, Count{5, 5}},
		{[]string{"impl/*.go"}, Count{9, 9}},
		{[]string{"x/impl/adapter.go"}, Count{4, 4}},
		{[]string{"other.go"}, Count{0, 0}},
	} {
		if c, _ := a.Filter(tc.patterns).Summary(); c != tc.want {
			t.Errorf("filter %v: %+v, want %+v", tc.patterns, c, tc.want)
		}
	}
	l, _ := ReadLCOV(strings.NewReader("SF:a.py\nDA:1,1\nDA:2,0\nDA:10,3\nend_of_record\n"))
	var buf bytes.Buffer
	if err := l.WriteLCOV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "SF:a.py\nDA:1,1\nDA:2,0\nDA:10,1\nLF:3\nLH:2\nend_of_record\n"
	if buf.String() != want {
		t.Fatalf("LCOV written:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func FuzzReadGo(f *testing.F) {
	f.Add("mode: set\na.go:1.1,2.2 3 1\n")
	f.Add("mode: atomic\n/x/y.go:10.2,12.40 0 99999999999\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadGo(strings.NewReader(s))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := p.WriteGo(&buf); err != nil {
			t.Fatal(err)
		}
		q, err := ReadGo(&buf)
		if err != nil {
			t.Fatalf("written profile does not read back: %v\n%s", err, buf.String())
		}
		c1, _ := p.Summary()
		c2, _ := q.Summary()
		if c1 != c2 {
			t.Fatalf("%+v then %+v", c1, c2)
		}
	})
}

func FuzzReadLCOV(f *testing.F) {
	f.Add("SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadLCOV(strings.NewReader(s))
		if err != nil {
			return
		}
		c, _ := p.Summary()
		if c.Reached > c.Total || c.Reached < 0 {
			t.Fatalf("%+v", c)
		}
	})
}

func FuzzReadCoveragePy(f *testing.F) {
	f.Add(`{"files":{"a.py":{"executed_lines":[1],"missing_lines":[2]}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadCoveragePy(strings.NewReader(s))
		if err != nil {
			return
		}
		c, _ := p.Summary()
		if c.Reached > c.Total {
			t.Fatalf("%+v", c)
		}
	})
}
