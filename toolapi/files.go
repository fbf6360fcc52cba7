package toolapi

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// The tools that complete the native set: moving, deleting and making folders,
// reading several files at once and looking at a file without reading it. A move and
// a deletion of a file are the plans apply_patch makes for `*** Move to` and
// `*** Delete File`, so they share its commit, journal, undo and replay.

// Tool names.
const (
	MoveFile        = "move_file"
	DeleteFile      = "delete_file"
	CreateDirectory = "create_directory"
	ReadFiles       = "read_files"
	FileInfo        = "file_info"
)

// maxReadFiles bounds the files one read_files call names.
const maxReadFiles = 50

var moveFileDef = &toolDef{
	name: MoveFile,
	desc: "Move or rename a file. The destination must not exist (a move never overwrites); missing parent folders are created. " +
		"The file is renamed: it keeps its content, permissions and hard links; undo_edit on either path moves it back. A folder moves with every file in it, as one change (at most 100 files; not one holding symlinks or empty folders).",
	args: objectDef{fields: []argDef{
		{name: "source", typ: tString, required: true, min: 1, path: true, aliases: []string{"from", "old_path", "src"}, desc: "The file to move, relative to the workspace root."},
		{name: "destination", typ: tString, required: true, min: 1, path: true, aliases: []string{"to", "new_path", "dest"}, desc: "Its new path, relative to the workspace root; must not exist."},
	}},
	shape: `{"source": "src/old.ts", "destination": "src/new.ts"}`,
	op:    journal.OpDelete,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setNative},
	run:   (*dispatcher).moveFile,
}

var deleteFileDef = &toolDef{
	name: DeleteFile,
	desc: "Delete a file, or a folder that is empty (a folder with anything in it is refused). " +
		"No read is needed first; the journal keeps the file's content, and undo_edit on the path puts the file back as it was.",
	args: objectDef{fields: []argDef{
		pathArg("The file or empty folder, relative to the workspace root."),
	}},
	shape: `{"path": "src/old.ts"}`,
	op:    journal.OpDelete,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setNative},
	run:   (*dispatcher).deleteFile,
}

var createDirectoryDef = &toolDef{
	name: CreateDirectory,
	desc: "Make a folder, with any missing parent folders. A folder that already exists is fine (the reply says so); a file at the path is refused. " +
		"create_file makes the folders of a new file itself, so this is only needed for an empty folder.",
	args: objectDef{fields: []argDef{
		pathArg("The folder, relative to the workspace root."),
	}},
	shape: `{"path": "src/components"}`,
	op:    journal.OpCreate,
	needs: needs{write: true, addOnly: true},
	sets:  []string{setNative},
	run:   (*dispatcher).createDirectory,
}

var readFilesDef = &toolDef{
	name: ReadFiles,
	desc: "Read several text files in one call, each shown as read_file shows it (numbered lines) under a line `==> path <==`, and each counted as read for write_file. " +
		"A file that cannot be read says why and does not stop the others. offset and limit apply to every file as in read_file.",
	args: objectDef{fields: []argDef{
		{name: "paths", typ: tArray, elem: tString, required: true, min: 1, maxItems: maxReadFiles, path: true, aliases: []string{"files", "file_paths"},
			desc: fmt.Sprintf("The files, relative to the workspace root; at most %d.", maxReadFiles)},
		{name: "offset", typ: tInteger, signed: true, def: 1, desc: "First line to read of each file, 1-based; negative counts from the end (-20: the last 20 lines)."},
		{name: "limit", typ: tInteger, min: 1, def: DefaultReadLimit, desc: "Most lines to read of each file."},
	}},
	shape: `{"paths": ["src/a.ts", "src/b.ts"]}`,
	op:    journal.OpRead,
	sets:  []string{setNative},
	run:   (*dispatcher).readFiles,
}

var fileInfoDef = &toolDef{
	name: FileInfo,
	desc: "Describe a file or folder without reading it into the conversation: kind, size, lines, permissions, modification time, line ending, BOM, encoding and the language the syntax guard checks; for a folder, how many entries it holds. " +
		"It does not count as a read for write_file.",
	args: objectDef{fields: []argDef{
		pathArg("The file or folder, relative to the workspace root."),
	}},
	shape: `{"path": "src/app.ts"}`,
	op:    journal.OpRead,
	sets:  []string{setNative},
	run:   (*dispatcher).fileInfo,
}

// foundFullFolder is what stood at a folder delete_file refused: one with entries.
const foundFullFolder = "a folder with entries"

// isFolder reports whether r is a folder itself, not reached through a symlink.
func isFolder(r *vfs.Resolved) bool { return r.Exists && !r.Link && r.Info.IsDir() }

// trimFolder takes a path where a tool accepts a folder: "src/" is the folder src, as
// the shell takes it. It returns p without its trailing slashes, and whether it had
// one (then what stands there must be a folder).
func trimFolder(p string) (string, bool) {
	q := strings.TrimRight(p, "/")
	if q == "" || q == p {
		return p, false
	}
	return q, true
}

// shown is p as a reply names it: from the root and clean ("./nd4" is nd4), without
// resolving symlinks; p as sent where it cannot be cleaned.
func (a *dispatcher) shown(p string) string {
	if q, err := a.eng.FS().Clean(p); err == nil {
		return q
	}
	return p
}

// notAFolder is the refusal of p, sent with a trailing slash, where a file stands.
func notAFolder(arg, p string) error {
	return errs.New(errs.NotAFile, p, "%s%s/ ends with a slash, which names a folder, but %s is a file. To name the file, send %s without the slash.", arg, p, p, p).Stood(errs.FoundFile, "")
}

// moveFile moves a file as apply_patch's `*** Move to` does: the deletion of the
// source and the create of the destination, one transaction, which renames the file
// (txn.Spec.From).
func (a *dispatcher) moveFile(c *txn.Call, _ string, in *input) (string, error) {
	src, srcDir := trimFolder(in.str("source"))
	dst, dstDir := trimFolder(in.str("destination"))
	fsys := a.eng.FS()
	rs, err := fsys.Resolve(src)
	if err != nil {
		return "", errs.Prefixed("source: ", err)
	}
	rd, err := fsys.Resolve(dst)
	if err != nil {
		return "", errs.Prefixed("destination: ", err)
	}
	if err := fsys.CheckNewName(rd); err != nil {
		return "", errs.Prefixed("destination: ", err)
	}
	src, dst = a.shown(src), a.shown(dst)
	if srcDir && (rs.Exists || rs.Link) && !rs.Info.IsDir() {
		c.Named(journal.OpDelete, src)
		return "", notAFolder("source: ", src)
	}
	// The refused path is named first: replay rebuilds what stood there.
	switch {
	case rs.Path == rd.Path:
		return "", errs.New(errs.InvalidInput, src, "move_file: source and destination are the same file (%s); nothing to move. Send a different destination.", rs.Path)
	case rd.Exists || rd.Link:
		c.Named(journal.OpCreate, dst)
		what, found := "a file", errs.FoundFile
		if t := rd.Through(); t != "" {
			return "", errs.New(errs.FileExists, dst, "move_file: the destination %s, and a move does not go through a symlink; nothing was moved. Send the destination's own path, %s.", t, rd.Path).Stood(found, "")
		}
		switch {
		case rd.Link:
			// A link is not the model's to remove: delete_file refuses it too.
			return "", errs.New(errs.FileExists, dst, "move_file: the destination %s is a symlink (to %s), and a move never overwrites; the file tools do not remove links. Send another destination.", dst, rd.Path).Stood(found, "")
		case rd.Info.IsDir():
			// mv would move the source into it; a move here never guesses that.
			into := path.Join(dst, path.Base(rs.Path))
			return "", errs.New(errs.FileExists, dst, "move_file: the destination %s is a folder that exists, and a move never goes into one by itself: the destination is the new path. To move %s into %s, send destination %s.", dst, src, dst, into).Stood(errs.FoundDir, "")
		}
		return "", errs.New(errs.FileExists, dst, "move_file: the destination %s already exists (%s), and a move never overwrites. Send another destination, or delete_file %s first.", dst, what, dst).Stood(found, "")
	case !rs.Exists && !rs.Link:
		msg := fmt.Sprintf("move_file: the source %s does not exist.", src)
		if s := fsys.Suggest(rs.Path); s != "" {
			msg += fmt.Sprintf(" Did you mean %s?", s)
		}
		return "", errs.New(errs.FileNotFound, src, "%s", msg)
	case isFolder(rs):
		return a.moveFolder(c, src, dst, rs, rd)
	case dstDir:
		c.Named(journal.OpCreate, dst)
		return "", errs.New(errs.InvalidInput, dst, "destination: %s/ ends with a slash, which names a folder, but the source %s is a file, and a file's destination is its new path. Send the new path without the slash (e.g. %s, or %s to move it into that folder).", dst, src, dst, path.Join(dst, path.Base(rs.Path)))
	}
	specs := []txn.Spec{
		{Path: src, Op: journal.OpDelete, Label: "source " + src},
		{Path: dst, Op: journal.OpCreate, From: src, Label: "destination " + dst},
	}
	changes, err := a.eng.Apply(c, specs, false)
	if err != nil {
		return "", err
	}
	moved := changes[1]
	return withWarnings(fmt.Sprintf("Moved %s to %s (%s, %s).", src, dst, plural(txn.CountLines(moved.After), "line"), plural(len(moved.After), "byte")), moved), nil
}

// maxMovedFiles bounds the files one folder move takes: it is one transaction.
const maxMovedFiles = 100

// moveFolder moves every file of a folder as moveFile moves one, in one transaction
// (so undo moves them all back, and makes the source's folders again with their
// bits), and removes the source's folders, empty by then, at its commit point.
// A folder holding what the journal cannot move back (a symlink, a special file, an
// empty folder, a reserved name) is refused, naming it.
func (a *dispatcher) moveFolder(c *txn.Call, src, dst string, rs, rd *vfs.Resolved) (string, error) {
	if rd.Path == rs.Path || strings.HasPrefix(rd.Path, rs.Path+"/") {
		c.Named(journal.OpDelete, src)
		return "", errs.New(errs.InvalidInput, src, "move_file cannot move the folder %s into itself (%s). Send a destination outside it.", src, dst).Stood(errs.FoundDir, "")
	}
	var files, dirs []string
	var bad, staged string
	var deep bool
	// Each name moved is made anew under rd.Path: a folder k folders below the source
	// puts its names 1+k deeper than rd.Path, and none may go past vfs.MaxNewDepth.
	// The walk reads no folder past that, so a tree of any depth costs it little.
	room := vfs.MaxNewDepth - strings.Count(rd.Path, "/") - 1
	var walk func(dir string, k int)
	walk = func(dir string, k int) {
		if k > room {
			to := path.Join(dst, strings.TrimPrefix(strings.TrimPrefix(dir, rs.Path), "/"))
			bad = fmt.Sprintf("the names in %s would be %d or more folders deep in %s, and a call makes names at most %d folders deep", dir, strings.Count(rd.Path, "/")+1+k, to, vfs.MaxNewDepth)
			deep = true
			return
		}
		list, err := afero.ReadDir(a.eng.FS().Afero(), dir)
		if err != nil && bad == "" {
			bad = fmt.Sprintf("%s could not be read (%v)", dir, err)
		}
		if len(list) == 0 && dir != rs.Path && bad == "" {
			bad = dir + " is an empty folder, which a move of its folder does not take (it moves files)"
		}
		dirs = append(dirs, dir)
		for _, e := range list {
			p := path.Join(dir, e.Name())
			switch {
			case bad != "":
				return
			case vfs.IsStaging(e.Name()):
				// Another vfsctl's write or deletion, staged there until its commit
				// point: gone in a moment, not the model's to work around.
				staged, bad = p, p+" is being written"
			case a.eng.FS().Reserved(e.Name()) || vfs.StagingPrefix(e.Name()) != "":
				bad = p + " is reserved, which the file tools do not touch"
			case e.Mode()&fs.ModeSymlink != 0:
				bad = p + " is a symlink, which move_file does not move"
			case e.IsDir():
				walk(p, k+1)
			case !e.Mode().IsRegular():
				bad = p + " is not a regular file"
			default:
				files = append(files, p)
			}
		}
	}
	walk(rs.Path, 0)
	if bad != "" || len(files) == 0 || len(files) > maxMovedFiles {
		c.Named(journal.OpDelete, src) // the refused path first: replay rebuilds what stood there
	}
	switch {
	case staged != "":
		return "", errs.New(errs.Busy, src, "move_file did not move the folder %s: another process is writing there (%s is its file being staged). Nothing was moved; send the move again.", src, staged)
	case deep:
		return "", errs.New(errs.TooLarge, src, "move_file did not move the folder %s: %s. Nothing was moved. Send a destination fewer folders deep, or move the folders inside %s one by one.", src, bad, src).Stood(errs.FoundDir, "")
	case bad != "":
		return "", errs.New(errs.NotAFile, src, "move_file refused to move the folder %s: %s. Move its files one by one instead; nothing was moved.", src, bad).Stood(errs.FoundDir, "")
	case len(files) == 0:
		return "", errs.New(errs.NotAFile, src, "%s is an empty folder, and move_file moves a folder's files: make %s with create_directory and delete_file %s instead (undo takes both back); nothing was moved.", src, dst, src).Stood(errs.FoundDir, "")
	case len(files) > maxMovedFiles:
		return "", errs.New(errs.TooLarge, src, "the folder %s holds %d files; one move takes at most %d, so that it stays one transaction. Move its subfolders one by one; nothing was moved.", src, len(files), maxMovedFiles)
	}
	var specs []txn.Spec
	for _, f := range files {
		rel := strings.TrimPrefix(f, rs.Path+"/")
		from, to := path.Join(src, rel), path.Join(dst, rel)
		specs = append(specs, txn.Spec{Path: from, Op: journal.OpDelete, Label: "source " + from},
			txn.Spec{Path: to, Op: journal.OpCreate, From: from, Label: "destination " + to})
	}
	// The source's folders go at the commit point, deepest first, journaled with
	// their bits; one someone put a file in meanwhile stays, with that file.
	_, kept, err := a.eng.ApplyRemovingFolders(c, specs, dirs, rd.Path)
	if err != nil {
		return "", err
	}
	text := fmt.Sprintf("Moved the folder %s/ to %s/ (%s). undo_edit on any of its files moves them all back.", src, dst, plural(len(files), "file"))
	if len(kept) > 0 {
		text += fmt.Sprintf(" These source folders stay: something else is in them now: %s.", strings.Join(kept, ", "))
	}
	return text, nil
}

// deleteFile deletes a file as apply_patch's `*** Delete File` does, or removes an
// empty folder.
func (a *dispatcher) deleteFile(c *txn.Call, _ string, in *input) (string, error) {
	p, dir := trimFolder(in.str("path"))
	fsys := a.eng.FS()
	r, err := fsys.Resolve(p)
	if err != nil {
		return "", err
	}
	p = a.shown(p)
	if isFolder(r) {
		return a.removeFolder(c, p, r)
	}
	if dir && (r.Exists || r.Link) {
		return "", notAFolder("", p)
	}
	if !r.Exists && !r.Link {
		msg := fmt.Sprintf("%s does not exist, so there is nothing to delete.", p)
		if s := fsys.Suggest(r.Path); s != "" {
			msg += fmt.Sprintf(" Did you mean %s?", s)
		}
		return "", errs.New(errs.FileNotFound, p, "%s", msg)
	}
	ch, err := a.eng.Apply(c, []txn.Spec{{Path: p, Op: journal.OpDelete}}, false)
	if err != nil {
		return "", err
	}
	if n := ch[0].HardLinks; n > 1 {
		// Its other names keep the inode; an undo can only write the content anew.
		return fmt.Sprintf("Deleted %s (%s, %s). It had %d hard links: the file stays under its other names. undo_edit %s puts back a copy, a file of its own, not linked to them again.",
			p, plural(txn.CountLines(ch[0].Before), "line"), plural(len(ch[0].Before), "byte"), n, p), nil
	}
	return fmt.Sprintf("Deleted %s (%s, %s). undo_edit %s puts it back.", p, plural(txn.CountLines(ch[0].Before), "line"), plural(len(ch[0].Before), "byte"), p), nil
}

// removeFolder removes an empty folder. A folder holds no content to keep: the record
// names it with its bits, and its undo makes it again.
func (a *dispatcher) removeFolder(c *txn.Call, p string, r *vfs.Resolved) (string, error) {
	if err := c.Hold(); err != nil { // it changes the workspace itself, not through Apply
		return "", err
	}
	fsys := a.eng.FS()
	n, err := fsys.Entries(r.Path)
	if err != nil {
		return "", errs.Wrap(errs.IOError, p, err, "Cannot read the folder %s: %v. Nothing was deleted.", p, err)
	}
	c.Looked(r.Path)
	if n > 0 {
		// What the folder holds is not kept: replay says so rather than rebuild it empty.
		return "", errs.New(errs.NotAFile, p, "%s is a folder that holds %s; delete_file removes a folder only when it is empty. Delete or move what is in it first (list_files %s shows it); nothing was deleted.",
			p, entries(n), p).Stood(foundFullFolder, "")
	}
	if err := fsys.CheckWritable(r); err != nil {
		return "", err
	}
	if err := a.eng.RemoveFolder(c, r.Path); err != nil {
		return "", err
	}
	return fmt.Sprintf("Deleted the empty folder %s/. undo_edit %s makes it again, with its permissions.", p, p), nil
}

func (a *dispatcher) createDirectory(c *txn.Call, _ string, in *input) (string, error) {
	p, _ := trimFolder(in.str("path"))
	fsys := a.eng.FS()
	r, err := fsys.Resolve(p)
	if err != nil {
		return "", err
	}
	p = a.shown(p)
	c.Looked(r.Path)
	if err := fsys.CheckNewFolder(r); err != nil {
		return "", err
	}
	switch {
	case r.Exists && r.Info.IsDir():
		return fmt.Sprintf("%s/ already exists as a folder; nothing was made.", p), nil
	case r.Exists || r.Link:
		what := "a file"
		if r.Link {
			what = "a symlink"
		}
		return "", errs.New(errs.FileExists, p, "%s already exists as %s, so no folder can be made there. Send another path.", p, what).Stood(errs.FoundFile, "")
	}
	made, err := a.eng.MakeFolders(c, r.Path)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return "", err
		}
		return "", errs.Wrap(errs.IOError, p, err, "Could not make the folder %s: %v.", p, err)
	}
	switch {
	case len(made) == 0: // someone else made it meanwhile
		return fmt.Sprintf("%s/ already exists as a folder; nothing was made.", p), nil
	case len(made) > 1:
		return fmt.Sprintf("Made the folder %s/ and its parents %s.", p, strings.Join(made[:len(made)-1], ", ")), nil
	}
	return fmt.Sprintf("Made the folder %s/.", p), nil
}

// readFiles reads each file as read_file does; a file that cannot be read says why.
// The reply is bounded as one read_file reply is: the files past the bound are not
// read (nor counted as read) and the reply names them.
func (a *dispatcher) readFiles(c *txn.Call, _ string, in *input) (string, error) {
	paths := in.strs("paths")
	var b strings.Builder
	var failed []error
	var unread []string
	for _, p := range paths {
		if b.Len() >= MaxReplyBytes {
			unread = append(unread, p)
			continue
		}
		fmt.Fprintf(&b, "==> %s <==\n", p)
		args := &readArgs{path: p, offset: in.num("offset"), limit: in.num("limit")}
		r, err := a.eng.Read(c, p)
		if err != nil {
			failed = append(failed, err)
			fmt.Fprintf(&b, "(not read: %s) %s\n\n", errs.KindOf(err), err.Error())
			continue
		}
		text, spans := renderRead(args, r)
		c.Shown(spans, r.TotalLines)
		b.WriteString(strings.TrimRight(text, "\n") + "\n\n")
	}
	if len(failed) == len(paths) {
		if len(paths) == 1 {
			return "", failed[0]
		}
		return "", errs.New(errs.KindOf(failed[0]), "", "None of the %d files could be read.\n%s", len(paths), strings.TrimRight(b.String(), "\n"))
	}
	if len(unread) > 0 {
		fmt.Fprintf(&b, "(the reply reached %d KiB; not read: %s. Read them in another call.)\n", MaxReplyBytes>>10, strings.Join(unread, ", "))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// fileInfo describes a file or folder. It looks at the content to count lines and
// tell the encoding, but shows none of it, so it is not a read for write_file.
func (a *dispatcher) fileInfo(c *txn.Call, _ string, in *input) (string, error) {
	p := in.str("path")
	fsys := a.eng.FS()
	r, err := fsys.Resolve(strings.TrimSuffix(p, "/"))
	if err != nil {
		if errors.Is(err, vfs.ErrRoot) {
			r = &vfs.Resolved{Name: p, Path: "."}
			if r.Info, err = fsys.Afero().Stat("."); err != nil {
				return "", errs.Wrap(errs.IOError, p, err, "Cannot look at the workspace root: %v.", err)
			}
			r.Exists = true
		} else {
			return "", err
		}
	}
	if !r.Exists {
		if err := fsys.CheckFile(r); err != nil {
			return "", err
		}
	}
	fi := r.Info
	if !fi.Mode().IsRegular() || fi.Size() > fsys.MaxFileSize() {
		c.Looked(r.Path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", p)
	switch {
	case r.IsLink():
		fmt.Fprintf(&b, "symlink to: %s\n", r.Path)
	case r.Link:
		fmt.Fprintf(&b, "through the symlink %s: %s\n", r.LinkAt, r.Path)
	}
	mode := fmt.Sprintf("permissions: %04o (%s)\nmodified: %s\n", fi.Mode().Perm(), fi.Mode(), fi.ModTime().UTC().Format(time.RFC3339))
	switch {
	case fi.IsDir():
		n, err := fsys.Entries(r.Path)
		if err != nil {
			return "", errs.Wrap(errs.IOError, p, err, "Cannot read the folder %s: %v.", p, err)
		}
		fmt.Fprintf(&b, "kind: folder\nentries: %d\n%s", n, mode)
		return strings.TrimRight(b.String(), "\n"), nil
	case !fi.Mode().IsRegular():
		fmt.Fprintf(&b, "kind: %s (not a regular file: the file tools do not read it)\n%s", fi.Mode().Type(), mode)
		return strings.TrimRight(b.String(), "\n"), nil
	}
	fmt.Fprintf(&b, "kind: file\nsize: %s\n%s", plural(int(fi.Size()), "byte"), mode)
	if fi.Size() > fsys.MaxFileSize() {
		fmt.Fprintf(&b, "(over %d bytes: too large for the file tools, so not looked into)", fsys.MaxFileSize())
		return b.String(), nil
	}
	f, err := fsys.Read(p)
	if err != nil {
		return "", err
	}
	c.Saw(f.Path, f.Data)
	b.WriteString(textFacts(p, f.Data))
	return strings.TrimRight(b.String(), "\n"), nil
}

// textFacts are the lines, line ending, BOM, encoding and guarded language of data.
func textFacts(p string, data []byte) string {
	var b strings.Builder
	if bytes.IndexByte(data, 0) >= 0 {
		b.WriteString("encoding: binary (it holds NUL bytes; the file tools do not read or edit it)\n")
		return b.String()
	}
	fmt.Fprintf(&b, "lines: %d\n", txn.CountLines(data))
	fmt.Fprintf(&b, "line ending: %s\n", lineEnding(data))
	bom := bytes.HasPrefix(data, []byte("\xef\xbb\xbf"))
	fmt.Fprintf(&b, "bom: %s\n", yesNo(bom))
	switch {
	case utf8.Valid(data):
		b.WriteString("encoding: UTF-8\n")
	case matcher.EightBit(data):
		b.WriteString("encoding: not UTF-8, an 8-bit encoding such as Latin-1 (read_file shows each byte beyond ASCII as U+FFFD, and U+FFFD in oldText matches one; edits may add ASCII text only: convert the file to UTF-8 to add other characters)\n")
	default:
		b.WriteString("encoding: UTF-8 with bytes that are not valid UTF-8 (read_file shows each as U+FFFD, and U+FFFD in oldText matches one)\n")
	}
	if lang := guard.Language(p, data); lang != "" {
		if why := guard.Unchecked(p, data, data); why != "" {
			fmt.Fprintf(&b, "language: %s (its syntax is not guarded: %s)\n", lang, why)
		} else {
			fmt.Fprintf(&b, "language: %s (its syntax is guarded)\n", lang)
		}
	} else {
		b.WriteString("language: none the syntax guard knows\n")
	}
	return b.String()
}

// lineEnding names how data's lines end: LF, CRLF, CR, mixed (with the counts), or
// none for a file of one line without a break.
func lineEnding(data []byte) string {
	crlf := bytes.Count(data, []byte("\r\n"))
	lf := bytes.Count(data, []byte("\n")) - crlf
	cr := bytes.Count(data, []byte("\r")) - crlf
	var kinds []string
	for _, k := range []struct {
		n    int
		name string
	}{{lf, "LF"}, {crlf, "CRLF"}, {cr, "CR"}} {
		if k.n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.name))
		}
	}
	switch len(kinds) {
	case 0:
		return "none (no line break)"
	case 1:
		return strings.SplitN(kinds[0], " ", 2)[1]
	}
	return "mixed (" + strings.Join(kinds, ", ") + ")"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
