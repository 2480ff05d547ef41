package cli

import (
	"context"
	"io"

	"github.com/charmbracelet/colorprofile"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/tui"
)

// The adapter between the command line and the picker (tui.Run).

type pickerOptions struct {
	Pick            bool
	Query           string
	NoColor         bool
	Profile         colorprofile.Profile             // for the first frame (Unknown: Bubble Tea detects)
	LateProfile     <-chan colorprofile.Profile      // the full detection, when it was not ready
	Opening         func(context.Context) tui.Opened // core.Open's answer, waited for while the picker is built
	AfterFirstFrame func()
	Input           io.Reader
	Output          io.Writer
	Width, Height   int
}

type pickerResult struct {
	Outcome     *core.Outcome
	Selected    *core.Worktree
	Cancelled   bool
	Interrupted *tui.Interrupted // a second ctrl+c ended the picker during an operation
	OpenErr     error            // the repository could not be opened; nothing was drawn
}

func startPicker(ctx context.Context, o pickerOptions) (pickerResult, error) {
	res, err := tui.Run(ctx, nil, tui.Options{Pick: o.Pick, Query: o.Query, NoColor: o.NoColor, Profile: o.Profile,
		LateProfile: o.LateProfile, Opening: o.Opening, AfterFirstFrame: o.AfterFirstFrame,
		Input: o.Input, Output: o.Output, Width: o.Width, Height: o.Height})
	return pickerResult{Outcome: res.Outcome, Selected: res.Selected, Cancelled: res.Cancelled, Interrupted: res.Interrupted, OpenErr: res.OpenErr}, err
}
