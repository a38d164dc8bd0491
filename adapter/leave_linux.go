package adapter

import (
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// leaveWatcher notices clients leaving their taken-over streams with one
// goroutine for all of them: it waits on an epoll set of the streams'
// connections, where each stream would otherwise keep a goroutine of its
// own parked on its connection (connStream.watch), about 4 KiB of stack
// per stream. A connection is watched once (EPOLLONESHOT): when it turns
// readable the watcher peeks, as watch does, and cancels the stream if
// the client closed it; data from the client ends the watch without a
// verdict, as in watch. Owned by the Server: stop ends the goroutine.
type leaveWatcher struct {
	epfd, wake int // the epoll set; an eventfd that stop writes

	mu      sync.Mutex
	stopped bool
	next    uint64 // the last id given; 0 is the wake eventfd's
	watched map[uint64]*connStream
	done    chan struct{} // closed when the goroutine returns

	stopOnce sync.Once
}

// newLeaveWatcher starts the watcher, or returns nil if the kernel
// refuses an epoll set: streams then watch their own connections.
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
	w := &leaveWatcher{epfd: epfd, wake: wake, watched: map[uint64]*connStream{}, done: make(chan struct{})}
	go w.loop()
	return w
}

// add watches s's connection and reports whether it could: a nil or
// stopped watcher, or a connection that is not a socket, leaves the
// watching to s.
func (w *leaveWatcher) add(s *connStream) bool {
	if w == nil {
		return false
	}
	sc, ok := s.conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	w.next++
	id := w.next
	var added error
	// The descriptor is used only inside Control, where the connection
	// holds it open: it cannot be another connection's by then.
	if err := rc.Control(func(fd uintptr) {
		added = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, int(fd), watchEvent(id))
	}); err != nil || added != nil {
		return false
	}
	s.leaveID, s.rc = id, rc
	w.watched[id] = s
	return true
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

// remove ends the watch of s, if it is still on. After it returns the
// watcher neither reads s's connection nor writes s: the connection may
// be closed or given back, and s.gone read.
func (w *leaveWatcher) remove(s *connStream) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[s.leaveID] != s {
		return // reported already, or stop came first
	}
	delete(w.watched, s.leaveID)
	if !w.stopped {
		_ = s.rc.Control(func(fd uintptr) { _ = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_DEL, int(fd), nil) })
	}
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

// report handles the readable connection of stream id.
func (w *leaveWatcher) report(id uint64) {
	w.mu.Lock()
	s := w.watched[id]
	if s == nil || w.stopped {
		w.mu.Unlock()
		return // removed meanwhile
	}
	r := waitStopped
	_ = s.rc.Control(func(fd uintptr) {
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
	gone := r == peerClosed
	s.gone = gone
	w.mu.Unlock()
	if gone {
		s.cancel()
	}
}

// abandon ends every watch when epoll fails (it does not, short of a
// kernel bug): the streams' clients are then noticed when a write fails.
func (w *leaveWatcher) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	clear(w.watched)
}

// stop ends the goroutine and releases the epoll set. Streams still
// watched are no longer (their Close still calls remove).
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
