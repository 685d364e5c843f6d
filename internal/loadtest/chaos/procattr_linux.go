package chaos

import "syscall"

// childAttributes makes a node die with the chaos process, so that a
// killed or interrupted run leaves no platform process behind.
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
