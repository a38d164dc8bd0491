package takeover

import (
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// leaveWatcher waits, with one goroutine for all of them, until
// connections turn readable: taken-over streams, to notice their client
// leave, and connections given back after a stream, to notice the
// client's next request. It waits on an epoll set, where each connection
// would otherwise keep a goroutine of its own parked on it
// (Stream.watch, handBack.give), about 4 KiB of stack each. A
// connection is watched once (EPOLLONESHOT): when it turns readable the
// watcher peeks and reports what it saw. Owned by the Conns: stop ends
// the goroutine.
type leaveWatcher struct {
	epfd, wake int // the epoll set; an eventfd that stop writes

	mu      sync.Mutex
	stopped bool
	next    uint64 // the last id given; 0 is the wake eventfd's
	watched map[uint64]*watch
	done    chan struct{} // closed when the goroutine returns

	stopOnce sync.Once
}

// watch is one watched connection.
type watch struct {
	rc    syscall.RawConn
	ready func(readiness)
}

// newLeaveWatcher starts the watcher, or returns nil if the kernel
// refuses an epoll set: connections are then watched by goroutines.
func newLeaveWatcher() *leaveWatcher {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil
	}
	if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN}) != nil {
		unix.Close(wake)
		unix.Close(epfd)
		return nil
	}
	w := &leaveWatcher{epfd: epfd, wake: wake, watched: map[uint64]*watch{}, done: make(chan struct{})}
	go w.loop()
	return w
}

// add watches conn until it turns readable; then ready is called once,
// in the watcher's goroutine and outside its lock, with dataWaiting,
// peerClosed or (the connection was closed here) waitStopped. It returns
// the watch's id, or 0 if a nil or stopped watcher, or a connection that
// is not a socket, leaves the watching to the caller.
func (w *leaveWatcher) add(conn net.Conn, ready func(readiness)) uint64 {
	if w == nil {
		return 0
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return 0
	}
	w.next++
	id := w.next
	var added error
	// The descriptor is used only inside Control, where the connection
	// holds it open: it cannot be another connection's by then.
	if err := rc.Control(func(fd uintptr) {
		added = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, int(fd), watchEvent(id))
	}); err != nil || added != nil {
		return 0
	}
	w.watched[id] = &watch{rc: rc, ready: ready}
	return id
}

// watchEvent asks for one report of fd readable, closed or failed,
// carrying id.
func watchEvent(id uint64) *unix.EpollEvent {
	return &unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT,
		Fd:     int32(uint32(id)),
		Pad:    int32(uint32(id >> 32)),
	}
}

// remove ends watch id and reports whether it was still on: then ready
// is never called, and the watcher no longer touches the connection. If
// not, ready has been or is being called.
func (w *leaveWatcher) remove(id uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt := w.watched[id]
	if wt == nil {
		return false
	}
	delete(w.watched, id)
	if !w.stopped {
		_ = wt.rc.Control(func(fd uintptr) { _ = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_DEL, int(fd), nil) })
	}
	return true
}

// loop waits for reports until stop wakes it.
func (w *leaveWatcher) loop() {
	defer close(w.done)
	events := make([]unix.EpollEvent, 128)
	for {
		n, err := unix.EpollWait(w.epfd, events, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			w.abandon()
			return
		}
		for _, ev := range events[:n] {
			id := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			if id == 0 {
				return // stop
			}
			w.report(id)
		}
	}
}

// report handles the readable connection of watch id.
func (w *leaveWatcher) report(id uint64) {
	w.mu.Lock()
	wt := w.watched[id]
	if wt == nil || w.stopped {
		w.mu.Unlock()
		return // removed meanwhile
	}
	r := waitStopped
	_ = wt.rc.Control(func(fd uintptr) {
		r = peek(int(fd))
		if r == notReady {
			// Spurious: watch again.
			if unix.EpollCtl(w.epfd, unix.EPOLL_CTL_MOD, int(fd), watchEvent(id)) != nil {
				r = waitStopped
			}
			return
		}
		_ = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	})
	if r == notReady {
		w.mu.Unlock()
		return
	}
	delete(w.watched, id)
	w.mu.Unlock()
	wt.ready(r)
}

// abandon ends every watch when epoll fails (it does not, short of a
// kernel bug): a stream's client is then noticed when a write fails, and
// a connection given back waits until the server closes.
func (w *leaveWatcher) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	clear(w.watched)
}

// stop ends the goroutine and releases the epoll set. What is still
// watched is no longer (remove then reports false).
func (w *leaveWatcher) stop() {
	if w == nil {
		return
	}
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.stopped = true
		clear(w.watched)
		w.mu.Unlock()
		var one [8]byte
		one[0] = 1 // eventfd adds a native-endian uint64; any byte set wakes it
		_, _ = unix.Write(w.wake, one[:])
		<-w.done
		unix.Close(w.wake)
		unix.Close(w.epfd)
	})
}
