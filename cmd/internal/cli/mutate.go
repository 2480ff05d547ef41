package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/copse-dev/copse/core"
)

// mutation is what every changing verb shares: prepare (parse and check preconditions),
// then either show the plan (--dry-run) or confirm if the core asks for it, and execute.
type mutation struct {
	DryRun bool
	Yes    bool
	// again is the command that runs this request without asking ("copse prune --yes"),
	// named when stdin is no terminal; "" says "the same command with --yes".
	again string
}

// run prepares req on svc and executes it (or dry-runs it). The outcome is not printed.
func (m mutation) run(ctx context.Context, f *Factory, svc *core.Service, req core.Request) (*core.Outcome, error) {
	if m.DryRun {
		// A dry run takes no lock (and makes no lock file): it shows the repository as it is.
		plan, err := svc.PrepareDryRun(ctx, req)
		if err != nil {
			return nil, err
		}
		return svc.DryRun(plan), nil
	}
	plan, err := svc.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	if plan.Confirm != nil && !m.Yes {
		if err := f.confirmOr(ctx, plan.Confirm, m.again); err != nil {
			return nil, err
		}
		out, err := svc.Execute(ctx, plan)
		if out != nil {
			// The person just read these in the confirmation: once is enough.
			out.Warnings = without(out.Warnings, plan.Confirm.Warnings)
			out.Notices = without(out.Notices, plan.Confirm.Notices)
		}
		return out, err
	}
	return svc.Execute(ctx, plan)
}

// without is ss less the lines shown already.
func without(ss, shown []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(shown, s) {
			out = append(out, s)
		}
	}
	return out
}

// runMutation is the one run path of every changing verb: open the repository, prepare
// req (parse, check), then show the plan (--dry-run) or confirm if core asks and execute,
// then print the outcome with the verb's own printer. target is what the user typed to name
// the worktree ("" when nothing), for the hint about relative paths.
func (m mutation) runMutation(ctx context.Context, f *Factory, req core.Request, target string, print func(*core.Service, *core.Outcome) error) error {
	return m.runMutationAfter(ctx, f, req, target, nil, print)
}

// runMutationAfter is runMutation with a step between opening the repository and
// preparing (create reads its setup config there, so a broken one changes nothing).
func (m mutation) runMutationAfter(ctx context.Context, f *Factory, req core.Request, target string, before func(*core.Service) error, print func(*core.Service, *core.Outcome) error) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	if before != nil {
		if err := before(svc); err != nil {
			return err
		}
	}
	out, err := m.run(ctx, f, svc, req)
	if err != nil {
		return relativeHint(err, target)
	}
	if m.DryRun {
		return f.printDryRun(out)
	}
	return print(svc, out)
}

// report prints an outcome: the warnings, then the JSON reply, or text (the verb's own).
func (f *Factory) report(out *core.Outcome, text func() error) error {
	f.warn(out.Warnings)
	f.notice(out.Notices)
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	return text()
}

// printDryRun shows what a dry run found: the checks passed and the exact commands.
func (f *Factory) printDryRun(out *core.Outcome) error {
	f.warn(out.Warnings)
	f.notice(out.Notices)
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	if out.Base != nil {
		fmt.Fprintf(f.Out, "the new branch would start from %s\n", out.Base.Describe())
	}
	fmt.Fprintln(f.Out, "checks passed; nothing was changed. copse would run:")
	for _, c := range out.Commands {
		fmt.Fprintf(f.Out, "  %s\n", c)
	}
	if st := out.Setup; st != nil {
		if n := len(st.Copy); n > 0 {
			fmt.Fprintf(f.Out, "then set it up: copy %s from the main checkout (never overwriting):\n", core.Plural(n, "file"))
			for _, c := range st.Copy {
				fmt.Fprintf(f.Out, "  %s\n", core.Escape(c))
			}
		}
		for _, r := range st.Refused {
			fmt.Fprintf(f.Out, "not copied: %s: %s\n", core.Escape(r.Path), core.Escape(r.Reason))
		}
		if n := len(st.Steps); n > 0 {
			fmt.Fprintf(f.Out, "then run %s in it (sh -c), in order:\n", core.Plural(n, "setup step"))
			for i, c := range st.Steps {
				fmt.Fprintf(f.Out, "  %d. %s\n", i+1, core.Escape(c))
			}
		}
	}
	return nil
}

// confirm asks a human on the terminal: the confirmation (already escaped by core, one
// value a line), then "[y/N]". Without a terminal on stdin it refuses: --yes is needed.
func (f *Factory) confirm(ctx context.Context, c *core.Confirmation) error {
	return f.confirmOr(ctx, c, "")
}

// confirmOr is confirm naming again, the command that goes ahead without asking, when
// stdin is no terminal. A person then reads what would happen one item a line on stderr;
// --json keeps it all in the hint, one value for a program.
func (f *Factory) confirmOr(ctx context.Context, c *core.Confirmation, again string) error {
	if !f.StdinTerminal() {
		if f.Global.JSON {
			return &core.Error{Kind: core.KindRefused, Code: core.CodeNeedsConfirmation,
				Message: "needs confirmation: pass --yes",
				Hint:    "stdin is not a terminal, so copse cannot ask; check what it would do, then pass --yes: " + c.Line()}
		}
		for _, l := range c.Lines(1 << 16) { // a pipe or a log: nothing to fit, nothing cut
			fmt.Fprintln(f.Err, tildeIn(l, f.home()))
		}
		hint := "stdin is not a terminal, so copse cannot ask; check what it would do (above), then run the same command with --yes"
		if again != "" {
			hint = "stdin is not a terminal, so copse cannot ask; check what it would do (above), then run `" + again + "`"
		}
		return &core.Error{Kind: core.KindRefused, Code: core.CodeNeedsConfirmation,
			Message: "needs confirmation: pass --yes", Hint: hint}
	}
	width := f.TermWidth()
	if width <= 0 {
		width = 80
	}
	for _, l := range c.Lines(width) {
		fmt.Fprintln(f.Err, l)
	}
	fmt.Fprint(f.Err, "Proceed? [y/N] ")
	answer, err := readLine(ctx, f.In)
	if err != nil {
		fmt.Fprintln(f.Err)
		return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err,
			Message: "cancelled at the confirmation; nothing was changed"}
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return &core.Error{Kind: core.KindRefused, Code: core.CodeNotConfirmed,
		Message: "not confirmed; nothing was changed", Hint: "answer y to go ahead"}
}

// readLine reads one line, giving up when ctx is cancelled (^C at the prompt). EOF with no
// text is an empty answer (No).
func readLine(ctx context.Context, in io.Reader) (string, error) {
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := bufio.NewReader(in).ReadString('\n')
		if err == io.EOF {
			err = nil
		}
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
