// Package layers holds the tests that keep the house's arrows pointing down
// (cmd → tui → core → {gitx, herdr}, and the ground floor in internal/ below them all) and
// the test doubles out of copse itself. A package that imported a floor above its own
// would make that floor's rules its own and its tests slower; a double imported outside
// tests would ship. It holds tests only.
package layers
