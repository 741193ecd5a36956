package projects

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
)

// Connect reaches the project's implementation: a TCP address, or an
// adapter command started as a child process. A non-empty command or
// address overrides the project's [adapter] section.
func (p *Project) Connect(ctx context.Context, model, command, address string) (conform.Implementation, error) {
	timeout := 10 * time.Second
	if p.Adapter != nil && p.Adapter.Timeout > 0 {
		timeout = time.Duration(p.Adapter.Timeout * float64(time.Second))
	}
	if address == "" && command == "" && p.Adapter != nil {
		address = p.Adapter.Address
	}
	if address != "" && command == "" {
		return adapter.Dial(ctx, model, address, timeout)
	}
	var argv []string
	if command != "" {
		argv = strings.Fields(command)
	} else if p.Adapter != nil {
		argv = p.Adapter.Command
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s has no [adapter]: name an adapter command or the address of a running adapter", p.Name)
	}
	return adapter.StartProcess(ctx, model, argv, p.AdapterDir(), timeout)
}

// AdapterCommandLine is the project's adapter command as one line ("" when
// it has none).
func (p *Project) AdapterCommandLine() string {
	if p.Adapter == nil {
		return ""
	}
	return strings.Join(p.Adapter.Command, " ")
}
