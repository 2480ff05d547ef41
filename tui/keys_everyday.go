package tui

import "charm.land/bubbles/v2/key"

// EverydayKeys are the bindings issue 11 added: sorting, preview, editor, shell, copying
// the path, the remove dialog's branch toggle and the panels' scrolling. They are part of
// KeyMap (embedded), so help and KEYS.md come from them like from every other binding.
type EverydayKeys struct {
	Sort    key.Binding
	Preview key.Binding
	Edit    key.Binding
	Shell   key.Binding
	Copy    key.Binding

	// Remove dialog: delete the branch too.
	DeleteBranch key.Binding

	// Panels (setup log, preview).
	ScrollUp   key.Binding
	ScrollDown key.Binding
	ClosePanel key.Binding
}

func defaultEverydayKeys() EverydayKeys {
	return EverydayKeys{
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Preview: key.NewBinding(key.WithKeys("p", "tab"), key.WithHelp("p/tab", "preview")),
		Edit:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "editor")),
		Shell:   key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "shell")),
		Copy:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy path")),

		DeleteBranch: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "delete branch too")),

		ScrollUp:   key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k/pgup", "scroll up")),
		ScrollDown: key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j/pgdn", "scroll down")),
		ClosePanel: key.NewBinding(key.WithKeys("esc", "enter", "q"), key.WithHelp("esc/enter", "close")),
	}
}
