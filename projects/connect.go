package projects

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// Connect reaches the project's implementation for a loaded model: a TCP
// address, or an adapter command started as a child process. A non-empty
// command or address overrides the project's [adapter] section. In the
// command, {NAME} stands for the value of the model's constant NAME in this
// load (a configuration's [constants]), so that the model and the
// implementation get it from one place.
func (p *Project) Connect(ctx context.Context, info *model.ModelInfo, command, address string) (conform.Implementation, error) {
	return p.connect(ctx, info, command, address)
}

func (p *Project) connect(ctx context.Context, info *model.ModelInfo, command, address string, opts ...adapter.Option) (conform.Implementation, error) {
	timeout := 10 * time.Second
	if p.Adapter != nil && p.Adapter.Timeout > 0 {
		timeout = time.Duration(p.Adapter.Timeout * float64(time.Second))
	}
	argv, dir, address := p.AdapterLaunch(info, command, address)
	address = ExpandWorker(address, 1)
	for i, a := range argv {
		argv[i] = ExpandWorker(a, 1)
	}
	if argv == nil && address != "" {
		return adapter.Dial(ctx, adapter.HelloFor(info), address, timeout)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s has no [adapter]: name an adapter command or the address of a running adapter", p.Name)
	}
	return adapter.StartProcess(ctx, adapter.HelloFor(info), argv, dir, timeout, opts...)
}

// AdapterLaunch says what Connect would do: the command line it would start
// (constants expanded) and its folder, or, with argv nil, the TCP address
// it would dial. A non-empty command or address overrides the project's.
func (p *Project) AdapterLaunch(info *model.ModelInfo, command, address string) (argv []string, dir, addr string) {
	if address == "" && command == "" && p.Adapter != nil {
		address = p.Adapter.Address
	}
	if address != "" && command == "" {
		return nil, "", address
	}
	if command != "" {
		argv = strings.Fields(command)
	} else if p.Adapter != nil {
		argv = p.Adapter.Command
	}
	if len(argv) == 0 {
		return []string{}, "", ""
	}
	return expandConstants(argv, info.Constants), p.AdapterDir(), ""
}

// expandConstants replaces {NAME} in the arguments by the constant's value
// (a string as it is, other values as model literals).
func expandConstants(argv []string, consts []model.Constant) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for _, c := range consts {
			v, ok := model.AsString(c.Value)
			if !ok {
				v = model.Format(c.Value)
			}
			a = strings.ReplaceAll(a, "{"+c.Name+"}", v)
		}
		out[i] = a
	}
	return out
}

// ExpandWorker replaces {WORKER} in an adapter command's argument or
// address by the worker's number (from 1; 0 counts as 1): a campaign's
// workers each get their own, a test outside a campaign is worker 1.
func ExpandWorker(s string, index int) string {
	return strings.ReplaceAll(s, "{WORKER}", strconv.Itoa(max(index, 1)))
}

// AdapterCommandLine is the project's adapter command as one line ("" when
// it has none).
func (p *Project) AdapterCommandLine() string {
	if p.Adapter == nil {
		return ""
	}
	return strings.Join(p.Adapter.Command, " ")
}
