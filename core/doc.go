// Package core is copse's safety core, the one place that decides what may happen to a
// repository. Every entry point (the picker, the command line, the JSON tool for agents)
// hands it a raw request; core parses each value into a typed one, prepares a plan (its
// checks, refusals with a code and a hint, the confirmation a human agrees to, a token of
// the state it was shown against), executes it under the repository lock, and confirms
// the result with git before saying it happened. It also keeps the event log, the claims
// and the removal snapshots that restore brings back.
//
// core never imports Bubble Tea or a front end, never prints to a terminal, and never runs
// a program itself: git only through gitx, Herdr only through herdr, tmux only through
// tmux, the user's commands only through core/usercmd. Every raw value it puts into a message is escaped once, here
// (see internal/textsafe for who escapes what).
package core
