package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// The built-in server runs in a child process (this program, started
// again with -serve), not in the generator's: in-process it would share
// the generator's Go scheduler, its garbage collector and its CPU
// accounting, and the send-time error would measure the server too.

// serverProc is the child process serving HTTP on addr.
type serverProc struct {
	cmd   *exec.Cmd
	stdin io.Closer
	addr  string
}

// startServer starts this program as a built-in server with the given
// response delay and waits until it listens.
func startServer(ctx context.Context, delay time.Duration) (*serverProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, "-serve", "-delay", delay.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("server: no address: %w", err)
	}
	return &serverProc{cmd: cmd, stdin: stdin, addr: strings.TrimSpace(line)}, nil
}

// pid is the server's process id, for its CPU use.
func (s *serverProc) pid() int { return s.cmd.Process.Pid }

// stop ends the server: closing its stdin tells it to exit.
func (s *serverProc) stop() {
	_ = s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// serve is the child's side: serve on a free loopback port, print the
// address, and exit when stdin closes (the parent ended, however it ended).
func serve(ctx context.Context, delay time.Duration) error {
	srv, err := demoserver.Start(ctx, demoserver.Config{HTTPAddr: "127.0.0.1:0", Delay: delay})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.HTTPAddr())
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}
