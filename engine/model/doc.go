// Package model owns model programs, the contract of docs/model-language.md:
// model values (Starlark values restricted to the encodable kinds, plus
// Object identities) and their canonical byte encoding, which is a state's
// identity; the Model and Worker interfaces every phase uses; Starlark
// models (LoadStarlark: init, actions, observables, domains, require, new,
// choose, load, step budgets, positioned errors); and Go-native models
// (Native). It knows nothing of exploration, testing or the UI.
package model
