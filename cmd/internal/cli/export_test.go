package cli

import (
	"errors"

	"github.com/spf13/pflag"
)

// ParseCommandLine parses args as copse would (command, flags, argument count) without
// running anything: tests use it to prove that every command a hint names exists.
func ParseCommandLine(args []string) error {
	root := NewCmdRoot(NewFactory())
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil // --help is a command line copse accepts
		}
		return err
	}
	if cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return nil
}
