package main

// copse is Unix-only (process groups, flock, kill): on any other system this import fails
// the build with a message saying so, before the missing syscalls do.
import _ "github.com/copse-dev/copse/internal/unixonly"
