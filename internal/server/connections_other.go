//go:build !unix

package server

// DefaultMaxConnections is the cap on connections when
// Config.MaxConnections is 0; without an open-file limit to read it is
// 1,048,576.
func DefaultMaxConnections() int {
	return maxDefaultConnections
}
