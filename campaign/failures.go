package campaign

// Every failure of a campaign can be opened. The coordinator keeps each
// failure whole on disk as it arrives, a file per failure written under a
// temporary name and renamed (never a half-written file), and the first
// MaxDetailedFailures whole in memory too; Failure.Load reads the others
// back. A failure too big for its result's message travels apart: its
// worker sends its details gzip-compressed, cut into parts that each fit a
// message, before the result, which names them by their SHA-256.

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/projects"
)

// Bounds of the failures a coordinator keeps on disk, per campaign: at most
// MaxKeptFailures files and maxKeptBytes in all. The failures beyond are
// kept in memory without their runs, and Failure.Lost says so (their
// choices come again with their seed).
const (
	MaxKeptFailures = 20_000
	maxKeptBytes    = 1 << 30
)

// Bounds of a failure's details sent apart: maxDetail bytes compressed (a
// worker sheds the path, the shrunk run, then the report of a failure whose
// details are bigger), in at most maxParts parts; maxFailureFile bounds a
// failure read back, from its parts or its file.
const (
	maxDetail      = 16 << 20
	maxParts       = 1 << 14
	maxFailureFile = 4 * conform.MaxRunFile
)

// maxPartBytes bounds the parts a coordinator holds for results not yet
// arrived; parts beyond are dropped (their failures' runs are then lost).
const maxPartBytes = 256 << 20

// maxLightMessage bounds the message of a failure whose details are sent
// apart (the whole message is in the details).
const maxLightMessage = 2000

// failureKeepDays is how long the default folder keeps a campaign's
// failures after its last one arrived (the results stream keeps a week).
const failureKeepDays = 7

// Detail names a failure's details (saved run, report, path, shrunk run)
// sent apart from its result: the SHA-256 (hex) and size of their
// gzip-compressed JSON, and the number of parts it was cut into.
type Detail struct {
	Sum   string `json:"sum"`
	Size  int    `json:"size"`
	Parts int    `json:"parts"`
}

// runPart is a message with a part of a failure's details (its JSON starts
// with "part", a result's never does).
type runPart struct {
	Part partOf `json:"part"`
	Data []byte `json:"data"`
}

// partOf says which failure's details a part belongs to, and where.
type partOf struct {
	Campaign string `json:"campaign"`
	Job      int    `json:"job"`
	Seed     uint64 `json:"seed"`
	Sum      string `json:"sum"`
	Index    int    `json:"index"`
	Count    int    `json:"count"`
}

// isPart tells a part's message from a result's.
func isPart(data []byte) bool { return bytes.HasPrefix(data, []byte(`{"part":`)) }

// shedders take a failure's details away one kind at a time, the least
// needed first; each says whether it took anything.
var shedders = []func(f *Failure) bool{
	func(f *Failure) bool { ok := f.Path != nil; f.Path = nil; return ok },
	func(f *Failure) bool { ok := f.Shrunk != nil; f.Shrunk = nil; return ok },
	func(f *Failure) bool { ok := f.Report != ""; f.Report = ""; return ok },
	func(f *Failure) bool { ok := f.Saved != nil; f.Saved = nil; return ok },
}

// pack encodes a result within limit bytes (the server's message size). A
// result too big whole has its failures' details sent apart, last failures
// first, until it fits: the parts returned, to be published before it. A
// result still too big (thousands of failures) is cut as fit does.
func pack(res *Result, limit int) ([]byte, []runPart) {
	data, _ := json.Marshal(res)
	budget := limit - 1024 // the message's headers
	chunk := (budget - 1024) * 3 / 4
	if len(data) <= budget || chunk < 1024 {
		return fit(res, limit), nil
	}
	size := len(data)
	var parts []runPart
	for i := len(res.Failures) - 1; i >= 0 && size > budget; i-- {
		f := &res.Failures[i]
		before := jsonSize(f)
		light, chunks := detach(*f, chunk)
		*f = light
		size += jsonSize(f) - before
		for k, c := range chunks {
			parts = append(parts, runPart{Part: partOf{Campaign: res.Campaign, Job: res.Job, Seed: f.Seed, Sum: light.Detail.Sum,
				Index: k, Count: len(chunks)}, Data: c})
		}
	}
	data, _ = json.Marshal(res)
	if len(data) <= budget {
		return data, parts
	}
	data = fit(res, limit)
	kept := map[uint64]bool{}
	for _, f := range res.Failures {
		kept[f.Seed] = true
	}
	var left []runPart
	for _, p := range parts {
		if kept[p.Part.Seed] {
			left = append(left, p)
		}
	}
	return data, left
}

// jsonSize is the size of a failure in JSON.
func jsonSize(f *Failure) int {
	b, _ := json.Marshal(f)
	return len(b)
}

// detach returns a failure without its details, which it names, and the
// details (gzip-compressed JSON) cut into chunks of at most chunk bytes.
// Details over maxDetail shed their path, shrunk run and report first;
// those still over are not sent (the failure comes without its run).
func detach(f Failure, chunk int) (Failure, [][]byte) {
	light := Failure{Seed: f.Seed, Kind: f.Kind, Step: f.Step, Message: cut(f.Message, maxLightMessage), Worker: f.Worker,
		ShrunkNote: cut(f.ShrunkNote, maxLightMessage), ShrunkSteps: f.ShrunkSteps}
	if f.Saved == nil {
		return light, nil
	}
	f.Detail = nil
	blob := compressed(&f)
	for _, shed := range shedders[:3] {
		if len(blob) <= maxDetail {
			break
		}
		if shed(&f) {
			blob = compressed(&f)
		}
	}
	if len(blob) > maxDetail {
		return light, nil
	}
	sum := sha256.Sum256(blob)
	var chunks [][]byte
	for i := 0; i < len(blob); i += chunk {
		chunks = append(chunks, blob[i:min(i+chunk, len(blob))])
	}
	light.Detail = &Detail{Sum: hex.EncodeToString(sum[:]), Size: len(blob), Parts: len(chunks)}
	return light, chunks
}

// compressed is a failure as gzip-compressed JSON.
func compressed(f *Failure) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	json.NewEncoder(zw).Encode(f)
	zw.Close()
	return b.Bytes()
}

// partial is a failure's details as their parts arrive.
type partial struct {
	count int
	parts map[int][]byte
	bytes int
}

// partKey names a failure's details: its seed and their SHA-256, which
// the result names (the parts of any trusted worker that match count).
type partKey struct {
	seed uint64
	sum  string
}

// takePart keeps a part of a failure's details until its result comes,
// when it is signed by a trusted worker, of this campaign and one of its
// jobs not done yet, within the bounds on parts held.
func (st *state) takePart(h nats.Header, data []byte) {
	signer, err := verify(h, data, st.trust)
	var p runPart
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err == nil && p.Part.Campaign != st.id {
		return // another campaign's, on a shared stream
	}
	if err == nil {
		err = st.checkPart(&p.Part, len(p.Data))
	}
	if err != nil {
		st.untrusted(signer, err)
		return
	}
	at := p.Part
	if st.isDone(at.Job) || st.partBytes+len(p.Data) > maxPartBytes {
		return // a copy after its result, or too much held: its run is lost
	}
	if st.parts == nil {
		st.parts = map[int]map[partKey]*partial{}
	}
	byJob := st.parts[at.Job]
	if byJob == nil {
		byJob = map[partKey]*partial{}
		st.parts[at.Job] = byJob
	}
	key := partKey{at.Seed, at.Sum}
	pa := byJob[key]
	if pa == nil {
		pa = &partial{count: at.Count, parts: map[int][]byte{}}
		byJob[key] = pa
	}
	if pa.count != at.Count || pa.parts[at.Index] != nil {
		return
	}
	pa.parts[at.Index] = p.Data
	pa.bytes += len(p.Data)
	st.partBytes += len(p.Data)
}

// checkPart refuses a part that names no run of the campaign's jobs or
// is out of bounds.
func (st *state) checkPart(p *partOf, size int) error {
	if p.Job < 0 || p.Job >= st.jobs {
		return fmt.Errorf("a part for job %d, which the campaign does not have", p.Job)
	}
	job := st.spec.job(st.id, st.hash, p.Job, 0)
	if p.Seed < job.Seed || p.Seed-job.Seed >= uint64(job.Runs) || p.Count < 1 || p.Count > maxParts ||
		p.Index < 0 || p.Index >= p.Count || len(p.Sum) != 2*sha256.Size || size == 0 {
		return fmt.Errorf("a part for job %d that is not one of a failure's (seed %d, part %d of %d)", p.Job, p.Seed, p.Index, p.Count)
	}
	return nil
}

// resolve puts back the details of a result's failures sent apart, from
// the parts held, and lets go of the parts of its job; a failure whose
// details did not come whole says why in Lost.
func (st *state) resolve(r *Result) {
	byJob := st.parts[r.Job]
	delete(st.parts, r.Job)
	for _, pa := range byJob {
		st.partBytes -= pa.bytes
	}
	for i := range r.Failures {
		f := &r.Failures[i]
		d := f.Detail
		f.Detail = nil
		if d == nil {
			continue
		}
		whole, err := assemble(byJob[partKey{f.Seed, d.Sum}], d)
		if err == nil && (whole.Seed != f.Seed || whole.Kind != f.Kind) {
			err = fmt.Errorf("they are those of another failure (seed %d, %s)", whole.Seed, cut(whole.Kind, 40))
		}
		if err != nil {
			f.Lost = "its run, too big for the result's message, did not arrive whole: " + err.Error()
			continue
		}
		whole.Detail = nil
		*f = whole
	}
}

// assemble makes a failure from its details' parts, checked against
// what the result says of them.
func assemble(pa *partial, d *Detail) (Failure, error) {
	switch {
	case pa == nil:
		return Failure{}, errors.New("none of its parts came (its worker stopped before sending them, or too many were waiting)")
	case pa.count != d.Parts || len(pa.parts) != d.Parts:
		return Failure{}, fmt.Errorf("%d of its %d parts came", len(pa.parts), d.Parts)
	case pa.bytes != d.Size || d.Size > maxDetail:
		return Failure{}, fmt.Errorf("its parts make %d bytes, not %d", pa.bytes, d.Size)
	}
	blob := make([]byte, 0, pa.bytes)
	for i := range pa.count {
		blob = append(blob, pa.parts[i]...)
	}
	if sum := sha256.Sum256(blob); hex.EncodeToString(sum[:]) != d.Sum {
		return Failure{}, errors.New("its parts do not match the SHA-256 its result names")
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return Failure{}, err
	}
	var f Failure
	if err := decodeFailure(zr, &f); err != nil {
		return Failure{}, err
	}
	return f, nil
}

// decodeFailure reads a failure's JSON, at most maxFailureFile bytes.
func decodeFailure(r io.Reader, f *Failure) error {
	data, err := io.ReadAll(io.LimitReader(r, maxFailureFile+1))
	if err != nil {
		return err
	}
	if len(data) > maxFailureFile {
		return fmt.Errorf("a failure is at most %d MiB", maxFailureFile>>20)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return fmt.Errorf("not a campaign failure: %v", err)
	}
	return nil
}

// failureStore keeps a campaign's failures whole on disk, a file each.
type failureStore struct {
	dir   string
	err   error // why nothing is kept (the folder could not be made)
	kept  int
	bytes int64
}

// campaignName matches the folders of campaigns' failures.
var campaignName = regexp.MustCompile(`^c[0-9a-f]{16}(-[0-9]+)?$`)

// openStore makes campaign id's folder of failures under parent (""
// modex/campaign-failures in the user's cache folder, where the folders of
// campaigns whose last failure is more than failureKeepDays old go).
func openStore(parent, id string) *failureStore {
	prune := parent == ""
	if prune {
		cache, err := os.UserCacheDir()
		if err != nil {
			return &failureStore{err: fmt.Errorf("no folder to keep it in: %v", err)}
		}
		parent = filepath.Join(cache, "modex", "campaign-failures")
	}
	dir := filepath.Join(parent, id)
	// The failing runs hold the implementation's outputs: the owner's.
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.Chmod(dir, 0o700)
	}
	if err != nil {
		return &failureStore{err: err}
	}
	if prune {
		pruneFailures(parent, id)
	}
	return &failureStore{dir: dir}
}

// pruneFailures removes the folders of other campaigns' failures under
// parent that did not change for failureKeepDays.
func pruneFailures(parent, keep string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep || !campaignName.MatchString(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > failureKeepDays*24*time.Hour {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// keep writes a failure whole (seedN.json in the store's folder, which
// appears whole or not at all) and sets its File, or its Lost when its run
// cannot be kept; false when it is lost.
func (fs *failureStore) keep(f *Failure) bool {
	switch {
	case f.Lost != "":
		return false
	case f.Saved == nil:
		f.Lost = "its worker did not send its run (too big for the server's messages)"
		return false
	case fs.err != nil:
		f.Lost = "its run could not be kept: " + fs.err.Error()
		return false
	case fs.kept >= MaxKeptFailures || fs.bytes >= maxKeptBytes:
		f.Lost = fmt.Sprintf("a campaign keeps the runs of its first %d failures (%d MiB) on disk, not this one", MaxKeptFailures, maxKeptBytes>>20)
		return false
	}
	if _, err := conform.ReadSavedRun(bytes.NewReader(f.Saved)); err != nil {
		f.Lost = "its worker sent a saved run that does not read back: " + err.Error()
		return false
	}
	data, err := json.Marshal(f)
	if err != nil {
		f.Lost = "its run could not be kept: " + err.Error()
		return false
	}
	file := filepath.Join(fs.dir, fmt.Sprintf("seed%d.json", f.Seed))
	if err := projects.WriteFileAtomic(file, data); err != nil {
		f.Lost = "its run could not be kept: " + err.Error()
		return false
	}
	f.File = file
	fs.kept++
	fs.bytes += int64(len(data))
	return true
}

// Load returns the failure whole: itself when it holds its saved run, else
// as the coordinator kept it in its file. The error says why its run
// cannot be had (its Lost, a file gone); its choices then come again with
// its seed (projects.SameChoicesCommand).
func (f Failure) Load() (Failure, error) {
	if len(f.Saved) > 0 {
		return f, nil
	}
	if f.File == "" {
		if f.Lost != "" {
			return f, errors.New(f.Lost)
		}
		return f, errors.New("its run was not kept")
	}
	whole, err := LoadFailure(f.File)
	if err != nil {
		return f, err
	}
	if whole.Seed != f.Seed {
		return f, fmt.Errorf("%s holds the failure of seed %d, not %d", f.File, whole.Seed, f.Seed)
	}
	whole.Worker, whole.File = f.Worker, f.File
	return whole, nil
}

// LoadFailure reads a failure a coordinator kept whole (a file of its
// campaign's folder, see Spec.FailuresDir), checking its saved run.
func LoadFailure(file string) (Failure, error) {
	fh, err := os.Open(file)
	if err != nil {
		return Failure{}, err
	}
	defer fh.Close()
	f, _, err := ReadFailure(fh)
	if err != nil {
		return Failure{}, fmt.Errorf("%s: %w", file, err)
	}
	return f, nil
}

// ReadFailure reads a failure kept whole by a coordinator and its saved
// run (modex test --rerun takes such a file as a saved run).
func ReadFailure(r io.Reader) (Failure, *conform.SavedRun, error) {
	var f Failure
	if err := decodeFailure(r, &f); err != nil {
		return Failure{}, nil, err
	}
	saved, err := conform.ReadSavedRun(bytes.NewReader(f.Saved))
	if err != nil {
		return Failure{}, nil, fmt.Errorf("its saved run: %w", err)
	}
	f.Detail = nil
	return f, saved, nil
}
