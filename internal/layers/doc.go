// Package layers holds the test that keeps the house's arrows pointing down
// (cmd → tui → core → {gitx, herdr}, and the ground floor in internal/ below them all): a
// package that imported a floor above its own would make that floor's rules its own and
// its tests slower. It holds tests only.
package layers
