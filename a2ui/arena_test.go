package a2ui

// The package's tests overwrite an arena's copy of a message when it is
// put back, so a decoded string kept without a copy shows in their
// results.
func init() { poison = true }
