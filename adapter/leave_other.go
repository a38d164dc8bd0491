//go:build !linux

package adapter

// leaveWatcher is Linux's (epoll); elsewhere each taken-over stream
// watches its own connection (connStream.watch).
type leaveWatcher struct{}

func newLeaveWatcher() *leaveWatcher       { return nil }
func (*leaveWatcher) add(*connStream) bool { return false }
func (*leaveWatcher) remove(*connStream)   {}
func (*leaveWatcher) stop()                {}
