// Package python holds the Python library of Modex's adapter kit,
// modex_adapter.py: the implementation-adapter protocol
// (docs/adapter-protocol.md) written once, so that an adapter in Python is
// only per-action code. The package has no Go code; its test runs the
// library's own tests (test_modex_adapter.py) with python3.
package python
