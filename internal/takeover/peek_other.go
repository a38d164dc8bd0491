//go:build !unix

package takeover

import "net"

// waitReadable cannot peek here: the watcher reads instead, and a
// connection goes back to net/http at once.
func waitReadable(net.Conn) readiness { return cannotPeek }
