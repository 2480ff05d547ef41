package herdr

import (
	"strings"
	"testing"
)

// Whatever goes in, a command Build accepts has only known flags, and every value in it
// passes the value checks: nothing can turn into an option or hide in a terminal.
func FuzzBuild(f *testing.F) {
	f.Add("create", "branch", "feat/x", "label", "X")
	f.Add("open", "path", "/a/b", "branch", "-x")
	f.Add("list", "cwd", "/a\n", "workspace", "w1")
	f.Add("remove", "workspace", "wG", "force", "")
	f.Add("create", "branch=x", "", "json", "")
	f.Fuzz(func(t *testing.T, action, n1, v1, n2, v2 string) {
		opts := []Option{{Name: "cwd", Value: "/src/app"}, {Name: n1, Value: v1, Flag: v1 == ""}, {Name: n2, Value: v2, Flag: v2 == ""}}
		if action != "remove" {
			opts = append(opts, Option{Name: "no-focus", Flag: true})
		} else {
			opts = opts[1:]
		}
		cmd, err := Build(action, opts...)
		if err != nil {
			return
		}
		argv := cmd.Argv()
		if argv[0] != "herdr" || argv[1] != "worktree" || argv[2] != action {
			t.Fatalf("argv = %q", argv)
		}
		spec := grammar[action]
		for i := 3; i < len(argv); i++ {
			name, ok := strings.CutPrefix(argv[i], "--")
			if !ok {
				t.Fatalf("argv[%d] = %q is not a flag", i, argv[i])
			}
			var kind valueKind = "?"
			for _, s := range spec {
				if s.name == name {
					kind = s.kind
				}
			}
			switch kind {
			case "?":
				t.Fatalf("unknown flag %q in %q", argv[i], argv)
			case noValue:
			default:
				i++
				if why := checkValue(kind, argv[i]); why != "" {
					t.Fatalf("value %q %s", argv[i], why)
				}
			}
		}
	})
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"herdr 0.8.2\n", "herdr 0.8.2-preview.17", "herdr 0.9.3", "herdr 1.2", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		again, err := ParseVersion("herdr " + v.Raw)
		if err != nil || again != v {
			t.Fatalf("%q → %+v, reparsed %+v %v", s, v, again, err)
		}
	})
}

// Decoding never panics, and accepts only a result of the asked-for type.
func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"id":"x","result":{"type":"worktree_removed","path":"/a","workspace_id":"wG","forced":true}}`))
	f.Add([]byte(`{"result":{"type":"worktree_list"}}`))
	f.Add([]byte(`{"error":{"code":"x","message":"y"}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r RemoveResult
		if decodeResult(b, TypeRemoved, &r) == nil && !strings.Contains(string(b), TypeRemoved) && !strings.Contains(string(b), `\u`) {
			t.Fatalf("accepted %q", b)
		}
		_, _, _ = parseErrorEnvelope(b)
	})
}
