package listenfd

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// inherited returns a raw descriptor of a fresh listening socket on a
// kernel-chosen loopback port, as a child finds one its parent handed it
// (no os.File owns it: Listen takes it over), and the socket's address.
func inherited(t *testing.T) (int, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return fd, l.Addr().String()
}

func TestInheritedListenerServes(t *testing.T) {
	fd, addr := inherited(t)
	ln, err := Listen(context.Background(), addr, fd)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ln.Addr().String() != addr {
		t.Errorf("listener on %s, want %s", ln.Addr(), addr)
	}
	// The descriptor itself is closed: only the listener's own (close-on-
	// exec) duplicate remains, which no child process inherits.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); !errors.Is(err, syscall.EBADF) {
		t.Errorf("descriptor %d still open after Listen (fstat: %v)", fd, err)
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, err = c.Write([]byte("hi"))
			c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 2)
	if _, err := c.Read(buf); err != nil || string(buf) != "hi" {
		t.Errorf("read %q, %v from the inherited listener", buf, err)
	}
	if err := <-accepted; err != nil {
		t.Error(err)
	}
}

func TestInheritedListenerOnWildcardAddress(t *testing.T) {
	fd, addr := inherited(t)
	_, port, _ := net.SplitHostPort(addr)
	ln, err := Listen(context.Background(), ":"+port, fd)
	if err != nil {
		t.Fatalf("a socket on %s refused for --listen :%s: %v", addr, port, err)
	}
	ln.Close()
}

func TestBadInheritedDescriptors(t *testing.T) {
	ctx := context.Background()
	fd, addr := inherited(t)
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	other := net.JoinHostPort(host, strconv.Itoa(p+1))
	if _, err := Listen(ctx, other, fd); !errors.Is(err, ErrBadFD) {
		t.Errorf("a socket on %s taken for %s: %v", addr, other, err)
	}
	// Listen closed it whatever it said.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); !errors.Is(err, syscall.EBADF) {
		t.Errorf("descriptor %d still open after a refused Listen (fstat: %v)", fd, err)
	}

	fd, addr = inherited(t)
	_, port, _ = net.SplitHostPort(addr)
	if _, err := Listen(ctx, "127.0.0.2:"+port, fd); !errors.Is(err, ErrBadFD) {
		t.Errorf("a socket on %s taken for another address: %v", addr, err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipe, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pipe)
	for _, fd := range []int{pipe, 1, 1 << 20} {
		if _, err := Listen(ctx, addr, fd); !errors.Is(err, ErrBadFD) {
			t.Errorf("descriptor %d (not a listening socket) taken: %v", fd, err)
		}
	}
}

func TestNoDescriptorListens(t *testing.T) {
	ln, err := Listen(context.Background(), "127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := Listen(context.Background(), "127.0.0.1:x", 0); err == nil {
		t.Error("a bad address listened")
	}
}
