// Package explore turns a model program into a finite state graph under
// scenario control: Config (parameter domains, filters, groupings, action
// selection and kinds, enabling conditions, bounds, timeouts), Explore (the
// deterministic level-synchronous parallel explorer, cancellable, with
// progress), Exploration and its Graph (the timeout extension of seed 000:
// active and passive states, timeout arcs), inspection of a graph (PathTo,
// Explain, Find), and the graph algorithms that produce offline test suites
// (TransitionTour, StateCases) together with the suite file format.
package explore
