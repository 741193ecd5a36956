package scenario

import (
	"fmt"
	"math/big"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/modex/modex/engine/model"
)

// pattern is one action pattern: an action, its arguments (each a value
// or _), and its output when given.
type pattern struct {
	text   string // as written
	action int
	args   []matcher // nil: any arguments
	out    *matcher  // nil: any output
}

// matcher matches one value: any (_), a value (by canonical key), or an
// object by its printed name (Client1).
type matcher struct {
	any  bool
	key  string
	name string
}

func (m *matcher) match(v model.Value) bool {
	switch {
	case m.any:
		return true
	case m.name != "":
		return model.Format(v) == m.name
	}
	k, err := model.Key(v)
	return err == nil && k == m.key
}

// matches reports whether the pattern takes the model's step.
func (pt *pattern) matches(action int, args []model.Value, out model.Value) bool {
	if action != pt.action {
		return false
	}
	if pt.args != nil {
		if len(args) != len(pt.args) {
			return false
		}
		for i := range args {
			if !pt.args[i].match(args[i]) {
				return false
			}
		}
	}
	return pt.out == nil || pt.out.match(out)
}

// pattern := ['?'] Name ['(' args ')'] ['/' value]
func (p *parser) pattern() (*pattern, error) {
	start := p.i
	observable := p.src[p.i] == '?'
	if observable {
		p.i++
	}
	nameAt := p.i
	name := p.ident()
	if name == "" {
		return nil, p.errAt(nameAt, "expected an action name after ?")
	}
	ai := p.info.Action(name)
	if ai < 0 {
		return nil, p.errAt(nameAt, "unknown action %s (the model has %s)", name, actionList(p.info))
	}
	a := p.info.Actions[ai]
	if observable && a.Kind != model.Observable {
		return nil, p.errAt(start, "%s is %s, not observable: write it without ?", name, a.Kind)
	}
	pt := &pattern{action: ai}
	if p.i < len(p.src) && p.src[p.i] == '(' {
		end := closing(p.src, p.i)
		if end > len(p.src) || p.src[end-1] != ')' {
			return nil, p.errAt(p.i, "the arguments of %s are not closed", name)
		}
		offs, texts := splitArgs(p.src[p.i+1:end-1], p.i+1)
		if len(texts) != len(a.Params) {
			return nil, p.errAt(p.i, "wrong arity: %s takes %d argument%s (%s), the pattern gives %d", name, len(a.Params), plural(len(a.Params)), strings.Join(a.Params, ", "), len(texts))
		}
		pt.args = make([]matcher, len(texts))
		for k, t := range texts {
			m, err := p.value(t, offs[k])
			if err != nil {
				return nil, err
			}
			pt.args[k] = m
		}
		p.i = end
	}
	if p.i < len(p.src) && p.src[p.i] == '/' {
		p.i++
		end := literalEnd(p.src, p.i)
		m, err := p.value(p.src[p.i:end], p.i)
		if err != nil {
			return nil, err
		}
		pt.out = &m
		p.i = end
	}
	pt.text = p.src[start:p.i]
	return pt, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func actionList(info *model.ModelInfo) string {
	names := make([]string, len(info.Actions))
	for i, a := range info.Actions {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// value reads an argument or output of a pattern: _, a literal (string,
// number, True, False, None, a tuple or list of them) or an object's name.
// Nothing is evaluated: the literal's syntax is read.
func (p *parser) value(text string, off int) (matcher, error) {
	lead := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	t := strings.TrimSpace(text)
	if t == "_" {
		return matcher{any: true}, nil
	}
	if t == "" {
		return matcher{}, p.errAt(off+lead, "expected a value or _")
	}
	x, err := syntax.ParseExpr("pattern", t, 0)
	if err != nil {
		return matcher{}, p.errAt(off+lead, "%s is not a value: %v", t, unprefixed(err))
	}
	if id, ok := x.(*syntax.Ident); ok && !isConstName(id.Name) {
		return matcher{name: id.Name}, nil
	}
	v, err := literal(x)
	if err != nil {
		return matcher{}, p.errAt(off+lead, "%s: %v", t, err)
	}
	k, err := model.Key(v)
	if err != nil {
		return matcher{}, p.errAt(off+lead, "%s: %v", t, err)
	}
	return matcher{key: k}, nil
}

func isConstName(s string) bool { return s == "True" || s == "False" || s == "None" }

// unprefixed drops the "pattern:1:2: " position of a syntax error.
func unprefixed(err error) string {
	if se, ok := err.(syntax.Error); ok {
		return se.Msg
	}
	return err.Error()
}

// literal builds the value of a literal expression.
func literal(x syntax.Expr) (starlark.Value, error) {
	switch x := x.(type) {
	case *syntax.Literal:
		switch v := x.Value.(type) {
		case string:
			if x.Token == syntax.BYTES {
				return starlark.Bytes(v), nil
			}
			return starlark.String(v), nil
		case int64:
			return starlark.MakeInt64(v), nil
		case *big.Int:
			return starlark.MakeBigInt(v), nil
		case float64:
			return starlark.Float(v), nil
		}
	case *syntax.Ident:
		switch x.Name {
		case "True":
			return starlark.True, nil
		case "False":
			return starlark.False, nil
		case "None":
			return starlark.None, nil
		}
		return nil, fmt.Errorf("an object's name (%s) stands alone, not inside a tuple or list", x.Name)
	case *syntax.ParenExpr:
		return literal(x.X)
	case *syntax.UnaryExpr:
		if x.Op == syntax.MINUS {
			if l, ok := x.X.(*syntax.Literal); ok {
				v, err := literal(l)
				if err != nil {
					return nil, err
				}
				return starlark.Unary(syntax.MINUS, v)
			}
		}
	case *syntax.TupleExpr:
		return literals(x.List, func(vs []starlark.Value) starlark.Value { return starlark.Tuple(vs) })
	case *syntax.ListExpr:
		return literals(x.List, func(vs []starlark.Value) starlark.Value { return starlark.NewList(vs) })
	}
	return nil, fmt.Errorf("only literals are allowed here (strings, numbers, True, False, None, tuples and lists of them, object names, _)")
}

func literals(xs []syntax.Expr, mk func([]starlark.Value) starlark.Value) (starlark.Value, error) {
	vs := make([]starlark.Value, len(xs))
	for i, x := range xs {
		v, err := literal(x)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return mk(vs), nil
}
