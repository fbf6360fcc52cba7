package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interrupts is a context that the first SIGINT, SIGTERM or SIGHUP cancels, with the
// signal as its cause. A long-lived command (call, serve) passes it to the call that
// runs: a command run_command runs is then killed with its group and its record says
// how it ended, instead of being left running, orphaned, its call pending.
type interrupts struct {
	ctx  context.Context
	sig  atomic.Value // the os.Signal that came
	stop func()
}

func watchInterrupts(who string) *interrupts {
	ctx, cancel := context.WithCancelCause(context.Background())
	i := &interrupts{ctx: ctx}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			i.sig.Store(s)
			cancel(fmt.Errorf("%s got the signal %v", who, s))
		case <-done:
		}
	}()
	i.stop = func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
	return i
}

// status is the exit status after the signal: 128+N, as a shell reports it.
func (i *interrupts) status() int {
	if s, ok := i.sig.Load().(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitRefused
}

// bind returns ctx cancelled, with the signal as cause, when an interrupt comes.
func (i *interrupts) bind(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(i.ctx, func() { cancel(context.Cause(i.ctx)) })
	return ctx, func() { stop(); cancel(nil) }
}
