package statuscache

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

// The cache file's status carries every field of gitx.Status, through its conversion and
// its JSON form: each field is set to a value no other field has, so a field left out or
// two fields swapped are seen. A field added to gitx.Status without a place here fails.
func TestStatusKeepsEveryField(t *testing.T) {
	var want gitx.Status
	v := reflect.ValueOf(&want).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString(name)
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{name, name + "/2"}))
		default:
			t.Fatalf("gitx.Status.%s is a %s: teach the cache file's status to keep it", name, f.Kind())
		}
	}
	if got := fromGit(want).git(); !reflect.DeepEqual(got, want) {
		t.Fatalf("through the cache's status:\n got %+v\nwant %+v", got, want)
	}
	b, err := json.Marshal(entry{Worktree: "/w", At: 1, Proof: "p", Status: fromGit(want)})
	if err != nil {
		t.Fatal(err)
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if got := e.Status.git(); !reflect.DeepEqual(got, want) {
		t.Fatalf("through the cache file (%s):\n got %+v\nwant %+v", b, got, want)
	}
	// Zero values are left out of the file: a clean worktree's status is short.
	b, _ = json.Marshal(fromGit(gitx.Status{OID: "abc", Branch: "main"}))
	if string(b) != `{"o":"abc","br":"main"}` {
		t.Fatalf("a clean status is written as %s", b)
	}
}
