package landjobs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/landjobs"
)

type record struct {
	Job    string `json:"job"`
	Ticket int64  `json:"ticket"`
	Note   string `json:"note,omitempty"`
}

func write(t *testing.T, dir string, ticket int64, note string) {
	t.Helper()
	if err := landjobs.Write(dir, landjobs.Name(ticket), record{Job: landjobs.Name(ticket), Ticket: ticket, Note: note}); err != nil {
		t.Fatal(err)
	}
}

// Records come back in ticket order (land-10 after land-9, not as the names sort), a
// record that does not match its name stops ReadAll and Read, and a removed one is gone
// without an error for removing it twice.
func TestRecordsReadBackInTicketOrder(t *testing.T) {
	dir := landjobs.Dir(t.TempDir())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{10, 9, 2} {
		write(t, dir, n, "job "+landjobs.Name(n))
	}
	recs, err := landjobs.ReadAll[record](dir)
	if err != nil {
		t.Fatal(err)
	}
	var tickets []int64
	for _, r := range recs {
		tickets = append(tickets, r.Ticket)
	}
	if !slices.Equal(tickets, []int64{2, 9, 10}) || recs[0].Note != "job land-2" {
		t.Fatalf("read %+v", recs)
	}
	if r, err := landjobs.Read[record](dir, "land-9"); err != nil || r.Ticket != 9 {
		t.Fatalf("Read land-9 = %+v, %v", r, err)
	}
	if _, err := landjobs.Read[record](dir, "land-3"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing record: %v", err)
	}

	if err := landjobs.Remove(dir, "land-9"); err != nil {
		t.Fatal(err)
	}
	if err := landjobs.Remove(dir, "land-9"); err != nil {
		t.Fatalf("removing a removed record: %v", err)
	}
	if recs, _ := landjobs.ReadAll[record](dir); len(recs) != 2 {
		t.Fatalf("after remove: %+v", recs)
	}

	// A record under another job's name is not that job's.
	if err := os.WriteFile(filepath.Join(dir, "land-4.json"), []byte(`{"job":"land-5","ticket":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := landjobs.ReadAll[record](dir); err == nil || !strings.Contains(err.Error(), "does not match its name") {
		t.Fatalf("ReadAll of a misnamed record: %v", err)
	}
	if _, err := landjobs.Read[record](dir, "land-4"); err == nil {
		t.Fatal("Read accepted a misnamed record")
	}
}

// A ticket is never handed out twice: the counter only grows, a lost counter resumes past
// the records, and a corrupt one is an error that names it, with nothing written.
func TestNextTicketNeverRepeats(t *testing.T) {
	dir := landjobs.Dir(t.TempDir())
	for want := int64(1); want <= 3; want++ {
		if n, err := landjobs.NextTicket(dir); err != nil || n != want {
			t.Fatalf("ticket %d, %v; want %d", n, err, want)
		}
	}
	write(t, dir, 7, "")
	if err := os.Remove(filepath.Join(dir, "ticket")); err != nil {
		t.Fatal(err)
	}
	if n, err := landjobs.NextTicket(dir); err != nil || n != 8 {
		t.Fatalf("after the counter was lost: %d, %v; want 8", n, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ticket"), []byte("seven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := landjobs.NextTicket(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ticket")) {
		t.Fatalf("corrupt counter: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ticket")); string(b) != "seven\n" {
		t.Fatalf("a corrupt counter was rewritten: %q", b)
	}
}

func TestParseName(t *testing.T) {
	for raw, want := range map[string]int64{"land-7": 7, "7": 7, "land-12": 12} {
		if n, ok := landjobs.ParseName(raw); !ok || n != want {
			t.Errorf("ParseName(%q) = %d, %v; want %d", raw, n, ok, want)
		}
	}
	for _, raw := range []string{"", "land-", "land-0", "0", "-3", "+3", "07", "land-07", "land-7x", "job-7"} {
		if n, ok := landjobs.ParseName(raw); ok {
			t.Errorf("ParseName(%q) = %d, accepted", raw, n)
		}
	}
}

// Scan hands every record file over unchecked (prune skips what it cannot read), and
// leaves out files too big to be a record.
func TestScanHandsOverDamagedRecords(t *testing.T) {
	dir := landjobs.Dir(t.TempDir())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, 1, "")
	if err := os.WriteFile(filepath.Join(dir, "land-2.json"), []byte("{half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "land-3.json"), make([]byte, 1<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	landjobs.Scan(dir, func(name string, raw []byte) { got[name] = string(raw) })
	if len(got) != 2 || got["land-2"] != "{half" || !strings.Contains(got["land-1"], `"ticket": 1`) {
		t.Fatalf("scanned %q", got)
	}
}
