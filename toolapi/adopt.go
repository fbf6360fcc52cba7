package toolapi

import "github.com/vfsctl/vfsctl/journal"

// Adoption is what Adopt took over: the calls recorded, and those left pending (now
// marked unknown; no file is written for them).
type Adoption = journal.Adoption

// Adopt makes a journal that arrived with the files (checked in, copied, restored, or
// made by another user or an older vfsctl) the workspace's own: until then it is not
// acted on. Adopt it only if you trust what it records. A damaged journal is refused.
func (e *Engine) Adopt() (Adoption, error) { return e.api.eng.Adopt() }
