package takeover

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine of the package (streams' watches, the leaveWatcher,
// the hand-back listener's) ends with its owner.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
