//go:build !unix

package adapter

import "net"

// waitClosed cannot peek here: the watcher reads instead.
func waitClosed(net.Conn) (gone, ok bool) { return false, false }
