//go:build unix

package takeover

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
	var r readiness
	err = rc.Read(func(fd uintptr) bool {
		r = peek(int(fd))
		return r != notReady // not readable yet: wait
	})
	if err != nil {
		return waitStopped // a read deadline, or closed here: not the client's doing
	}
	return r
}

// peek tells what the client of the socket fd did, without reading or
// waiting: notReady, dataWaiting or peerClosed.
func peek(fd int) readiness {
	var b [1]byte
	n, _, err := syscall.Recvfrom(fd, b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == syscall.EAGAIN || err == syscall.EINTR:
		return notReady
	case err != nil || n == 0:
		return peerClosed // closed, or failed
	}
	return dataWaiting
}
