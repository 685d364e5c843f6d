package main

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// listen listens on the TCP address the flag name holds once e is
// parsed. Its error names the flag, the address and the flag's variable,
// so that the user sees which setting to change: "listen on --casino-addr
// 127.0.0.1:8082 ($FORESIGHT_DEMO_CASINO_ADDR): address already in use".
// The error wraps the system's (errors.Is(err, syscall.EADDRINUSE)).
func (e *envFlags) listen(name string) (net.Listener, error) {
	addr := e.fs.Lookup(name).Value.String()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on --%s %s ($%s): %w", name, addr, e.envs[name], listenCause(err))
	}
	return l, nil
}

// listenCause is the reason inside an error of net.Listen, without the
// address the caller names already: "address already in use" rather than
// "listen tcp 127.0.0.1:8082: bind: address already in use".
func listenCause(err error) error {
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}
