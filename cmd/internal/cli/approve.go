package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// NewCmdApprove builds `copse approve`.
func NewCmdApprove(f *Factory, runF func(context.Context) error) *cobra.Command {
	return &cobra.Command{
		Use:   "approve",
		Short: "Approve the commands the repository's .copse.conf asks to run (a person, at a terminal)",
		Long: `Show the copse.setup and copse.test commands of the repository's committed .copse.conf that
no one has approved on this machine, and ask whether to approve them. Approved commands run
in every later create, setup and land of this repository (copse.test gates a land when
neither --test nor git config copse.test names a test); a command whose text changes asks again.
Approvals are kept outside the repository, in $XDG_CONFIG_HOME/copse/approved (else
~/.config/copse/approved). Only a person at a terminal can approve: there is no --yes,
and copse tool, MCP and pi requests never approve. create and setup ask the same question
on a terminal.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context())
			}
			return approveRun(cmd.Context(), f)
		}),
	}
}

func approveRun(ctx context.Context, f *Factory) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	cfg, err := svc.SetupConfig(ctx)
	if err != nil {
		return err
	}
	missing, err := svc.Unapproved(cfg.ProjectCommands())
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		if len(cfg.ProjectCommands()) == 0 {
			fmt.Fprintf(f.Out, "nothing to approve: the repository has no %s with copse.setup or copse.test commands\n", core.ProjectConfigFile)
		} else {
			fmt.Fprintf(f.Out, "nothing to approve: the commands in %s are approved already\n", core.ProjectConfigFile)
		}
		return nil
	}
	if !f.StdinTerminal() {
		return approvalNeedsTerminal(missing)
	}
	if err := f.askApproval(ctx, svc, missing); err != nil {
		return err
	}
	// A yes ends with what it approved: nothing runs now, so without this line the command
	// ends in silence and a person cannot tell that the answer took.
	fmt.Fprintf(f.Out, "approved %s of %s (nothing ran now): copse runs %s in this repository's later create, setup and land, until %s text changes\n",
		core.Plural(len(missing), "command"), core.ProjectConfigFile, themOrIt(len(missing)), itsOrTheir(len(missing)))
	for _, c := range missing {
		fmt.Fprintf(f.Out, "  %s\n", core.Escape(c))
	}
	return nil
}

func themOrIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func itsOrTheir(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// projectApproved makes sure a person approved the project setup commands cfg would run
// before anything changes: on a terminal it asks (and records a yes); without one it
// refuses with project_command_unapproved, then saying what to run afterwards.
func (f *Factory) projectApproved(ctx context.Context, svc *core.Service, cfg core.SetupConfig, then string) error {
	missing, err := svc.Unapproved(cfg.Project)
	if err != nil || len(missing) == 0 {
		return err
	}
	if !f.StdinTerminal() {
		return core.UnapprovedError(missing, then)
	}
	return f.askApproval(ctx, svc, missing)
}

// askApproval shows each command verbatim (escaped, one a line) and records a yes.
func (f *Factory) askApproval(ctx context.Context, svc *core.Service, missing []string) error {
	fmt.Fprintf(f.Err, "The repository's %s asks to run %s in its worktrees (sh -c):\n",
		core.ProjectConfigFile, core.Plural(len(missing), "command"))
	for _, c := range missing {
		fmt.Fprintf(f.Err, "  %s\n", core.Escape(c))
	}
	fmt.Fprint(f.Err, "Approve them, so copse may run them on this machine? [y/N] ")
	answer, err := readLine(ctx, f.In)
	if err != nil {
		fmt.Fprintln(f.Err)
		return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err,
			Message: "cancelled at the approval; nothing was changed"}
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return svc.Approve(missing)
	}
	return &core.Error{Kind: core.KindRefused, Code: core.CodeNotConfirmed,
		Message: "not approved; nothing was changed",
		Hint:    "read the commands in " + core.ProjectConfigFile + "; answer y to run them, or skip setup with --no-setup"}
}

func approvalNeedsTerminal(missing []string) error {
	return &core.Error{Kind: core.KindRefused, Code: core.CodeApprovalNeedsTerminal,
		Message: fmt.Sprintf("%s to approve, but stdin is not a terminal: only a person at a terminal approves project commands; nothing was approved",
			core.Plural(len(missing), "project command")),
		Hint: "run `copse approve` yourself in a terminal in this repository"}
}
