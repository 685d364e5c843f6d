//go:build !linux

package chaos

import "syscall"

// childAttributes has nothing to add outside Linux: the run stops its
// nodes itself.
func childAttributes() *syscall.SysProcAttr { return nil }
