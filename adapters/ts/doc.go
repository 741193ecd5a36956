// Package ts holds the JavaScript/TypeScript library of Modex's adapter kit,
// modex_adapter.js with its typings modex_adapter.d.ts: the
// implementation-adapter protocol (docs/adapter-protocol.md) written once,
// so that an adapter for Node is only per-action code. The package has no Go
// code; its tests run the library's own tests (modex_adapter.test.js) with
// node, and compile example.ts with tsc and speak the protocol to it.
package ts
