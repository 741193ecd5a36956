package projects

import (
	"fmt"
	"strings"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Build compiles a named configuration ("" for the default) against the
// model. Every error names the project file, line and key.
func (p *Project) Build(m model.Model, name string) (*explore.Config, error) {
	if name == "" {
		name = p.Default
	}
	spec, err := p.resolve(name, nil)
	if err != nil {
		return nil, err
	}
	if err := checkComposed(m, spec, name); err != nil {
		return nil, err
	}
	b := builder{p: p, m: m, name: name, spec: spec}
	return b.build()
}

type builder struct {
	p    *Project
	m    model.Model
	name string
	spec *ConfigSpec
}

// at returns the position of a key of this configuration, falling back to the
// configuration it extends.
func (b *builder) at(val bool, path ...string) model.Pos {
	name := b.name
	for name != "" {
		full := append([]string{"configs", name}, path...)
		k := strings.Join(full, "\x00")
		_, isKey := b.p.index.keys[k]
		_, isVal := b.p.index.vals[k]
		if isKey || isVal {
			if val {
				return b.p.index.val(full...)
			}
			return b.p.index.key(full...)
		}
		c := b.p.Configs[name]
		if c == nil {
			break
		}
		name = c.Extends
	}
	return b.p.index.key("configs", b.name)
}

func (b *builder) expr(src string, path ...string) (model.Expr, error) {
	pos := b.at(true, path...)
	if pos.Line > 0 && b.p.index.keys != nil {
		pos.Col++ // skip the opening quote
	}
	return b.m.Compile(src, pos)
}

func (b *builder) build() (*explore.Config, error) {
	cfg := explore.DefaultConfig(b.m)
	steps := []func(*explore.Config) error{b.selection, b.actions, b.expressions, b.bounds, b.search}
	for _, step := range steps {
		if err := step(cfg); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// selection applies include and exclude.
func (b *builder) selection(cfg *explore.Config) error {
	info, s := b.m.Info(), b.spec
	for _, list := range []struct {
		key   string
		names []string
	}{{"include", s.Include}, {"exclude", s.Exclude}} {
		for i, n := range list.names {
			if info.Action(n) < 0 {
				return b.p.errAt(b.at(true, list.key, fmt.Sprint(i)), "unknown action %q in %s (the model has: %s)", n, list.key, actionNames(info))
			}
		}
	}
	if s.Include != nil {
		for i := range cfg.Actions {
			cfg.Actions[i].Exclude = !contains(s.Include, info.Actions[i].Name)
		}
	}
	for _, n := range s.Exclude {
		cfg.Actions[info.Action(n)].Exclude = true
	}
	return nil
}

// actions applies the named domains and the [actions] tables.
func (b *builder) actions(cfg *explore.Config) error {
	info, s := b.m.Info(), b.spec
	named := map[string]model.Expr{}
	for _, dn := range sortedKeys(s.Domains) {
		if !validName(dn) {
			return b.p.errAt(b.at(false, "domains", dn), "domain name %q is not an identifier", dn)
		}
		x, err := b.expr(s.Domains[dn], "domains", dn)
		if err != nil {
			return err
		}
		named[dn] = x
	}
	for _, an := range sortedKeys(s.Actions) {
		ai := info.Action(an)
		if ai < 0 {
			return b.p.errAt(b.at(false, "actions", an), "unknown action %q (the model has: %s)", an, actionNames(info))
		}
		if err := b.action(&cfg.Actions[ai], ai, an, s.Actions[an], named); err != nil {
			return err
		}
	}
	// A parameter named like a named domain uses it by default (per-type
	// domains of seed 001).
	for ai, a := range info.Actions {
		for pi, pn := range a.Params {
			if cfg.Actions[ai].Domains[pi] == nil {
				if x, ok := named[pn]; ok {
					cfg.Actions[ai].Domains[pi] = x
				}
			}
		}
	}
	return nil
}

// action applies one [actions.NAME] table.
func (b *builder) action(ac *explore.ActionConfig, ai int, an string, as *ActionSpec, named map[string]model.Expr) error {
	info := b.m.Info()
	if as.Kind != "" {
		k, ok := model.ParseKind(as.Kind)
		if !ok {
			return b.p.errAt(b.at(true, "actions", an, "kind"), "unknown kind %q (use controllable, observable or internal)", as.Kind)
		}
		ac.Kind = k
	}
	if as.Exclude != nil {
		ac.Exclude = *as.Exclude
	}
	if as.Cleanup != nil {
		ac.Cleanup = *as.Cleanup
	}
	if as.Combine != nil {
		n, err := ParseCombine(as.Combine)
		if err != nil {
			return b.p.errAt(b.at(true, "actions", an, "combine"), "[configs.%s.actions.%s] %v", b.name, an, err)
		}
		ac.Combine = n
	}
	if as.Count != nil {
		if *as.Count < 0 {
			return b.p.errAt(b.at(true, "actions", an, "count"), "count must not be negative")
		}
		ac.Count = *as.Count
	}
	var err error
	if as.Enabled != "" {
		if ac.Enabled, err = b.expr(as.Enabled, "actions", an, "enabled"); err != nil {
			return err
		}
	}
	if as.Weight != "" {
		if ac.Weight, err = b.expr(as.Weight, "actions", an, "weight"); err != nil {
			return err
		}
	}
	for _, pn := range sortedKeys(as.Params) {
		pi := indexOf(info.Actions[ai].Params, pn)
		if pi < 0 {
			return b.p.errAt(b.at(false, "actions", an, "params", pn), "action %s has no parameter %q (it has: %s)", an, pn, strings.Join(info.Actions[ai].Params, ", "))
		}
		src := as.Params[pn]
		if strings.HasPrefix(src, "@") {
			x, ok := named[src[1:]]
			if !ok {
				return b.p.errAt(b.at(true, "actions", an, "params", pn), "unknown named domain %q (declare it under [configs.%s.domains])", src, b.name)
			}
			ac.Domains[pi] = x
			continue
		}
		if ac.Domains[pi], err = b.expr(src, "actions", an, "params", pn); err != nil {
			return err
		}
	}
	return nil
}

// expressions compiles the filters, groupings, accepting, timeout and
// earliest.
func (b *builder) expressions(cfg *explore.Config) error {
	s := b.spec
	for i, f := range s.Filters {
		x, err := b.expr(f, "filters", fmt.Sprint(i))
		if err != nil {
			return err
		}
		cfg.Filters = append(cfg.Filters, x)
	}
	for i, g := range s.Groupings {
		x, err := b.expr(g, "groupings", fmt.Sprint(i))
		if err != nil {
			return err
		}
		cfg.Groupings = append(cfg.Groupings, x)
	}
	var err error
	if s.Accepting != "" {
		if cfg.Accepting, err = b.expr(s.Accepting, "accepting"); err != nil {
			return err
		}
	}
	if s.Timeout != "" {
		if cfg.Timeout, err = b.expr(s.Timeout, "timeout"); err != nil {
			return err
		}
	}
	if s.Earliest != "" {
		if cfg.Earliest, err = b.expr(s.Earliest, "earliest"); err != nil {
			return err
		}
	}
	return nil
}

// bounds applies the switches and the bounds.
func (b *builder) bounds(cfg *explore.Config) error {
	s := b.spec
	switch s.Timeouts {
	case "", "auto":
	case "on":
		cfg.Timeouts = explore.TimeoutOn
	case "off":
		cfg.Timeouts = explore.TimeoutOff
	default:
		return b.p.errAt(b.at(true, "timeouts"), "timeouts must be auto, on or off, not %q", s.Timeouts)
	}
	if s.ModelFilter != nil {
		cfg.NoModelFilter = !*s.ModelFilter
	}
	if s.KeepEmptyPassive != nil {
		cfg.KeepEmptyPassive = *s.KeepEmptyPassive
	}
	if s.StopOnError != nil {
		cfg.StopOnError = *s.StopOnError
	}
	if s.CheckDeadlock != nil {
		cfg.NoDeadlockCheck = !*s.CheckDeadlock
	}
	nonneg := func(v *int, key string, dst *int) error {
		if v == nil {
			return nil
		}
		if *v < 0 {
			return b.p.errAt(b.at(true, key), "%s must not be negative", key)
		}
		*dst = *v
		return nil
	}
	if err := nonneg(s.MaxStates, "max_states", &cfg.MaxStates); err != nil {
		return err
	}
	if err := nonneg(s.MaxTransitions, "max_transitions", &cfg.MaxTransitions); err != nil {
		return err
	}
	if err := nonneg(s.MaxDepth, "max_depth", &cfg.MaxDepth); err != nil {
		return err
	}
	if s.MaxSeconds != nil {
		if *s.MaxSeconds < 0 {
			return b.p.errAt(b.at(true, "max_seconds"), "max_seconds must not be negative")
		}
		cfg.MaxTime = time.Duration(*s.MaxSeconds * float64(time.Second))
	}
	if s.MemoryBudgetMB != nil {
		if *s.MemoryBudgetMB <= 0 {
			return b.p.errAt(b.at(true, "memory_budget_mb"), "memory_budget_mb must be positive")
		}
		cfg.MemoryBudget = uint64(*s.MemoryBudgetMB) << 20
	}
	if s.StepBudget != nil {
		if *s.StepBudget <= 0 {
			return b.p.errAt(b.at(true, "step_budget"), "step_budget must be positive")
		}
		cfg.StepBudget = uint64(*s.StepBudget)
	}
	return nil
}

func actionNames(info *model.ModelInfo) string {
	var ns []string
	for _, a := range info.Actions {
		ns = append(ns, a.Name)
	}
	return strings.Join(ns, ", ")
}

// search applies search, walks, walk_depth and seed (a seed is drawn from
// the clock when none is given: Config.Seed below 0).
func (b *builder) search(cfg *explore.Config) error {
	s := b.spec
	mode, ok := explore.ParseSearch(s.Search)
	if !ok {
		return b.p.errAt(b.at(true, "search"), "search must be bfs or walks, not %q", s.Search)
	}
	cfg.Search = mode
	for _, k := range []struct {
		v   *int
		key string
		dst *int
	}{{s.Walks, "walks", &cfg.Walks}, {s.WalkDepth, "walk_depth", &cfg.WalkDepth}} {
		if k.v == nil {
			continue
		}
		if *k.v < 1 {
			return b.p.errAt(b.at(true, k.key), "%s must be at least 1", k.key)
		}
		*k.dst = *k.v
	}
	cfg.Seed = -1
	if s.Seed != nil {
		if *s.Seed < 0 {
			return b.p.errAt(b.at(true, "seed"), "seed must not be negative")
		}
		cfg.Seed = *s.Seed
	}
	return nil
}
