package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// A Modex step log (modex test --log) is a JSON-lines trace too: its
// lines have no "event" but a "label", the step as Modex prints it
// (Push(1), ?Deliver(Client1, Client2, "hi"), Pop()/2), read as a line of a
// plain trace; its timeouts are not events and are skipped; its "run"
// numbers split it into runs, each replayed on its own (SplitRuns).

// logRecord reads the label of a step-log line (attrs are the line's
// other keys).
func logRecord(label string, attrs []Attr) (Record, error) {
	var kind, run string
	for _, a := range attrs {
		switch a.Key {
		case "kind":
			kind = a.Value
		case "run":
			run = a.Value
		}
	}
	if kind == "timeout" {
		return Record{skip: true}, nil
	}
	r, err := parsePlainRecord(label)
	if err != nil {
		return r, fmt.Errorf("label %q: %v", label, err)
	}
	if run != "" {
		n, err := strconv.Atoi(run)
		if err != nil || n < 1 {
			return r, fmt.Errorf("run %q is not a run number", run)
		}
		r.Run = n
	}
	return r, nil
}

// jsonValue reads a JSON value of a JSON-lines trace as a model value:
// arrays as lists, objects as dicts with string keys, null as None, within
// the bounds of a plain trace's literals.
func jsonValue(raw []byte) (model.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	budget := maxLiteralElems
	return jsonToModel(x, 0, &budget)
}

func jsonToModel(x any, depth int, budget *int) (model.Value, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("a value nested more than %d deep", maxLiteralDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("a value with more than %d elements", maxLiteralElems)
	}
	switch y := x.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(y), nil
	case string:
		return starlark.String(y), nil
	case json.Number:
		if longNumber(string(y), maxLiteralDigits) {
			return nil, fmt.Errorf("a number of more than %d digits", maxLiteralDigits)
		}
		v, err := literalOf(string(y))
		if err != nil {
			return nil, fmt.Errorf("%s is not a model value (floats are not)", y)
		}
		return v, nil
	case []any:
		out := make([]starlark.Value, len(y))
		for i, e := range y {
			v, err := jsonToModel(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return starlark.NewList(out), nil
	case map[string]any:
		d := starlark.NewDict(len(y))
		for k, e := range y {
			v, err := jsonToModel(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			d.SetKey(starlark.String(k), v)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unsupported JSON value")
}

// literalOf reads an integer literal.
func literalOf(text string) (model.Value, error) {
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, fmt.Errorf("not an integer")
	}
	return starlark.MakeBigInt(n), nil
}

// Runs splits a trace into its runs: the records of a Modex step log carry
// their run's number, and each run is a trace of its own (it starts from
// the initial state). A trace without run numbers is one run.
type Runs struct {
	tr     TraceReader
	peeked *Record
	err    error
	run    int  // the run being read
	ended  bool // the trace is read to its end
	began  bool
}

// SplitRuns reads tr run by run (see Runs).
func SplitRuns(tr TraceReader) *Runs { return &Runs{tr: tr} }

// Next returns a reader of the next run and its number (0: the trace has
// no run numbers), or false after the last run. The previous run's reader
// must have been read to its end (io.EOF) first.
func (s *Runs) Next() (TraceReader, int, bool) {
	if s.began && s.peeked == nil {
		return nil, 0, false
	}
	if !s.began {
		s.began = true
		r, err := s.tr.Next()
		if err == io.EOF {
			// An empty trace is one run, with no events.
			s.ended = true
			return &runReader{s: s}, 0, true
		}
		if err != nil {
			s.err = err
			return &runReader{s: s}, 0, true
		}
		s.peeked = &r
	}
	s.run = s.peeked.Run
	return &runReader{s: s}, s.run, true
}

// runReader reads one run of a Runs.
type runReader struct{ s *Runs }

func (rr *runReader) Next() (Record, error) {
	s := rr.s
	if s.err != nil {
		err := s.err
		s.err = nil
		return Record{}, err
	}
	if s.peeked != nil {
		if s.peeked.Run != s.run {
			return Record{}, io.EOF
		}
		r := *s.peeked
		s.peeked = nil
		return r, nil
	}
	if s.ended {
		return Record{}, io.EOF
	}
	r, err := s.tr.Next()
	if err == io.EOF {
		s.ended = true
		return Record{}, io.EOF
	}
	if err != nil {
		return Record{}, err
	}
	if r.Run != s.run {
		s.peeked = &r
		return Record{}, io.EOF
	}
	return r, nil
}
