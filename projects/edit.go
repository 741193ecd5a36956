package projects

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Marshal returns the project as TOML text.
func (p *Project) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.SetIndentTables(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes the project atomically (a temporary file in the same folder,
// synced, then renamed over the target; through a symbolic link to its
// target) and sets p.Path. The file keeps its comments, its order of
// configurations and the formatting of every table that did not change.
func (p *Project) Save(path string) error {
	data, err := p.Marshal()
	if err != nil {
		return err
	}
	if p.source != nil {
		data = preserveLayout(p.source, data)
	}
	if err := WriteFileAtomic(path, data); err != nil {
		return err
	}
	p.Path, p.source = path, data
	return nil
}

// WriteFileAtomic writes data to path so that readers see either the old
// file or the whole new one, never a part. A symbolic link is written
// through (its target is replaced, the link stays), and the folder is
// synced after the rename so that the rename survives a crash.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for content written by write as it goes
// (a large export need not be held in memory whole); nothing replaces the
// file when write fails.
//
// A target that exists and is not a regular file (a device such as
// /dev/null, a named pipe, /dev/stdout) is written straight into: renaming
// a file over it would destroy it.
func WriteAtomic(path string, write func(io.Writer) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	f, err := CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	placed := false
	defer func() {
		// Every way out leaves no temporary file (RemoveTemps sees to
		// the writes a process exits in the middle of).
		if placed {
			ForgetTemp(tmp)
		} else {
			RemoveTemp(tmp)
		}
	}()
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		_ = os.Chmod(tmp, fi.Mode().Perm())
	} else {
		_ = os.Chmod(tmp, 0o644)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	placed = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // not supported everywhere (Windows); the rename stands either way
		d.Close()
	}
	return nil
}

// AddConfig adds a configuration (a copy of from, or empty when from is "")
// under a new name.
func (p *Project) AddConfig(name, from string) error {
	if !validConfigName(name) {
		return fmt.Errorf("configuration name %q: use letters, digits, _ and -", name)
	}
	if _, ok := p.Configs[name]; ok {
		return fmt.Errorf("there is already a configuration %q", name)
	}
	c := &ConfigSpec{}
	if from != "" {
		src, ok := p.Configs[from]
		if !ok {
			return fmt.Errorf("no configuration %q", from)
		}
		data, err := toml.Marshal(src)
		if err != nil {
			return err
		}
		if err := toml.Unmarshal(data, c); err != nil {
			return err
		}
	}
	if p.Configs == nil {
		p.Configs = map[string]*ConfigSpec{}
	}
	p.Configs[name] = c
	p.Order = append(p.Order, name)
	return nil
}

// RenameConfig renames a configuration, updating extends and the default.
func (p *Project) RenameConfig(old, name string) error {
	if !validConfigName(name) {
		return fmt.Errorf("configuration name %q: use letters, digits, _ and -", name)
	}
	c, ok := p.Configs[old]
	if !ok {
		return fmt.Errorf("no configuration %q", old)
	}
	if _, ok := p.Configs[name]; ok {
		return fmt.Errorf("there is already a configuration %q", name)
	}
	delete(p.Configs, old)
	p.Configs[name] = c
	for i, n := range p.Order {
		if n == old {
			p.Order[i] = name
		}
	}
	for _, o := range p.Configs {
		if o.Extends == old {
			o.Extends = name
		}
	}
	if p.Default == old {
		p.Default = name
	}
	return nil
}

// CannotDelete says why configuration name cannot be deleted ("" when it
// can): it does not exist, it is the only one, or others extend it.
func (p *Project) CannotDelete(name string) string {
	if _, ok := p.Configs[name]; !ok {
		return fmt.Sprintf("no configuration %q", name)
	}
	if len(p.Configs) == 1 {
		return "a project needs at least one configuration"
	}
	var users []string
	for _, n := range p.Order {
		if o := p.Configs[n]; o != nil && o.Extends == name {
			users = append(users, n)
		}
	}
	switch len(users) {
	case 0:
	case 1:
		return fmt.Sprintf("configuration %s extends %q", users[0], name)
	default:
		return fmt.Sprintf("configurations %s extend %q", strings.Join(users, ", "), name)
	}
	return ""
}

// DeleteConfig removes a configuration; the last one and one that others
// extend cannot be removed.
func (p *Project) DeleteConfig(name string) error {
	if why := p.CannotDelete(name); why != "" {
		return errors.New(why)
	}
	delete(p.Configs, name)
	for i, n := range p.Order {
		if n == name {
			p.Order = append(p.Order[:i], p.Order[i+1:]...)
			break
		}
	}
	if p.Default == name {
		p.Default = p.Order[0]
	}
	return nil
}

func validConfigName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}
