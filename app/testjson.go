package main

import (
	"encoding/json"
	"io"

	"github.com/modex/modex/engine/codecov"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/projects"
)

// TestReportFormat names the JSON document modex test --format json writes.
const TestReportFormat = "modex-test/1"

// jsonTest is modex test's report as JSON: the test, each run and the
// summary, with the model's coverage and the implementation's code
// coverage (per run when measured after it, and in all).
type jsonTest struct {
	Format   string    `json:"format"`
	Project  string    `json:"project"`
	Config   string    `json:"config"`
	Seed     uint64    `json:"seed"`
	Strategy string    `json:"strategy"`
	Runs     []jsonRun `json:"runs"`
	Summary  jsonSum   `json:"summary"`
}

type jsonRun struct {
	Run     int          `json:"run"`
	Seed    uint64       `json:"seed"`
	Verdict string       `json:"verdict"`
	Steps   int          `json:"steps"`
	Reason  string       `json:"reason,omitempty"`
	Failure *jsonFailure `json:"failure,omitempty"`
	// Code is the code coverage reached by this run and those before it
	// (cumulative), when it was measured after this run.
	Code *jsonCode `json:"code,omitempty"`
}

type jsonFailure struct {
	Kind    string `json:"kind"`
	Step    int    `json:"step"`
	Message string `json:"message"`
}

type jsonCode struct {
	Reached int        `json:"reached"`
	Total   int        `json:"total"`
	Percent float64    `json:"percent"`
	Files   []jsonFile `json:"files,omitempty"`
}

type jsonFile struct {
	File    string  `json:"file"`
	Reached int     `json:"reached"`
	Total   int     `json:"total"`
	Percent float64 `json:"percent"`
}

type jsonSum struct {
	Pass           int       `json:"pass"`
	Fail           int       `json:"fail"`
	Inconclusive   int       `json:"inconclusive"`
	ModelError     int       `json:"model_error,omitempty"`
	Steps          int       `json:"steps"`
	States         int       `json:"states"`
	Transitions    int       `json:"transitions"`
	Seconds        float64   `json:"seconds"`
	Halt           string    `json:"halt,omitempty"`
	NotImplemented []string  `json:"not_implemented,omitempty"`
	Code           *jsonCode `json:"code,omitempty"`
}

func codeOf(c codecov.Count, files []codecov.FileCount) *jsonCode {
	j := &jsonCode{Reached: c.Reached, Total: c.Total, Percent: c.Percent()}
	for _, f := range files {
		j.Files = append(j.Files, jsonFile{File: f.File, Reached: f.Reached, Total: f.Total, Percent: f.Percent()})
	}
	return j
}

// writeTestJSON writes the test's JSON report (w nil: none); codes are the
// runs' code coverage where measured (by run number).
func writeTestJSON(w io.Writer, project, config string, tc conform.TestConfig, res *conform.TestResult, codes map[int]codecov.Count, cov *projects.Coverage) error {
	if w == nil {
		return nil
	}
	doc := jsonTest{Format: TestReportFormat, Project: project, Config: config, Seed: tc.Seed, Strategy: string(tc.Strategy), Runs: []jsonRun{}}
	counts := conform.Tally{}
	for _, r := range res.Runs {
		counts[r.Verdict]++
		jr := jsonRun{Run: r.Run, Seed: r.Seed, Verdict: string(r.Verdict), Steps: r.Actions, Reason: r.Reason}
		if f := r.Failure; f != nil {
			jr.Failure = &jsonFailure{Kind: string(f.Kind), Step: f.Step, Message: f.Message}
		}
		if c, ok := codes[r.Run]; ok {
			jr.Code = codeOf(c, nil)
		}
		doc.Runs = append(doc.Runs, jr)
	}
	doc.Summary = jsonSum{Pass: counts[conform.Pass], Fail: counts[conform.Fail], Inconclusive: counts[conform.Inconclusive], ModelError: counts[conform.ModelError],
		Steps: res.Steps, States: res.States, Transitions: res.Transitions, Seconds: res.Seconds}
	if res.Halt != nil {
		doc.Summary.Halt = res.Halt.Why()
	}
	for _, sk := range res.Skipped {
		doc.Summary.NotImplemented = append(doc.Summary.NotImplemented, sk.Action)
	}
	if cov != nil {
		if c, files := cov.Profile.Summary(); c.Total > 0 {
			doc.Summary.Code = codeOf(c, files)
		}
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(doc)
}
