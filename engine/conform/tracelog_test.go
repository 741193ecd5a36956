package conform_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// JSON-lines traces carry typed values (arrays as lists, objects as dicts)
// and outputs (issue 53, 8: lists became strings, outputs could not be
// given).
func TestJSONLinesTypedValuesAndOutputs(t *testing.T) {
	recs, err := conform.ParseTrace("t.jsonl", []byte(`{"event": "E", "xs": [1, [2, "a"]], "d": {"k": null}, "n": 3, "output": [true]}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	typed := map[string]string{}
	for _, a := range r.Attrs {
		if a.Typed != nil {
			typed[a.Key] = model.Format(a.Typed)
		}
	}
	if typed["xs"] != `[1, [2, "a"]]` || typed["d"] != `{"k": None}` || len(typed) != 2 || !r.HasOutput || model.Format(r.Output) != "[True]" {
		t.Errorf("typed %v, output %v (%v)", typed, r.Output, r.HasOutput)
	}
	// An output is checked: the stack's Pop gives its top.
	m, cfg := stackModelForTest(t)
	for _, tc := range []struct {
		trace string
		want  conform.Verdict
	}{
		{`{"event": "Push", "x": 2}` + "\n" + `{"event": "Pop", "output": 2}`, conform.Pass},
		{`{"event": "Push", "x": 2}` + "\n" + `{"event": "Pop", "output": 7}`, conform.Fail},
	} {
		recs, err := conform.ParseTrace("t.jsonl", []byte(tc.trace+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{})
		if err != nil || res.Verdict != tc.want {
			t.Errorf("%s: %s (%v, %+v)", tc.trace, res.Verdict, err, res.Failure)
		}
	}
	for _, bad := range []string{`{"event": "E", "xs": [1.5]}`, `{"event": "E", "output": [` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `]}`} {
		if _, err := conform.ParseTrace("t.jsonl", []byte(bad+"\n")); err == nil || !strings.Contains(err.Error(), "t.jsonl:1:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A step log (modex test --log) reads as a trace: labels as plain lines,
// timeouts skipped, runs split (SplitRuns).
func TestStepLogSplitsIntoRuns(t *testing.T) {
	log := `{"cleanup":false,"index":0,"kind":"controllable","label":"Create()/Client1","run":1,"step":1}
{"cleanup":false,"index":1,"kind":"timeout","label":"","run":1,"step":0}
{"cleanup":false,"index":2,"kind":"controllable","label":"Enter(Client1)","run":1,"step":2}
{"cleanup":false,"index":0,"kind":"controllable","label":"Create()/Client1","run":2,"step":1}
`
	runs := conform.SplitRuns(conform.NewTraceReader("steps.jsonl", strings.NewReader(log)))
	var got []string
	for tr, n, ok := runs.Next(); ok; tr, n, ok = runs.Next() {
		var names []string
		for {
			r, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, r.Name)
		}
		got = append(got, strings.Join(append([]string{string(rune('0' + n))}, names...), " "))
	}
	if strings.Join(got, "; ") != "1 Create Enter; 2 Create" {
		t.Errorf("runs %q", got)
	}
	// A trace without runs is one run; an empty one too.
	for _, text := range []string{"Create()/Client1\nEnter(Client1)\n", ""} {
		runs := conform.SplitRuns(conform.NewTraceReader("t", strings.NewReader(text)))
		n := 0
		for tr, run, ok := runs.Next(); ok; tr, run, ok = runs.Next() {
			n++
			for _, err := tr.Next(); err == nil; _, err = tr.Next() {
			}
			if run != 0 {
				t.Errorf("run %d", run)
			}
		}
		if n != 1 {
			t.Errorf("%q: %d runs", text, n)
		}
	}
}
