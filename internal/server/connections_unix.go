//go:build unix

package server

import "syscall"

// DefaultMaxConnections is the cap on connections when
// Config.MaxConnections is 0: the process's open-file limit
// (RLIMIT_NOFILE, which Go raises to the hard limit at start) minus
// DescriptorReserve, or half of it when the limit is below twice the
// reserve.
func DefaultMaxConnections() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return maxDefaultConnections
	}
	return connectionsWithin(lim.Cur)
}
