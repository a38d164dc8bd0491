//go:build !linux

package takeover

import "net"

// leaveWatcher is Linux's (epoll); elsewhere each connection is watched
// by a goroutine of its own (Stream.watch, handBack.give).
type leaveWatcher struct{}

func newLeaveWatcher() *leaveWatcher                       { return nil }
func (*leaveWatcher) add(net.Conn, func(readiness)) uint64 { return 0 }
func (*leaveWatcher) remove(uint64) bool                   { return false }
func (*leaveWatcher) stop()                                {}
