package localsvc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// ErrPortInUse reports that a server could not bind its port: another
// process took it between the moment it was chosen and the server's bind.
var ErrPortInUse = errors.New("port already in use")

// The range free ports are chosen from: below Linux's default ephemeral
// range (32768-60999), from which the kernel hands out the ports of every
// listen on port 0 (each httptest server of a parallel test package) and
// of every outbound connection, and above the ports people set by hand
// (8080, 13306, 16379...). Only another chooser of this range can take a
// port chosen from it, which makes a lost race rare; it is still handled
// (Listen holds its port; OnFreePort retries).
const (
	portLow  = 20000
	portHigh = 32768 // exclusive
)

// PortAttempts is how many ports OnFreePort tries before it gives up.
const PortAttempts = 5

// Listen listens on 127.0.0.1:port, or with port 0 on a free port of the
// range above [20000, 32768). A listener holds its port: handing it to the
// process that serves on it (an inherited file descriptor, see
// internal/listenfd) leaves no moment in which another process could take
// the port.
func Listen(port int) (*net.TCPListener, error) {
	if port != 0 {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return nil, err // "listen tcp 127.0.0.1:8081: bind: address already in use"
		}
		return l.(*net.TCPListener), nil
	}
	var last error
	for range 200 {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(portLow+rand.IntN(portHigh-portLow)))
		if err == nil {
			return l.(*net.TCPListener), nil
		}
		last = err
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return nil, fmt.Errorf("free port: %w", last)
}

// FreePort returns a loopback TCP port of the range Listen uses on which
// nothing listens now, for a server that binds its port itself (MariaDB,
// Redis, nginx). Another process can still take it before the server
// does; StartMariaDB and StartRedis then fail with ErrPortInUse, and
// OnFreePort tries another.
func FreePort() (int, error) {
	l, err := Listen(0)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// OnFreePort calls start with a port from pick (FreePort when nil), and
// again with another port each time start fails with ErrPortInUse, at
// most PortAttempts times. It returns the port start succeeded on.
func OnFreePort(pick func() (int, error), start func(port int) error) (int, error) {
	if pick == nil {
		pick = FreePort
	}
	var err error
	for range PortAttempts {
		var port int
		if port, err = pick(); err != nil {
			return 0, err
		}
		if err = start(port); err == nil {
			return port, nil
		}
		if !errors.Is(err, ErrPortInUse) {
			return 0, err
		}
	}
	return 0, fmt.Errorf("%d ports taken in a row: %w", PortAttempts, err)
}

// BindWatch is an io.Writer to put beside a server's output: it notices
// the server saying that it could not bind its port (EADDRINUSE's text,
// "Address already in use", as C servers and Go print it).
type BindWatch struct {
	mu   sync.Mutex
	tail []byte
	seen bool
}

var addrInUse = []byte("address already in use")

// Write scans p, together with the end of the previous write (a message
// may come in pieces); it never fails.
func (w *BindWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen {
		return len(p), nil
	}
	buf := bytes.ToLower(append(w.tail, p...))
	if bytes.Contains(buf, addrInUse) {
		w.seen = true
		w.tail = nil
		return len(p), nil
	}
	w.tail = append(w.tail[:0], buf[max(0, len(buf)-len(addrInUse)):]...)
	return len(p), nil
}

// Seen reports whether the output said "address already in use".
func (w *BindWatch) Seen() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}
