//go:build unix

package adapter

import (
	"net"
	"syscall"
)

// waitClosed waits until conn is readable and reports whether the peer
// closed it, without reading: what the client sends next stays for the
// next reader. ok is false where it cannot peek (not a socket).
func waitClosed(conn net.Conn) (gone, ok bool) {
	sc, isSock := conn.(syscall.Conn)
	if !isSock {
		return false, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
			return false // not readable yet: wait
		case err != nil || n == 0:
			gone = true
		}
		return true // closed, or data waiting
	})
	if err != nil {
		return false, true // the read deadline (Close) or a closed conn: not the client's doing
	}
	return gone, true
}
