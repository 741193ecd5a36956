package projects

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/explore"
)

// ParseCombine reads an action's combine setting: "pairwise" (2), an
// n-wise strength as "3-wise", "3" or the integer 3 (from 2 to
// explore.MaxCombine), or "full" (also "full product", "1-wise" or 1: the
// full product of the domains, to override a combination inherited with
// extends). Unset (nil) is 0, the full product too. It gives the
// explore.ActionConfig.Combine of the setting.
func ParseCombine(v any) (int, error) {
	bad := func() (int, error) {
		return 0, fmt.Errorf(`combine must be "pairwise", "full" or a strength from 2 to %d ("3-wise" or 3), not %s`, explore.MaxCombine, describeTOML(v))
	}
	var n int64
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		n = x
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		switch s {
		case "pairwise":
			return 2, nil
		case "full", "full product", "product":
			return 1, nil
		}
		digits := strings.TrimSuffix(s, "-wise")
		if len(digits) == 0 || len(digits) > 2 || strings.TrimLeft(digits, "0123456789") != "" {
			return bad()
		}
		n, _ = strconv.ParseInt(digits, 10, 64)
	default:
		return bad()
	}
	if n < 1 || n > explore.MaxCombine {
		return bad()
	}
	return int(n), nil
}

// CombineSetting is the combine setting that ParseCombine reads as n:
// "full" (for 1 or less), "pairwise" or "3-wise".
func CombineSetting(n int) string {
	if n < 2 {
		return "full"
	}
	return explore.CombineWords(n)
}

// describeTOML shows a TOML value in a message: a string quoted, another
// value with its type.
func describeTOML(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64, float64, bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// checkCombine refuses, at the setting's position, an action's combine
// that ParseCombine does not read.
func (p *Project) checkCombine() error {
	for _, name := range p.Order {
		c := p.Configs[name]
		if c == nil {
			continue
		}
		for _, an := range sortedKeys(c.Actions) {
			as := c.Actions[an]
			if as == nil {
				continue
			}
			if _, err := ParseCombine(as.Combine); err != nil {
				at := p.index.val("configs", name, "actions", an, "combine")
				switch as.Combine.(type) {
				case []any, map[string]any:
					at = p.index.key("configs", name, "actions", an, "combine") // the index has no position of the value
				}
				return p.errAt(at, "[configs.%s.actions.%s] %v", name, an, err)
			}
		}
	}
	return nil
}
