package server

// DescriptorReserve is how many open files DefaultMaxConnections leaves
// to everything but the clients' connections: the database's files and
// connections, the journal, outbound wallet, feed and callback calls.
const DescriptorReserve = 1000

// maxDefaultConnections bounds DefaultMaxConnections where the open-file
// limit is unlimited or cannot be read.
const maxDefaultConnections = 1 << 20

// connectionsWithin returns the connections a process whose open-file
// limit is files may serve: files minus DescriptorReserve, or half of
// files when that is less, and at least 1.
func connectionsWithin(files uint64) int {
	n := files / 2
	if files > 2*DescriptorReserve {
		n = files - DescriptorReserve
	}
	return int(max(1, min(n, maxDefaultConnections)))
}
