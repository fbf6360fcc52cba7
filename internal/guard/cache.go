package guard

import (
	"bytes"
	"sync"
)

// The last parses of each file, so that the old content of an edit (the new content
// of the one before) is not parsed again and tree-sitter can reparse incrementally.
// Entries hold the content they were parsed from and are matched by it, byte for
// byte: a file changed by someone else simply misses.
type entry struct {
	content []byte
	errs    []synErr
	tree    any // the backend's tree, for an incremental parse; may be nil
}

const (
	perFile    = 2   // the old and the new content of the last change
	maxEntries = 128 // files; past this the cache starts over
)

var cache = struct {
	sync.Mutex
	files   map[string][]*entry
	warming map[string]bool // files being parsed in the background
}{files: map[string][]*entry{}, warming: map[string]bool{}}

// warm parses src, the content of file p, in the background, unless it already is.
func warm(p, lang string, parse parseFunc, src []byte) {
	cache.Lock()
	busy := cache.warming[p]
	cache.warming[p] = true
	cache.Unlock()
	if busy {
		return
	}
	go func() {
		parseCached(p, lang, parse, src)
		cache.Lock()
		delete(cache.warming, p)
		cache.Unlock()
	}()
}

// incremental, when a backend sets it, parses src in lang from prev (nil for a full
// parse) and returns its errors and tree. ok is false for a language it lacks.
var incremental func(lang string, prev *entry, src []byte) (errs []synErr, tree any, ok bool)

// cached reports whether the cache holds a parse of file p with content src.
func cached(p string, src []byte) bool {
	cache.Lock()
	defer cache.Unlock()
	for _, e := range cache.files[p] {
		if bytes.Equal(e.content, src) {
			return true
		}
	}
	return false
}

// parseCached returns the errors of src, the content of file p in lang.
func parseCached(p, lang string, parse parseFunc, src []byte) []synErr {
	cache.Lock()
	var prev *entry
	for _, e := range cache.files[p] {
		if bytes.Equal(e.content, src) {
			cache.Unlock()
			return e.errs
		}
		if prev == nil {
			prev = e
		}
	}
	cache.Unlock()

	e := &entry{content: src}
	if incremental != nil {
		if errs, tree, ok := incremental(lang, prev, src); ok {
			e.errs, e.tree = errs, tree
		} else {
			e.errs = parse(src)
		}
	} else {
		e.errs = parse(src)
	}

	cache.Lock()
	if len(cache.files) >= maxEntries && cache.files[p] == nil {
		cache.files = map[string][]*entry{}
	}
	list := append([]*entry{e}, cache.files[p]...)
	if len(list) > perFile {
		list = list[:perFile]
	}
	cache.files[p] = list
	cache.Unlock()
	return e.errs
}

// Prime parses content, the content of file p, into the cache now, so that the next
// guarded change of that content is warm (a benchmark, or a caller that knows a file
// is about to be edited); not a file larger than the guard parses.
func Prime(p string, content []byte) {
	lang := Language(p, content)
	if parse := languages[lang]; parse != nil && len(content) <= maxSize(lang) {
		parseCached(p, lang, parse, AsParsed(lang, content)) // as Syntax looks it up
	}
}

// Forget drops what the cache holds of file p (a file removed or renamed).
func Forget(p string) {
	cache.Lock()
	delete(cache.files, p)
	cache.Unlock()
}
