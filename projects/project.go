// Package projects reads, validates and saves Modex project files (TOML) and
// holds the bundled sample projects.
package projects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Project is a Modex project: a model program plus named configurations.
// The file format is documented in docs/projects.md.
type Project struct {
	Name        string                 `toml:"name"`
	Description string                 `toml:"description,omitempty"`
	Model       string                 `toml:"model"`
	Default     string                 `toml:"default,omitempty"`
	Configs     map[string]*ConfigSpec `toml:"configs,omitempty"`
	Adapter     *AdapterSpec           `toml:"adapter,omitempty"`
	Test        *TestSpec              `toml:"test,omitempty"`
	Replay      *ReplaySpec            `toml:"replay,omitempty"`
	Coverage    *CoverageSpec          `toml:"coverage,omitempty"`

	// Path is the project file (empty for a bare model).
	Path string `toml:"-"`
	// Order lists configuration names in file order.
	Order []string `toml:"-"`
	index posIndex
	// source is the file as read or last saved: saves keep its comments and
	// the formatting of what did not change.
	source []byte
}

// MaxProjectSize bounds a project file.
const MaxProjectSize = 16 << 20

// ConfigSpec is one named configuration: the scenario control of section 4.4
// of seed 000 and the FSM-generation settings of seed 001.
type ConfigSpec struct {
	Description      string                 `toml:"description,omitempty"`
	Extends          string                 `toml:"extends,omitempty"`
	Include          []string               `toml:"include,omitzero"`
	Exclude          []string               `toml:"exclude,omitzero"`
	Domains          map[string]string      `toml:"domains,omitempty"`
	Actions          map[string]*ActionSpec `toml:"actions,omitempty"`
	Filters          []string               `toml:"filters,omitzero"`
	ModelFilter      *bool                  `toml:"model_filter,omitempty"`
	Groupings        []string               `toml:"groupings,omitzero"`
	Accepting        string                 `toml:"accepting,omitempty"`
	Timeout          string                 `toml:"timeout,omitempty"`
	Earliest         string                 `toml:"earliest,omitempty"`
	Timeouts         string                 `toml:"timeouts,omitempty"`
	KeepEmptyPassive *bool                  `toml:"keep_empty_passive,omitempty"`
	StopOnError      *bool                  `toml:"stop_on_error,omitempty"`
	// CheckDeadlock reports states in which nothing is enabled and that
	// are not accepting (default true).
	CheckDeadlock  *bool    `toml:"check_deadlock,omitempty"`
	MaxStates      *int     `toml:"max_states,omitempty"`
	MaxTransitions *int     `toml:"max_transitions,omitempty"`
	MaxDepth       *int     `toml:"max_depth,omitempty"`
	MaxSeconds     *float64 `toml:"max_seconds,omitempty"`
	StepBudget     *int64   `toml:"step_budget,omitempty"`
	// MemoryBudgetMB bounds the heap while the model runs (default: a
	// quarter of the machine's memory).
	MemoryBudgetMB *int `toml:"memory_budget_mb,omitempty"`
	// Check runs modex explore in the checking mode (explore.Check): no
	// graph kept, for state spaces larger than memory.
	Check *bool `toml:"check,omitempty"`
	// Constants set the model's constant(name, default) declarations
	// (integers, strings, booleans); {NAME} in the adapter command is
	// replaced by the value too.
	Constants map[string]any `toml:"constants,omitempty"`
	// Scenarios are regular expressions over action patterns, and
	// ScenarioMachines Starlark files, composed with the model
	// (docs/model-language.md, "Scenarios").
	Scenarios        []string `toml:"scenarios,omitzero"`
	ScenarioMachines []string `toml:"scenario_machines,omitzero"`
	// ScenarioPrefixes accepts every prefix of the regular scenarios: a
	// test may end wherever the model allows.
	ScenarioPrefixes *bool `toml:"scenario_prefixes,omitempty"`
	// Search is "bfs" (breadth-first, the default) or "walks" (directed
	// search: Walks walks of at most WalkDepth steps, drawn from Seed;
	// without a seed, one from the clock).
	Search    string `toml:"search,omitempty"`
	Walks     *int   `toml:"walks,omitempty"`
	WalkDepth *int   `toml:"walk_depth,omitempty"`
	Seed      *int64 `toml:"seed,omitempty"`
}

// ActionSpec is the configuration of one action.
type ActionSpec struct {
	Kind    string            `toml:"kind,omitempty"`
	Exclude *bool             `toml:"exclude,omitempty"`
	Enabled string            `toml:"enabled,omitempty"`
	Params  map[string]string `toml:"params,omitempty"`
	Weight  string            `toml:"weight,omitempty"`
	Count   *int              `toml:"count,omitempty"`
	Cleanup *bool             `toml:"cleanup,omitempty"`
	// Combine combines the parameters' domains n-wise instead of as their
	// full product: "pairwise", "3-wise" or 3, "full" (see ParseCombine).
	Combine any `toml:"combine,omitempty"`
}

// AdapterSpec says how to reach the implementation under test (used by
// online testing and test-suite execution).
type AdapterSpec struct {
	Command []string `toml:"command,omitempty"`
	Dir     string   `toml:"dir,omitempty"`
	Address string   `toml:"address,omitempty"`
	Timeout float64  `toml:"timeout,omitempty"`
}

// TestSpec holds online-testing defaults.
type TestSpec struct {
	Runs       int     `toml:"runs,omitempty"`
	Steps      int     `toml:"steps,omitempty"`
	TotalSteps int     `toml:"total_steps,omitempty"`
	Seed       int64   `toml:"seed,omitempty"`
	Strategy   string  `toml:"strategy,omitempty"`
	EndWait    float64 `toml:"end_wait,omitempty"`
}

// AdapterDir is the folder the adapter command runs in (the adapter's dir,
// relative to the project file).
func (p *Project) AdapterDir() string {
	base := "."
	if p.Path != "" {
		base = filepath.Dir(p.Path)
	}
	if p.Adapter == nil || p.Adapter.Dir == "" {
		return base
	}
	if filepath.IsAbs(p.Adapter.Dir) {
		return p.Adapter.Dir
	}
	return filepath.Join(base, p.Adapter.Dir)
}

// posIndex maps dotted key paths to the positions of their keys and values.
type posIndex struct {
	file string
	keys map[string]model.Pos
	vals map[string]model.Pos
}

func (ix *posIndex) key(path ...string) model.Pos {
	for len(path) > 0 {
		if p, ok := ix.keys[strings.Join(path, "\x00")]; ok {
			return p
		}
		path = path[:len(path)-1]
	}
	return model.Pos{File: ix.file, Line: 1, Col: 1}
}

func (ix *posIndex) val(path ...string) model.Pos {
	if p, ok := ix.vals[strings.Join(path, "\x00")]; ok {
		return p
	}
	return ix.key(path...)
}

func (p *Project) errAt(pos model.Pos, format string, args ...any) error {
	return &model.PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Load reads and validates the structure of a project file. A path ending in
// .star is taken as a bare model used with its own declarations.
func Load(path string) (*Project, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		// A project folder, as go accepts a package folder: its one .toml.
		found, _ := filepath.Glob(filepath.Join(path, "*.toml"))
		if len(found) != 1 {
			return nil, fmt.Errorf("%s is a folder with %d project files (.toml): name the one to open", path, len(found))
		}
		path = found[0]
	}
	if strings.HasSuffix(path, ".star") {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		return ForModel(path), nil
	}
	data, err := model.ReadFileLimited(path, MaxProjectSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// ForModel returns a project for a bare model file with one configuration,
// "default", that uses the model's own declarations.
func ForModel(path string) *Project {
	name := strings.TrimSuffix(filepath.Base(path), ".star")
	p := &Project{Name: name, Model: filepath.Base(path), Default: "default",
		Configs: map[string]*ConfigSpec{"default": {Description: "the model's own declarations"}},
		Order:   []string{"default"}}
	abs, _ := filepath.Abs(path)
	p.Path = filepath.Join(filepath.Dir(abs), name+".modex.toml")
	p.index = posIndex{file: path}
	return p
}

// Parse reads a project from TOML text; path names the file in messages.
func Parse(path string, data []byte) (*Project, error) {
	// A byte-order mark (some Windows editors write one) is not TOML: it
	// is dropped, and saving writes the file without it.
	data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
	ix, order, err := indexTOML(path, data)
	if err != nil {
		return nil, err
	}
	p := &Project{Path: path, index: ix, Order: order, source: data}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, p.decodeErr(err)
	}
	if p.Model == "" {
		return nil, p.errAt(ix.key(), "the project names no model: add model = \"file.star\"")
	}
	if err := p.checkSeconds(); err != nil {
		return nil, err
	}
	if err := p.checkCombine(); err != nil {
		return nil, err
	}
	if len(p.Configs) == 0 {
		p.Configs = map[string]*ConfigSpec{"default": {}}
		p.Order = []string{"default"}
	}
	if p.Default == "" {
		p.Default = p.Order[0]
	}
	if _, ok := p.Configs[p.Default]; !ok {
		return nil, p.errAt(ix.val("default"), "default configuration %q is not defined", p.Default)
	}
	for _, name := range p.Order {
		c := p.Configs[name]
		if c.Extends != "" {
			if _, ok := p.Configs[c.Extends]; !ok {
				return nil, p.errAt(ix.val("configs", name, "extends"), "configuration %q extends unknown configuration %q", name, c.Extends)
			}
		}
	}
	memo := map[string]resolved{}
	for _, name := range p.Order {
		if _, _, err := p.resolveMemo(name, nil, memo); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// MaxSecondsSetting bounds the settings given in seconds (timeouts, waits).
const MaxSecondsSetting = 24 * 3600

// checkSeconds refuses settings in seconds that are not finite numbers
// from 0 to MaxSecondsSetting (TOML's inf and nan among them): an adapter
// timeout of inf must not quietly become another number.
func (p *Project) checkSeconds() error {
	check := func(v float64, what string, at model.Pos) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxSecondsSetting {
			return p.errAt(at, "%s must be a number of seconds from 0 to %d, not %v", what, MaxSecondsSetting, v)
		}
		return nil
	}
	if a := p.Adapter; a != nil {
		if err := check(a.Timeout, "[adapter] timeout", p.index.val("adapter", "timeout")); err != nil {
			return err
		}
	}
	if t := p.Test; t != nil {
		if err := check(t.EndWait, "[test] end_wait", p.index.val("test", "end_wait")); err != nil {
			return err
		}
	}
	for _, name := range p.Order {
		if c := p.Configs[name]; c != nil && c.MaxSeconds != nil {
			if err := check(*c.MaxSeconds, "max_seconds", p.index.val("configs", name, "max_seconds")); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Project) decodeErr(err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		line, col := e.Position()
		return p.errAt(model.Pos{File: p.index.file, Line: line, Col: col}, "unknown key %q (see docs/projects.md for the format)", strings.Join(e.Key(), "."))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if k := de.Key(); len(k) > 0 {
			msg = strings.Join(k, ".") + ": " + msg
		}
		return p.errAt(model.Pos{File: p.index.file, Line: line, Col: col}, "%s", msg)
	}
	return fmt.Errorf("%s: %v", p.index.file, err)
}

// indexTOML records the position of every key and value, and the order of
// the configurations.
// MaxTableKeys bounds the keys of one table of a project file.
const MaxTableKeys = 4096

func indexTOML(file string, data []byte) (posIndex, []string, error) {
	ix := posIndex{file: file, keys: map[string]model.Pos{}, vals: map[string]model.Pos{}}
	var order []string
	seen := map[string]bool{}
	var parser unstable.Parser
	parser.Reset(data)
	// Line starts, once: go-toml's Shape rescans the document from its start
	// for every position, which made indexing quadratic in the file's size.
	lineStarts := []int{0}
	for i, c := range data {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	pos := func(r unstable.Range) model.Pos {
		off := int(r.Offset)
		line := sort.Search(len(lineStarts), func(i int) bool { return lineStarts[i] > off }) // 1-based
		return model.Pos{File: file, Line: line, Col: off - lineStarts[line-1] + 1}
	}
	keyParts := func(n *unstable.Node) ([]string, model.Pos) {
		var parts []string
		var last model.Pos
		it := n.Key()
		for it.Next() {
			k := it.Node()
			last = pos(k.Raw)
			parts = append(parts, string(k.Data))
		}
		return parts, last
	}
	// Keys per table: the TOML decoder checks a key against every key of
	// its table before it, quadratic in their number (80,000 constants: 8
	// s), so a table is bounded before decoding.
	perTable := map[string]int{}
	var tooMany *model.PosError
	var visitKV func(prefix []string, n *unstable.Node)
	visitKV = func(prefix []string, n *unstable.Node) {
		parts, kp := keyParts(n)
		path := append(append([]string{}, prefix...), parts...)
		k := strings.Join(path, "\x00")
		if len(path) > 0 {
			t := strings.Join(path[:len(path)-1], ".")
			if perTable[t]++; perTable[t] > MaxTableKeys && tooMany == nil {
				tooMany = &model.PosError{Pos: kp, Msg: fmt.Sprintf("the table [%s] has more than %d keys", t, MaxTableKeys)}
			}
		}
		ix.keys[k] = kp
		v := n.Value()
		ix.vals[k] = pos(v.Raw)
		if len(path) == 2 && path[0] == "configs" && !seen[path[1]] {
			seen[path[1]] = true
			order = append(order, path[1])
		}
		switch v.Kind {
		case unstable.InlineTable:
			it := v.Children()
			for it.Next() {
				visitKV(path, it.Node())
			}
		case unstable.Array:
			it := v.Children()
			i := 0
			for it.Next() {
				ix.vals[k+"\x00"+fmt.Sprint(i)] = pos(it.Node().Raw)
				i++
			}
		}
	}
	var table []string
	for parser.NextExpression() {
		e := parser.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, kp := keyParts(e)
			table = parts
			ix.keys[strings.Join(parts, "\x00")] = kp
			if len(parts) >= 2 && parts[0] == "configs" && !seen[parts[1]] {
				seen[parts[1]] = true
				order = append(order, parts[1])
			}
		case unstable.KeyValue:
			visitKV(table, e)
		}
	}
	if err := parser.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) && pe.Highlight != nil {
			s := parser.Shape(parser.Range(pe.Highlight))
			return ix, nil, &model.PosError{Pos: model.Pos{File: file, Line: s.Start.Line, Col: s.Start.Column}, Msg: "malformed TOML: " + pe.Message}
		}
		return ix, nil, &model.PosError{Pos: model.Pos{File: file, Line: 1, Col: 1}, Msg: "malformed TOML: " + err.Error()}
	}
	if tooMany != nil {
		return ix, nil, tooMany
	}
	return ix, order, nil
}

// resolve returns the configuration with its extends chain applied.
func (p *Project) resolve(name string, visiting map[string]bool) (*ConfigSpec, error) {
	r, _, err := p.resolveMemo(name, visiting, nil)
	return r, err
}

// MaxExtendsDepth bounds a chain of extends: every use of a configuration
// walks its chain.
const MaxExtendsDepth = 256

// resolved is a configuration with its chain applied, and the chain's
// length.
type resolved struct {
	spec  *ConfigSpec
	depth int
}

// resolveMemo is resolve remembering, in memo (when not nil), the
// configurations resolved: validating every configuration of a chain of
// extends is then linear in its length, not quadratic. It returns the
// chain's length too.
func (p *Project) resolveMemo(name string, visiting map[string]bool, memo map[string]resolved) (*ConfigSpec, int, error) {
	c, ok := p.Configs[name]
	if !ok {
		return nil, 0, fmt.Errorf("%s: no configuration %q (have: %s)", p.index.file, name, strings.Join(p.Order, ", "))
	}
	if c.Extends == "" {
		return c, 0, nil
	}
	if r, ok := memo[name]; ok {
		return r.spec, r.depth, nil
	}
	if visiting == nil {
		visiting = map[string]bool{}
	}
	if visiting[name] {
		return nil, 0, p.errAt(p.index.val("configs", name, "extends"), "configuration %q extends itself (through %q)", name, c.Extends)
	}
	visiting[name] = true
	base, depth, err := p.resolveMemo(c.Extends, visiting, memo)
	if err != nil {
		return nil, 0, err
	}
	if depth++; depth > MaxExtendsDepth {
		return nil, 0, p.errAt(p.index.val("configs", name, "extends"), "the chain of extends through configuration %q is longer than %d", name, MaxExtendsDepth)
	}
	r := mergeSpec(base, c)
	mergeSearch(r, c)
	if memo != nil {
		memo[name] = resolved{r, depth}
	}
	return r, depth, nil
}

// mergeSpec lays c over base: c's settings win, maps are merged key by key.
// mergeMaps returns base with over's keys set over it (a new map).
func mergeMaps[V any](base, over map[string]V) map[string]V {
	out := make(map[string]V, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func mergeSpec(base, c *ConfigSpec) *ConfigSpec {
	out := *base
	out.Description, out.Extends = c.Description, ""
	if c.Include != nil {
		out.Include = c.Include
	}
	if c.Exclude != nil {
		out.Exclude = c.Exclude
	}
	out.Domains = mergeMaps(base.Domains, c.Domains)
	out.Constants = mergeMaps(base.Constants, c.Constants)
	out.Actions = map[string]*ActionSpec{}
	for k, v := range base.Actions {
		out.Actions[k] = v
	}
	for k, v := range c.Actions {
		if b, ok := base.Actions[k]; ok {
			m := *b
			if v.Kind != "" {
				m.Kind = v.Kind
			}
			if v.Exclude != nil {
				m.Exclude = v.Exclude
			}
			if v.Enabled != "" {
				m.Enabled = v.Enabled
			}
			if v.Weight != "" {
				m.Weight = v.Weight
			}
			if v.Count != nil {
				m.Count = v.Count
			}
			if v.Cleanup != nil {
				m.Cleanup = v.Cleanup
			}
			if v.Combine != nil {
				m.Combine = v.Combine
			}
			m.Params = map[string]string{}
			for pk, pv := range b.Params {
				m.Params[pk] = pv
			}
			for pk, pv := range v.Params {
				m.Params[pk] = pv
			}
			out.Actions[k] = &m
		} else {
			out.Actions[k] = v
		}
	}
	if c.Filters != nil {
		out.Filters = c.Filters
	}
	if c.Groupings != nil {
		out.Groupings = c.Groupings
	}
	mergeScenarios(&out, c)
	pick := func(a, b string) string {
		if b != "" {
			return b
		}
		return a
	}
	out.Accepting = pick(base.Accepting, c.Accepting)
	out.Timeout = pick(base.Timeout, c.Timeout)
	out.Earliest = pick(base.Earliest, c.Earliest)
	out.Timeouts = pick(base.Timeouts, c.Timeouts)
	if c.ModelFilter != nil {
		out.ModelFilter = c.ModelFilter
	}
	if c.KeepEmptyPassive != nil {
		out.KeepEmptyPassive = c.KeepEmptyPassive
	}
	if c.StopOnError != nil {
		out.StopOnError = c.StopOnError
	}
	if c.CheckDeadlock != nil {
		out.CheckDeadlock = c.CheckDeadlock
	}
	if c.MaxStates != nil {
		out.MaxStates = c.MaxStates
	}
	if c.MaxTransitions != nil {
		out.MaxTransitions = c.MaxTransitions
	}
	if c.MaxDepth != nil {
		out.MaxDepth = c.MaxDepth
	}
	if c.MaxSeconds != nil {
		out.MaxSeconds = c.MaxSeconds
	}
	if c.StepBudget != nil {
		out.StepBudget = c.StepBudget
	}
	if c.MemoryBudgetMB != nil {
		out.MemoryBudgetMB = c.MemoryBudgetMB
	}
	return &out
}

// mergeSearch lays c's search settings over out's: breadth-first or
// directed, and the checking mode.
func mergeSearch(out, c *ConfigSpec) {
	if c.Check != nil {
		out.Check = c.Check
	}
	if c.Search != "" {
		out.Search = c.Search
	}
	if c.Walks != nil {
		out.Walks = c.Walks
	}
	if c.WalkDepth != nil {
		out.WalkDepth = c.WalkDepth
	}
	if c.Seed != nil {
		out.Seed = c.Seed
	}
}

// ModelPath is the model file, resolved against the project's folder.
func (p *Project) ModelPath() string {
	if filepath.IsAbs(p.Model) || p.Path == "" {
		return p.Model
	}
	return filepath.Join(filepath.Dir(p.Path), p.Model)
}

// LoadModel loads the project's model program.
func (p *Project) LoadModel() (*model.StarModel, error) {
	return p.loadModel(model.LoadOptions{})
}

func (p *Project) loadModel(opts model.LoadOptions) (*model.StarModel, error) {
	m, err := model.LoadStarlarkOptions(p.ModelPath(), nil, opts)
	if err != nil {
		var pe *model.PosError
		if errors.As(err, &pe) || opts.Context != nil && opts.Context.Err() != nil || errors.Is(err, model.ErrMemoryBudget) {
			return nil, err
		}
		return nil, p.errAt(p.index.val("model"), "%v", err)
	}
	return m, nil
}

// LoadModelFor loads the project's model with a configuration's constants
// ([configs.NAME.constants]); without constants it is LoadModel. Every
// constant must be declared by the model, with a value of its default's
// type; errors name the project file's position.
func (p *Project) LoadModelFor(config string) (*model.StarModel, error) {
	return p.LoadModelWorkers(config, 0)
}

// LoadModelWorkers is LoadModelFor with init() on at most workers
// goroutines (0: the number of CPUs; see model.LoadOptions).
func (p *Project) LoadModelWorkers(config string, workers int) (*model.StarModel, error) {
	return p.LoadModelContext(context.Background(), config, workers)
}

// LoadModelContext is LoadModelWorkers whose model code stops when ctx
// ends (Ctrl-C during a long init()), when the configuration's
// max_seconds run out or when its memory budget is exceeded: the error then
// wraps the context's cause or model.ErrMemoryBudget.
func (p *Project) LoadModelContext(ctx context.Context, config string, workers int) (*model.StarModel, error) {
	opts := model.LoadOptions{Workers: workers, Context: ctx}
	var spec *ConfigSpec
	if config != "" {
		var err error
		if spec, err = p.resolve(config, nil); err != nil {
			return nil, err
		}
		if spec.MemoryBudgetMB != nil && *spec.MemoryBudgetMB > 0 {
			opts.MemoryBudget = uint64(*spec.MemoryBudgetMB) << 20
		}
		if spec.MaxSeconds != nil && *spec.MaxSeconds > 0 {
			// max_seconds bounds the load too: init() may be the slow part
			var cancel context.CancelFunc
			opts.Context, cancel = context.WithTimeout(ctx, time.Duration(*spec.MaxSeconds*float64(time.Second)))
			defer cancel()
		}
	}
	m, err := p.loadModel(opts)
	if err != nil || spec == nil {
		return m, err
	}
	if len(spec.Constants) == 0 {
		return p.composed(m, config, spec)
	}
	given := map[string]model.Value{}
	for _, name := range sortedKeys(spec.Constants) {
		at := p.index.val("configs", config, "constants", name)
		var decl *model.Constant
		for i, c := range m.Info().Constants {
			if c.Name == name {
				decl = &m.Info().Constants[i]
			}
		}
		if decl == nil {
			return nil, p.errAt(at, "constant %s: the model declares no constant(%q, default)", name, name)
		}
		v, err := tomlValue(spec.Constants[name])
		if err != nil {
			return nil, p.errAt(at, "constant %s: %v", name, err)
		}
		if v.Type() != decl.Default.Type() {
			return nil, p.errAt(at, "constant %s must be a %s like its default %s, not a %s", name, decl.Default.Type(), model.Format(decl.Default), v.Type())
		}
		given[name] = v
	}
	opts.Constants = given
	if m, err = model.LoadStarlarkOptions(p.ModelPath(), nil, opts); err != nil {
		return nil, err
	}
	return p.composed(m, config, spec)
}

// tomlValue converts a TOML value of a constant to a model value.
func tomlValue(x any) (model.Value, error) {
	switch v := x.(type) {
	case int64:
		return model.Int(int(v)), nil
	case string:
		return model.Str(v), nil
	case bool:
		return starlark.Bool(v), nil
	}
	return nil, fmt.Errorf("a constant is an integer, a string or a boolean, not %T", x)
}

// ConfigNames lists the configurations in file order.
func (p *Project) ConfigNames() []string { return append([]string(nil), p.Order...) }

func contains(xs []string, x string) bool { return indexOf(xs, x) >= 0 }

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Resolve returns the named configuration with its extends chain applied.
func (p *Project) Resolve(name string) (*ConfigSpec, error) { return p.resolve(name, nil) }
