package listenfd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
)

// ErrBadFD reports an inherited descriptor that is not a listening TCP
// socket bound to the component's address.
var ErrBadFD = errors.New("listenfd: bad inherited listener")

// Listen returns a listener for addr (host:port). With fd 0 it listens on
// addr. Otherwise fd is an inherited listening TCP socket: Listen takes it
// over (the descriptor fd itself is closed, so no child process of this
// one inherits it in turn) and checks that it is bound to addr — the port,
// and the address too when addr names one. Call it before starting any
// child process.
func Listen(ctx context.Context, addr string, fd int) (net.Listener, error) {
	if fd == 0 {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
		return ln, nil
	}
	if fd < 3 {
		return nil, fmt.Errorf("%w: descriptor %d is standard input, output or error", ErrBadFD, fd)
	}
	// A descriptor that is not open, or not a socket, is refused before
	// anything takes it over.
	if err := isSocket(fd); err != nil {
		return nil, fmt.Errorf("%w: descriptor %d: %w", ErrBadFD, fd, err)
	}
	f := os.NewFile(uintptr(fd), "listen-fd-"+strconv.Itoa(fd))
	ln, err := net.FileListener(f) // a duplicate, close-on-exec
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: descriptor %d: %w", ErrBadFD, fd, err)
	}
	if err := matches(ln.Addr(), addr); err != nil {
		ln.Close()
		return nil, fmt.Errorf("%w: descriptor %d: %w", ErrBadFD, fd, err)
	}
	return ln, nil
}

// matches checks that a listener's address is addr.
func matches(got net.Addr, addr string) error {
	tcp, ok := got.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("not a TCP socket (%s %s)", got.Network(), got)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if port != strconv.Itoa(tcp.Port) {
		return fmt.Errorf("bound to %s, not to %s", tcp, addr)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !ip.IsUnspecified() {
		if gotIP, ok := netip.AddrFromSlice(tcp.IP); !ok || gotIP.Unmap() != ip.Unmap() {
			return fmt.Errorf("bound to %s, not to %s", tcp, addr)
		}
	}
	return nil
}

// isSocket checks that fd is open and a socket.
func isSocket(fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return errors.New("not a socket")
	}
	return nil
}
