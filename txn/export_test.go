package txn

// SetTestHookPlanned sets, for the tests outside the package, what runs when a call has
// planned its changes (testHookPlanned); nil removes it.
func SetTestHookPlanned(f func()) { testHookPlanned = f }
