// Command foresight runs the Foresight services and their tools.
//
//	foresight serve     every HTTP API on one listener, with the workers
//	foresight demo      a local world: platform, sandbox partners, simulated markets
//	foresight migrate   apply the database migrations and exit
//	foresight admin …   a CLI over the admin API
//
// Every flag has a FORESIGHT_* environment variable of the same meaning; a
// flag given on the command line wins. Run `foresight <command> -h` for the
// flags of a command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
		return
	case errors.Is(err, flag.ErrHelp): // -h or --help asked for the usage
		os.Exit(0)
	case err != errUsage: // the bare errUsage follows the usage, which says it all
		fmt.Fprintln(os.Stderr, "foresight:", err)
	}
	if errors.Is(err, errUsage) { // a wrong call: Go's convention is exit 2
		os.Exit(2)
	}
	os.Exit(1)
}

const usage = `foresight — ticket generation and prediction-markets services

Usage:
  foresight serve [flags]      serve every API (tickets, admin, health, metrics)
  foresight demo [flags]       a local world: the platform, a sandbox operator and casino, simulated markets
  foresight migrate [flags]    apply database migrations and exit
  foresight admin <command>    manage ticket clients and keys through the admin API
  foresight loadtest [flags]   measure job submission over HTTP beside a bare handler
  foresight loadtest bets      measure bet placement against the sandbox operator's wallet
  foresight loadtest stream    measure how fast a price change reaches many odds streams
  foresight loadtest aggregator measure the launcher, round details and aggregator bets against the sandbox casino
  foresight loadtest chaos     kill -9 the platform's nodes under bet load and wallet faults, then reconcile every bet
  foresight tickets lint|bench|measure score results; run an engine over specs or the reference set
  foresight conformance <kind> check a partner's wallet (operator-wallet, aggregator-wallet) against the protocol
  foresight sandbox operator|casino  run a reference partner: wallet, pages, control API, SQLite data

Run "foresight <command> -h" for the flags of a command.
`

// errUsage is returned after printing the usage for a call that named no
// command; the program exits 2, as for any misuse, but prints nothing more.
// Every usageError is errUsage too (errors.Is).
var errUsage = errors.New("usage")

// usageError is a wrong call of the command line: an unknown command or
// flag, a flag's value its type refuses, an argument too many or a
// required flag missing. The program prints it and exits 2, as Go's flag
// package does for misuse, instead of 1 for a command that failed.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

func (u usageError) Unwrap() error { return u.err }

// Is makes every usage error errUsage for errors.Is.
func (usageError) Is(target error) bool { return target == errUsage }

// parseFlags parses args with fs: -h stays flag.ErrHelp, any other error
// (fs has printed it with the flags' usage) is a usageError.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError{err}
}

// run is the whole program; main only supplies the process's environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return dispatch(args, usage, "command", stdout, stderr, map[string]command{
		"serve":       func(args []string) error { return runServe(ctx, args, getenv, stderr) },
		"demo":        func(args []string) error { return runDemo(ctx, args, getenv, stdout, stderr) },
		"tickets":     func(args []string) error { return runTickets(ctx, args, getenv, stdout, stderr) },
		"loadtest":    func(args []string) error { return runLoadtests(ctx, args, getenv, stdout, stderr) },
		"migrate":     func(args []string) error { return runMigrate(ctx, args, getenv, stdout, stderr) },
		"admin":       func(args []string) error { return runAdmin(ctx, args, getenv, stdout, stderr) },
		"conformance": func(args []string) error { return runConformance(ctx, args, getenv, stdout, stderr) },
		"sandbox":     func(args []string) error { return runSandbox(ctx, args, getenv, stdout, stderr) },
	})
}

// newFlagSet returns the flag set of the (sub)command name: parsing
// returns its errors, flag.ErrHelp for -h, instead of exiting, and writes
// them and the usage to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// isFlagSet reports whether the command line set flag name.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// command runs a subcommand with the arguments after its name.
type command func(args []string) error

// dispatch runs the command of commands that args[0] names. With no name it
// prints usage to stderr and returns errUsage; help, -h and --help print
// usage to stdout and return nil; an unknown name prints usage to stderr
// and is a usageError calling it an unknown what.
func dispatch(args []string, usage, what string, stdout, stderr io.Writer, commands map[string]command) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	if run, ok := commands[args[0]]; ok {
		return run(args[1:])
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Errorf("unknown %s %q", what, args[0])}
}
