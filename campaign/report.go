package campaign

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// String is the campaign's summary line, as modex campaign prints it; the
// workers' names (a worker names itself in its results) are escaped for a
// terminal (safetext.Term).
func (s *Summary) String() string {
	var workers []string
	for w, n := range s.Workers {
		workers = append(workers, fmt.Sprintf("%s %d", safetext.Term(w), n))
	}
	sort.Strings(workers)
	untrusted := ""
	if s.Untrusted > 0 {
		untrusted = fmt.Sprintf(", %d results from untrusted senders ignored", s.Untrusted)
	}
	expired := ""
	if s.Expired > 0 {
		expired = fmt.Sprintf(" (%d expired)", s.Expired)
	}
	return fmt.Sprintf("campaign %s: %d of %d jobs done, %d given up%s, %d duplicate results dropped%s; %d runs: %s; %d steps; %s; %.1f s (%.0f runs/s); jobs per worker: %s",
		safetext.Term(s.Campaign), s.Done, s.Jobs, s.GivenUp, expired, s.Duplicates, untrusted, s.Runs, s.Tally, s.Steps,
		s.Covered.Coverage(s.Size), s.Seconds, float64(s.Runs)/max(s.Seconds, 0.001), strings.Join(workers, ", ")) + s.codeNote() + s.skippedNote()
}

// codeNote is the implementation's code coverage the workers measured
// ("" when the campaign did not measure it).
func (s *Summary) codeNote() string {
	if c, _ := s.Code.Summary(); c.Total > 0 {
		return "; code coverage of the implementation: " + c.String()
	}
	if s.CodeNote != "" {
		return "; no code coverage: " + s.CodeNote
	}
	return ""
}

// skippedNote names the actions the workers' adapters do not implement
// ("" when none), after the summary.
func (s *Summary) skippedNote() string {
	var skips []conform.Skip
	for _, name := range s.Skipped {
		skips = append(skips, conform.Skip{Action: name})
	}
	if note := conform.SkippedNote(skips); note != "" {
		return "; " + safetext.Term(note)
	}
	return ""
}

// SaveFailure writes a failure's saved run (checked as a saved run first)
// as PROJECT-CONFIG-campaign-seedN.json in dir ("" : the project's
// failures folder in the user's cache) and returns the file's path, for
// modex test --rerun.
func SaveFailure(project, config, dir string, f Failure) (string, error) {
	return saveRun(project, config, dir, f.Seed, "", f.Saved)
}

// SaveShrunk writes the shrunk run of a failure next to its saved run
// (…-seedN-shrunk.json); an error when the failure has none.
func SaveShrunk(project, config, dir string, f Failure) (string, error) {
	if f.Shrunk == nil {
		return "", fmt.Errorf("the failure of seed %d was not shrunk", f.Seed)
	}
	return saveRun(project, config, dir, f.Seed, "-shrunk", f.Shrunk)
}

func saveRun(project, config, dir string, seed uint64, suffix string, data []byte) (string, error) {
	saved, err := conform.ReadSavedRun(strings.NewReader(string(data)))
	if err != nil {
		return "", fmt.Errorf("the failure's saved run: %w", err)
	}
	if dir == "" {
		if dir, err = projects.FailuresDir(project); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := saved.Write(&b); err != nil {
		return "", err
	}
	return projects.WriteNew(dir, fmt.Sprintf("%s-%s-campaign-seed%d%s", projects.SafeName(project), projects.SafeName(config), seed, suffix), ".json", []byte(b.String()))
}
