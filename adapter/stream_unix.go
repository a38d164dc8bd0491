//go:build unix

package adapter

import (
	"net"
	"syscall"
)

// waitReadable waits until conn is readable, without reading: what the
// client sends next stays for the next reader.
func waitReadable(conn net.Conn) readiness {
	sc, isSock := conn.(syscall.Conn)
	if !isSock {
		return cannotPeek
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return cannotPeek
	}
	r := dataWaiting
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
			return false // not readable yet: wait
		case err != nil || n == 0:
			r = peerClosed
		}
		return true // closed, or data waiting
	})
	if err != nil {
		return waitStopped // a read deadline, or closed here: not the client's doing
	}
	return r
}
