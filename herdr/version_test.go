package herdr

import "testing"

func TestParseVersion(t *testing.T) {
	t.Parallel()
	good := []struct {
		out     string
		m, n, p int
		raw     string
	}{
		{"herdr 0.8.2\n", 0, 8, 2, "0.8.2"},
		{"herdr 0.8.2", 0, 8, 2, "0.8.2"},
		{"herdr 0.9.3", 0, 9, 3, "0.9.3"},
		{"herdr 0.8.2-preview.17", 0, 8, 2, "0.8.2-preview.17"},
		{"herdr 0.8.2-preview.x\n", 0, 8, 2, "0.8.2-preview.x"},
		{"herdr 0.8.2-nightly", 0, 8, 2, "0.8.2-nightly"},
		{"herdr 0.8.2+abc123", 0, 8, 2, "0.8.2+abc123"},
		{"  herdr   1.10.0 \r\n", 1, 10, 0, "1.10.0"},
		{"herdr 0.6.2", 0, 6, 2, "0.6.2"},
	}
	for _, c := range good {
		v, err := ParseVersion(c.out)
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", c.out, err)
			continue
		}
		if v.Major != c.m || v.Minor != c.n || v.Patch != c.p || v.Raw != c.raw {
			t.Errorf("ParseVersion(%q) = %+v", c.out, v)
		}
	}
	bad := []string{
		"", "herdr", "0.8.2", "herdr 0.8", "herdr v0.8.2", "herdr 0.8.2 extra",
		"Herdr 0.8.2", "herdrx 0.8.2", "herdr 0.8.2\nherdr 0.9.0", "tmux 3.4",
		"herdr 0.8.x", "herdr 1234567890.0.0", "herdr 0.8.2-pre\x1b[31m", "herdr -0.8.2",
	}
	for _, out := range bad {
		if v, err := ParseVersion(out); err == nil {
			t.Errorf("ParseVersion(%q) = %+v, want an error", out, v)
		}
	}
}

func TestVersionLess(t *testing.T) {
	t.Parallel()
	v := func(s string) Version {
		t.Helper()
		x, err := ParseVersion("herdr " + s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	less := [][2]string{{"0.7.0", "0.8.2"}, {"0.8.1", "0.8.2"}, {"0.8.2", "0.9.0"}, {"0.9.9", "1.0.0"}, {"0.8.10", "0.9.0"}, {"0.8.2", "0.8.10"}}
	for _, c := range less {
		if !v(c[0]).Less(v(c[1])) || v(c[1]).Less(v(c[0])) {
			t.Errorf("want %s < %s", c[0], c[1])
		}
	}
	// A preview of 0.8.2 has 0.8.2's CLI: it must pass the >= 0.8.2 gate.
	if v("0.8.2-preview.3").Less(MinVersion) || v("0.8.2").Less(MinVersion) {
		t.Error("0.8.2 and its previews must not be below MinVersion")
	}
	if MinVersion.String() != "0.8.2" {
		t.Errorf("MinVersion.String() = %q", MinVersion.String())
	}
}
