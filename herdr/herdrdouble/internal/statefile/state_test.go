package statefile

import "testing"

// The examples of the protocol reference §4.3.
func TestEncode(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1", 9: "9", 10: "A", 16: "G", 31: "Z", 32: "0", 33: "11", 64: "10", 65: "21", 1056: "00", 1057: "111"} {
		if got := Encode(n); got != want {
			t.Errorf("Encode(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/state.json"
	for i := 0; i < 3; i++ {
		if err := Update(path, func(s *State) error {
			s.Workspaces = append(s.Workspaces, Workspace{ID: s.NewID(), Checkout: "/x"})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Next != 3 || len(s.Workspaces) != 3 || s.Workspaces[2].ID != "w3" {
		t.Fatalf("state = %+v", s)
	}
}
