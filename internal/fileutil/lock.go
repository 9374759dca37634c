package fileutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock takes an exclusive flock(2) on f, waiting for it. flock locks belong to
// the open file description, so they exclude other processes and other
// descriptors of this process alike, and the kernel drops them when the
// descriptor is closed, even if the process dies.
//
// It is the same lock that flock(1) takes, so a shell writer that runs
// `flock FILE ...` or `{ flock 9; ...; } 9>>FILE` excludes tape and is
// excluded by it.
func Lock(f *os.File) error {
	return flock(f, syscall.LOCK_EX)
}

// LockContext takes an exclusive flock(2) on f, waiting for it until ctx is
// done. flock(2) itself cannot be interrupted, so it polls, backing off
// from a millisecond to 50ms: a writer that gives up, or is killed by a
// timeout, never writes after it gave up.
func LockContext(ctx context.Context, f *os.File) error {
	delay := time.Millisecond
	for {
		ok, err := TryLock(f)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the lock of %s: %w", f.Name(), ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// TryLock takes an exclusive flock(2) on f if no one holds it, without
// waiting, and reports whether it did.
func TryLock(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// TryLockShared takes a shared flock(2) on f if no one holds an exclusive
// one, without waiting, and reports whether it did: a way to ask whether
// an exclusive holder is there.
func TryLockShared(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases a lock taken with Lock.
func Unlock(f *os.File) error {
	return flock(f, syscall.LOCK_UN)
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("flock %s: %w", f.Name(), err)
	}
	var ferr error
	cerr := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return fmt.Errorf("flock %s: %w", f.Name(), cerr)
	}
	if ferr != nil {
		return fmt.Errorf("flock %s: %w", f.Name(), ferr)
	}
	return nil
}
