package herdr

// Typed conveniences over Build for the four worktree actions copse runs, and over
// BuildWorkspace for workspace list.

// CreateArgs is a `worktree create`. Cwd is the main checkout; Base, Path and Label are
// optional ("" omits them). Branch is required by copse (Herdr would invent one).
type CreateArgs struct {
	Cwd, Branch, Base, Path, Label string
	Focus                          bool
}

// OpenArgs is a `worktree open` of an existing checkout: exactly one of Path and Branch.
type OpenArgs struct {
	Cwd, Path, Branch, Label string
	Focus                    bool
}

func focusOption(focus bool) Option {
	if focus {
		return Option{Name: "focus", Flag: true}
	}
	return Option{Name: "no-focus", Flag: true}
}

// optional appends a value option only when v is set.
func optional(opts []Option, name, v string) []Option {
	if v == "" {
		return opts
	}
	return append(opts, Option{Name: name, Value: v})
}

// ListCmd is `herdr worktree list --cwd <cwd>`.
func ListCmd(cwd string) (Cmd, error) {
	return Build("list", Option{Name: "cwd", Value: cwd})
}

// CreateCmd is `herdr worktree create --cwd … --branch … [--base …] [--path …] [--label …] --focus|--no-focus`.
func CreateCmd(a CreateArgs) (Cmd, error) {
	opts := []Option{{Name: "cwd", Value: a.Cwd}, {Name: "branch", Value: a.Branch}}
	opts = optional(opts, "base", a.Base)
	opts = optional(opts, "path", a.Path)
	opts = optional(opts, "label", a.Label)
	return Build("create", append(opts, focusOption(a.Focus))...)
}

// OpenCmd is `herdr worktree open --cwd … (--path …|--branch …) [--label …] --focus|--no-focus`.
func OpenCmd(a OpenArgs) (Cmd, error) {
	opts := []Option{{Name: "cwd", Value: a.Cwd}}
	opts = optional(opts, "path", a.Path)
	opts = optional(opts, "branch", a.Branch)
	opts = optional(opts, "label", a.Label)
	return Build("open", append(opts, focusOption(a.Focus))...)
}

// RemoveCmd is `herdr worktree remove --workspace <id> [--force]`.
func RemoveCmd(workspaceID string, force bool) (Cmd, error) {
	opts := []Option{{Name: "workspace", Value: workspaceID}}
	if force {
		opts = append(opts, Option{Name: "force", Flag: true})
	}
	return Build("remove", opts...)
}

// WorkspaceListCmd is `herdr workspace list` (it has no options).
func WorkspaceListCmd() (Cmd, error) {
	return BuildWorkspace("list")
}
