package localsvc

import (
	"fmt"
	"net"
)

// FreePort asks the kernel for a free loopback TCP port. There is a small
// window in which another process can take it; callers that start a server
// on it retry on a bind failure or accept that rare flake.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
