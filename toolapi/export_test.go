package toolapi

// WaitFreed waits for what calls left to do after their replies (the closing of the
// files they replaced, vfs.Staged.release): a benchmark waits for it before it times
// the floor, which that work would otherwise slow down.
func (e *Engine) WaitFreed() { e.api.eng.FS().WaitFreed() }
