// Package cputime reads the CPU time the process has used, which measures
// a benchmark's or a load run's own work better than the wall clock on a
// shared machine: the wall clock also counts the time other processes held
// the cores. Package cputimetest reports it per benchmark operation.
package cputime
