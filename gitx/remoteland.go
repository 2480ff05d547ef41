package gitx

// Plumbing for landing through a git server (core/remotequeue): reading chosen refs of a
// remote, fetching them into a private namespace, building commits whose tree holds one
// small file per record without a worktree or an index, notes, and one atomic push of
// several compare-and-swap ref updates whose result is read ref by ref.
//
// The server is the only thing the machines share, so every write is a compare-and-swap
// (--force-with-lease with an explicit expected value) and several refs move together
// (--atomic) or not at all.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PrivateRefPrefix holds copse's copies of refs fetched from remotes:
// refs/copse/remotes/<remote>/<ref without "refs/">. Nothing else writes there, so a
// forced fetch into it cannot overwrite anything of the user's.
const PrivateRefPrefix = "refs/copse/remotes/"

// PrivateRef is where FetchRefs keeps the copy of remote's ref.
func PrivateRef(remote, ref string) string {
	return PrivateRefPrefix + remote + "/" + strings.TrimPrefix(ref, "refs/")
}

// remoteArgs are the settings every command that talks to a remote runs with: a file://
// remote works whatever protocol.file.allow says (the tests', and a bare repository on a
// shared disk), and nothing of the user's configuration turns a push into a signed one
// that would ask for a passphrase.
var remoteArgs = []string{"-c", "protocol.file.allow=always", "-c", "push.gpgSign=false"}

func checkRemote(remote string) string {
	// A configured remote's name: it is also a component of PrivateRef.
	return checkBranch("remote", remote)
}

func checkFullRefs(refs []string) []string {
	var reasons []string
	if len(refs) == 0 {
		reasons = append(reasons, "no refs")
	}
	for _, ref := range refs {
		reasons = append(reasons, checkFullRef(ref))
	}
	return reasons
}

// LsRemoteCmd prints "<oid>\t<ref>" for the given refs of remote (ls-remote matches
// patterns against ref tails, so RemoteRefs keeps only exact names).
func LsRemoteCmd(dir, remote string, refs []string) (Cmd, error) {
	reasons := append([]string{checkDir(dir), checkRemote(remote)}, checkFullRefs(refs)...)
	if err := check("ls-remote", reasons...); err != nil {
		return Cmd{}, err
	}
	args := append(append([]string(nil), remoteArgs...), "ls-remote", "--", remote)
	return Cmd{dir: dir, args: append(args, refs...), read: true}, nil
}

// RemoteRefs reads refs on remote: ref → oid, a ref the remote does not have left out.
func (r *Runner) RemoteRefs(ctx context.Context, dir, remote string, refs []string) (map[string]string, error) {
	c, err := LsRemoteCmd(dir, remote, refs)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return ParseLsRemote(out, refs)
}

// ParseLsRemote parses ls-remote's "<oid>\t<ref>" lines, keeping the refs in want.
func ParseLsRemote(out []byte, want []string) (map[string]string, error) {
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if l == "" {
			continue
		}
		oid, ref, ok := strings.Cut(l, "\t")
		if !ok || !isOID(oid) {
			return nil, fmt.Errorf("gitx: ls-remote printed %q, not \"<oid>\\t<ref>\"", clip(l))
		}
		for _, w := range want {
			if ref == w {
				got[ref] = oid
			}
		}
	}
	return got, nil
}

// FetchRefsCmd fetches each of refs from remote into PrivateRef(remote, ref), forced: the
// copy follows the remote wherever it went. No tags, no FETCH_HEAD, no submodules, no gc.
// A ref the remote does not have fails the fetch; read RemoteRefs first.
func FetchRefsCmd(dir, remote string, refs []string) (Cmd, error) {
	reasons := append([]string{checkDir(dir), checkRemote(remote)}, checkFullRefs(refs)...)
	if err := check("fetch", reasons...); err != nil {
		return Cmd{}, err
	}
	args := append(append([]string(nil), remoteArgs...), "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-gc", "--", remote)
	for _, ref := range refs {
		args = append(args, "+"+ref+":"+PrivateRef(remote, ref))
	}
	return Cmd{dir: dir, args: args}, nil
}

// FetchRefs runs FetchRefsCmd.
func (r *Runner) FetchRefs(ctx context.Context, dir, remote string, refs []string) error {
	c, err := FetchRefsCmd(dir, remote, refs)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, c)
	return err
}

// HasCommitCmd exits 0 when the commit oid is in the local repository.
func HasCommitCmd(dir, oid string) (Cmd, error) {
	if err := check("cat-file", checkDir(dir), checkOID("commit", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"cat-file", "-e", oid + "^{commit}"}, read: true}, nil
}

// HasCommit reports whether the commit oid is in the local repository.
func (r *Runner) HasCommit(ctx context.Context, dir, oid string) (bool, error) {
	c, err := HasCommitCmd(dir, oid)
	if err != nil {
		return false, err
	}
	_, err = r.Run(ctx, c)
	if code, ok := ExitCode(err); ok && (code == 1 || code == 128) {
		// cat-file -e: 1 when the object is missing, 128 when it is no commit.
		return false, nil
	}
	return err == nil, err
}

// ---- trees of small records ----

// maxRecordBytes bounds one record file: a queue record is a few hundred bytes, and a
// bigger one is not copse's.
const maxRecordBytes = 64 << 10

// WriteBlobCmd stores data as a blob (hash-object -w, no filters) and prints its id.
func WriteBlobCmd(dir string, data []byte) (Cmd, error) {
	reason := ""
	if len(data) > maxRecordBytes {
		reason = fmt.Sprintf("record of %d bytes is over the %d-byte limit", len(data), maxRecordBytes)
	}
	if err := check("hash-object", checkDir(dir), reason); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"hash-object", "-w", "--no-filters", "--stdin"}, stdin: append([]byte{}, data...)}, nil
}

// WriteBlob runs WriteBlobCmd.
func (r *Runner) WriteBlob(ctx context.Context, dir string, data []byte) (string, error) {
	c, err := WriteBlobCmd(dir, data)
	if err != nil {
		return "", err
	}
	return r.OutputOID(ctx, c)
}

// TreeEntry is one blob of a flat tree.
type TreeEntry struct {
	Name string // a file name: no '/', no NUL
	Blob string // its blob id
}

func checkEntryName(name string) string {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Sprintf("entry name %q is not a file name", name)
	case strings.ContainsAny(name, "/\x00\n"):
		return fmt.Sprintf("entry name %q contains '/', NUL or a newline", name)
	}
	return ""
}

// MkTreeCmd writes a tree holding exactly entries (regular files) and prints its id.
func MkTreeCmd(dir string, entries []TreeEntry) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	seen := map[string]bool{}
	var in bytes.Buffer
	for _, e := range entries {
		reasons = append(reasons, checkEntryName(e.Name), checkOID("blob", e.Blob))
		if seen[e.Name] {
			reasons = append(reasons, fmt.Sprintf("entry name %q given twice", e.Name))
		}
		seen[e.Name] = true
		fmt.Fprintf(&in, "100644 blob %s\t%s\x00", e.Blob, e.Name)
	}
	if err := check("mktree", reasons...); err != nil {
		return Cmd{}, err
	}
	// -z: names are NUL-terminated; an empty tree gets an empty (non-nil) input.
	return Cmd{dir: dir, args: []string{"mktree", "-z"}, stdin: append([]byte{}, in.Bytes()...)}, nil
}

// WriteTree runs MkTreeCmd.
func (r *Runner) WriteTree(ctx context.Context, dir string, entries []TreeEntry) (string, error) {
	c, err := MkTreeCmd(dir, entries)
	if err != nil {
		return "", err
	}
	return r.OutputOID(ctx, c)
}

// CommitRecords writes entries as a tree and a commit of it on parent ("" for the first
// commit of a chain), authored by copse, and returns the commit's id.
func (r *Runner) CommitRecords(ctx context.Context, dir string, entries []TreeEntry, parent, message string) (string, error) {
	tree, err := r.WriteTree(ctx, dir, entries)
	if err != nil {
		return "", err
	}
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	c, err := CommitTree(dir, tree, parents, message)
	if err != nil {
		return "", err
	}
	return r.OutputOID(ctx, c)
}

// LsTreeCmd lists the top level of commit's tree, NUL-terminated.
func LsTreeCmd(dir, commit string) (Cmd, error) {
	if err := check("ls-tree", checkDir(dir), checkOID("commit", commit)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"ls-tree", "-z", "--full-tree", commit}, read: true}, nil
}

// TreeItem is one entry of LsTreeCmd.
type TreeItem struct {
	Mode, Type, OID, Name string
}

// ReadTreeItems runs LsTreeCmd.
func (r *Runner) ReadTreeItems(ctx context.Context, dir, commit string) ([]TreeItem, error) {
	c, err := LsTreeCmd(dir, commit)
	return output(ctx, r, c, err, ParseLsTree)
}

// ParseLsTree parses `ls-tree -z`: "<mode> SP <type> SP <oid> TAB <name> NUL".
func ParseLsTree(b []byte) ([]TreeItem, error) {
	var items []TreeItem
	for _, rec := range bytes.Split(b, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !isOID(f[2]) {
			return nil, fmt.Errorf("gitx: ls-tree printed %q, not \"<mode> <type> <oid>\\t<name>\"", clip(string(rec)))
		}
		items = append(items, TreeItem{Mode: f[0], Type: f[1], OID: f[2], Name: name})
	}
	return items, nil
}

// CatBlobsCmd prints the blobs oids in cat-file's batch format.
func CatBlobsCmd(dir string, oids []string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	var in bytes.Buffer
	for _, o := range oids {
		reasons = append(reasons, checkOID("blob", o))
		in.WriteString(o + "\n")
	}
	if err := check("cat-file", reasons...); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"cat-file", "--batch"}, stdin: append([]byte{}, in.Bytes()...), read: true}, nil
}

// ReadBlobs returns the content of each blob of oids, by id. A missing object or one that
// is no blob is an error.
func (r *Runner) ReadBlobs(ctx context.Context, dir string, oids []string) (map[string][]byte, error) {
	if len(oids) == 0 {
		return map[string][]byte{}, nil
	}
	c, err := CatBlobsCmd(dir, oids)
	return output(ctx, r, c, err, ParseCatBatch)
}

// ParseCatBatch parses `cat-file --batch`: "<oid> <type> <size>\n<content>\n" per object.
func ParseCatBatch(b []byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fmt.Errorf("gitx: cat-file: header %q is not terminated", clip(string(b)))
		}
		f := strings.Fields(string(b[:i]))
		if len(f) == 2 && f[1] == "missing" {
			return nil, fmt.Errorf("gitx: object %s is missing", clip(f[0]))
		}
		if len(f) != 3 || !isOID(f[0]) {
			return nil, fmt.Errorf("gitx: cat-file printed %q, not \"<oid> <type> <size>\"", clip(string(b[:i])))
		}
		if f[1] != "blob" {
			return nil, fmt.Errorf("gitx: object %s is a %s, not a blob", f[0], clip(f[1]))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || len(b) < i+1+n+1 {
			return nil, fmt.Errorf("gitx: cat-file: object %s of size %q is cut short", f[0], clip(f[2]))
		}
		out[f[0]] = b[i+1 : i+1+n]
		b = b[i+1+n+1:]
	}
	return out, nil
}

// ---- notes ----

// NotesAddCmd attaches message as the note of commit in the notes ref notesRef (under
// refs/notes/, where git notes writes), replacing a note already there. The notes commit
// is authored by copse.
func NotesAddCmd(dir, notesRef, commit, message string) (Cmd, error) {
	reason := ""
	if !strings.HasPrefix(notesRef, "refs/notes/") {
		reason = fmt.Sprintf("notes ref %q is not under refs/notes/", notesRef)
	}
	if err := check("notes", checkDir(dir), checkFullRef(notesRef), reason, checkOID("commit", commit), checkMessage(message)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"notes", "--ref=" + notesRef, "add", "-f", "-m", message, commit}, env: snapshotIdentity}, nil
}

// NoteCommit builds, without touching any ref but a scratch one of its own, the notes
// commit that adds note as the note of commit on top of the notes commit base ("" when the
// notes ref does not exist yet), and returns it: pushed with a lease on base it adds the
// note on the remote in the same atomic push as whatever it goes with. git notes builds it
// (it keeps git's fan-out of a big notes tree), on a scratch ref under refs/notes/copse-scratch/.
func (r *Runner) NoteCommit(ctx context.Context, dir, base, commit, note string) (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	scratch := "refs/notes/copse-scratch/" + hex.EncodeToString(rnd[:])
	if base != "" {
		c, err := UpdateRefCreate(dir, scratch, base)
		if err != nil {
			return "", err
		}
		if _, err := r.Run(ctx, c); err != nil {
			return "", err
		}
	}
	c, err := NotesAddCmd(dir, scratch, commit, note)
	if err != nil {
		return "", err
	}
	_, addErr := r.Run(ctx, c)
	var made string
	if addErr == nil {
		rc, err := RevParseCommit(dir, scratch)
		if err != nil {
			return "", err
		}
		made, addErr = r.OutputOID(ctx, rc)
	}
	// The scratch ref goes whatever happened; the commit stays as an object for the push.
	if made != "" || base != "" {
		old := made
		if old == "" {
			old = base
		}
		if dc, err := UpdateRefDelete(dir, scratch, old); err == nil {
			if _, err := r.Run(ctx, dc); err != nil && addErr == nil {
				addErr = err
			}
		}
	}
	if addErr != nil {
		return "", addErr
	}
	return made, nil
}

// ---- atomic push of compare-and-swap updates ----

// RefUpdate is one ref a push moves: from Expect (the remote must hold exactly that; ""
// means the ref must not exist yet) to New ("" deletes it).
type RefUpdate struct {
	Ref    string
	New    string
	Expect string
}

// PushAtomicCmd pushes updates to remote all or nothing (--atomic), each guarded by its
// own lease (--force-with-lease=<ref>:<expect>), reporting per ref on stdout
// (--porcelain). --no-verify: these are copse's compare-and-swaps of refs it computed,
// not the user's push; the land's gate is its test.
func PushAtomicCmd(dir, remote string, updates []RefUpdate) (Cmd, error) {
	return pushAtomicCmd(dir, remote, updates, false)
}

func pushAtomicCmd(dir, remote string, updates []RefUpdate, dryRun bool) (Cmd, error) {
	reasons := []string{checkDir(dir), checkRemote(remote)}
	if len(updates) == 0 {
		reasons = append(reasons, "no ref updates")
	}
	seen := map[string]bool{}
	for _, u := range updates {
		reasons = append(reasons, checkFullRef(u.Ref))
		if u.New != "" {
			reasons = append(reasons, checkOID("new", u.New))
		}
		if u.Expect != "" {
			reasons = append(reasons, checkOID("expected", u.Expect))
		}
		if u.New == "" && u.Expect == "" {
			reasons = append(reasons, fmt.Sprintf("deleting %s needs the value it is expected at", u.Ref))
		}
		if seen[u.Ref] {
			reasons = append(reasons, fmt.Sprintf("ref %s updated twice", u.Ref))
		}
		seen[u.Ref] = true
	}
	if err := check("push", reasons...); err != nil {
		return Cmd{}, err
	}
	args := append(append([]string(nil), remoteArgs...), "push", "--atomic", "--porcelain", "--no-verify",
		"--no-recurse-submodules", "--no-follow-tags")
	if dryRun {
		args = append(args, "--dry-run")
	}
	for _, u := range updates {
		args = append(args, "--force-with-lease="+u.Ref+":"+u.Expect)
	}
	args = append(args, "--", remote)
	for _, u := range updates {
		args = append(args, u.New+":"+u.Ref)
	}
	return Cmd{dir: dir, args: args}, nil
}

// PushStatus is what the remote did with one ref of a push.
type PushStatus int

const (
	PushOK             PushStatus = iota + 1 // updated (or already there)
	PushStale                                // the lease was lost: the remote's ref is not at Expect
	PushRejected                             // refused by git itself (non-fast-forward and the like)
	PushRemoteRejected                       // refused by the server: a hook, a branch rule
	PushAtomicFailed                         // not updated because another ref of the atomic push failed
)

func (s PushStatus) String() string {
	switch s {
	case PushOK:
		return "ok"
	case PushStale:
		return "stale"
	case PushRejected:
		return "rejected"
	case PushRemoteRejected:
		return "remote rejected"
	case PushAtomicFailed:
		return "atomic push failed"
	}
	return fmt.Sprintf("PushStatus(%d)", int(s))
}

// RefResult is one ref of a push's porcelain report.
type RefResult struct {
	Ref    string
	Status PushStatus
	Reason string // git's reason in parentheses: "stale info", "pre-receive hook declined"
}

// PushResult is a push's outcome. Refs holds a line per ref git reported; Remote holds the
// server's own messages (its "remote:" lines: what a hook printed), trailing blanks and
// terminal clear codes removed.
type PushResult struct {
	Refs   []RefResult
	Remote []string
}

// Ref returns the result of ref, ok false when git reported nothing for it.
func (p PushResult) Ref(ref string) (RefResult, bool) {
	for _, r := range p.Refs {
		if r.Ref == ref {
			return r, true
		}
	}
	return RefResult{}, false
}

// Message is the server's messages as one text.
func (p PushResult) Message() string { return strings.Join(p.Remote, "\n") }

// ErrNoAtomicPush is the remote not advertising atomic pushes: git refuses --atomic before
// anything is sent.
var ErrNoAtomicPush = errors.New("the remote does not support atomic pushes")

// ErrPushIncomplete is a push git did not report for every ref: the connection dropped
// or the server died, and the server may or may not have applied it. Only reading the
// remote (RemoteRefs) settles it.
var ErrPushIncomplete = errors.New("the push ended without a result for every ref")

// PushAtomic runs PushAtomicCmd. A push git reported for every ref returns its result and
// no error, whatever each ref's status (the caller reads them); a server without atomic
// pushes is ErrNoAtomicPush (nothing was sent); anything else, a push without a status for
// every ref, is ErrPushIncomplete wrapping git's error, with what was reported.
func (r *Runner) PushAtomic(ctx context.Context, dir, remote string, updates []RefUpdate) (PushResult, error) {
	c, err := PushAtomicCmd(dir, remote, updates)
	if err != nil {
		return PushResult{}, err
	}
	out, runErr := r.Run(ctx, c)
	stderr := ""
	var ge *Error
	if errors.As(runErr, &ge) {
		out, stderr = []byte(ge.Stdout), ge.Stderr
	}
	if runErr != nil && strings.Contains(stderr, "does not support --atomic push") {
		return PushResult{}, fmt.Errorf("%w: %w", ErrNoAtomicPush, runErr)
	}
	res := ParsePushPorcelain(out, stderr)
	for _, u := range updates {
		if _, ok := res.Ref(u.Ref); !ok {
			if runErr == nil {
				runErr = fmt.Errorf("git push exited 0 without reporting %s", u.Ref)
			}
			return res, fmt.Errorf("%w: %w", ErrPushIncomplete, runErr)
		}
	}
	if runErr != nil {
		var ge *Error
		if !errors.As(runErr, &ge) || ge.Kind != ErrExit || ge.ExitCode != 1 {
			// Killed, timed out, or a fatal error after the report: not a report to trust.
			return res, fmt.Errorf("%w: %w", ErrPushIncomplete, runErr)
		}
	}
	return res, nil
}

// ParsePushPorcelain reads `push --porcelain`'s stdout ("<flag>\t<from>:<to>\t<summary>
// (<reason>)" per ref, between "To <url>" and "Done") and the "remote:" lines of its stderr.
func ParsePushPorcelain(stdout []byte, stderr string) PushResult {
	var res PushResult
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 || len(f[0]) != 1 {
			continue // "To <url>", "Done"
		}
		_, to, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		summary, reason := f[2], ""
		if i := strings.Index(summary, " ("); i >= 0 && strings.HasSuffix(summary, ")") {
			summary, reason = summary[:i], summary[i+2:len(summary)-1]
		}
		rr := RefResult{Ref: to, Reason: reason}
		switch {
		case f[0] != "!":
			rr.Status = PushOK
		case reason == "stale info":
			rr.Status = PushStale
		case reason == "atomic push failed":
			rr.Status = PushAtomicFailed
		case summary == "[remote rejected]" || summary == "[remote failure]":
			rr.Status = PushRemoteRejected
		default:
			rr.Status = PushRejected
		}
		res.Refs = append(res.Refs, rr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		msg, ok := strings.CutPrefix(l, "remote: ")
		if !ok {
			if l == "remote:" {
				res.Remote = append(res.Remote, "")
			}
			continue
		}
		// git pads each server line with blanks (or a clear-to-end-of-line code on a
		// terminal) to overwrite progress output.
		msg = strings.TrimRight(strings.ReplaceAll(msg, "\x1b[K", ""), " \t\r")
		res.Remote = append(res.Remote, msg)
	}
	// Two pushes that both passed the lease check against what the server advertised race
	// on the server: the loser's ref transaction finds the ref moved under its lock and
	// the server refuses ("atomic transaction failed", or the lock error itself), saying
	// which ref in a line of its own. That is a lost lease like the client's "stale info".
	// The other refs of that transaction were refused with it, for no reason of their own.
	stale := false
	for i, rr := range res.Refs {
		if rr.Status == PushRemoteRejected && serverLeaseLost(rr, res.Remote) {
			res.Refs[i].Status, stale = PushStale, true
		}
	}
	for i, rr := range res.Refs {
		if stale && rr.Status == PushRemoteRejected && rr.Reason == "atomic transaction failed" {
			res.Refs[i].Status = PushAtomicFailed
		}
	}
	return res
}

func serverLeaseLost(rr RefResult, remote []string) bool {
	lost := func(s string) bool {
		rest, ok := strings.CutPrefix(s, "cannot lock ref '"+rr.Ref+"': ")
		return ok && (strings.HasPrefix(rest, "is at ") && strings.Contains(rest, " but expected ") ||
			rest == "reference already exists")
	}
	if lost(rr.Reason) {
		return true
	}
	for _, l := range remote {
		if lost(strings.TrimPrefix(l, "error: ")) {
			return true
		}
	}
	return false
}

// ---- what the remote accepts ----

// PushAbilities is what a probe found the remote to accept.
type PushAbilities struct {
	Atomic     bool   // the server advertises atomic pushes
	CustomRefs bool   // a ref under the prefix probed could be created and deleted
	Message    string // when CustomRefs is false: the server's reason, as it gave it
}

// ProbePush finds out once whether remote takes atomic pushes (a dry run: git refuses
// --atomic after reading the server's capabilities, before sending anything) and whether it
// accepts refs under prefix ("refs/copse/"; a real push creating <prefix>probe/<random> at
// commit, which the remote should already have so no object travels, then deleting it,
// each a compare-and-swap). A remote without atomic pushes is not probed for custom refs:
// copse would not use it either way.
func (r *Runner) ProbePush(ctx context.Context, dir, remote, commit, prefix string) (PushAbilities, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return PushAbilities{}, err
	}
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
		return PushAbilities{}, &BuildError{Action: "push", Reason: fmt.Sprintf("probe prefix %q is not refs/…/", prefix)}
	}
	probe := prefix + "probe/" + hex.EncodeToString(rnd[:])
	c, err := pushAtomicCmd(dir, remote, []RefUpdate{{Ref: probe, New: commit}}, true)
	if err != nil {
		return PushAbilities{}, err
	}
	var ab PushAbilities
	if _, err := r.Run(ctx, c); err != nil {
		var ge *Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "does not support --atomic push") {
			return ab, nil
		}
		return ab, err
	}
	ab.Atomic = true
	res, err := r.PushAtomic(ctx, dir, remote, []RefUpdate{{Ref: probe, New: commit}})
	if err != nil {
		return ab, err
	}
	if rr, _ := res.Ref(probe); rr.Status != PushOK {
		ab.Message = res.Message()
		if ab.Message == "" {
			ab.Message = rr.Reason
		}
		return ab, nil
	}
	ab.CustomRefs = true
	res, err = r.PushAtomic(ctx, dir, remote, []RefUpdate{{Ref: probe, Expect: commit}})
	if err != nil {
		return ab, err
	}
	if rr, _ := res.Ref(probe); rr.Status != PushOK {
		return ab, fmt.Errorf("gitx: the probe ref %s was created on %s but could not be deleted (%s): delete it by hand", probe, remote, rr.Reason)
	}
	return ab, nil
}
