//go:build race

package cli_test

// raceEnabled builds the binary under test with -race when the tests run with -race.
const raceEnabled = true
