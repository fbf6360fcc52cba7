package journal

import "fmt"

// commitReq is one call's part of a group commit.
type commitReq struct {
	fn   func(*Tx) error
	done chan error
	lead chan struct{} // closed when this request is handed the lead of the next batch
}

// Commit runs fn in a synced write transaction. Calls of this process that commit at
// the same time share one transaction (group commit): one leader writes the batch
// that gathered while the previous batch was being written, so a commit waits for at
// most one other transaction and never for another call's file work. The writes that
// Defer queued go in the same transaction.
//
// fn may run more than once: when a shared transaction fails, each request is tried
// again alone, so that one call's failure does not fail the others. fn must therefore
// set, not accumulate, what it writes (reset a record's sequence number, for one).
func (j *Journal) Commit(fn func(*Tx) error) error {
	req := &commitReq{fn: fn, done: make(chan error, 1), lead: make(chan struct{})}
	j.gmu.Lock()
	j.queue = append(j.queue, req)
	if j.leading {
		j.gmu.Unlock()
		select {
		case err := <-req.done:
			return err
		case <-req.lead:
		}
		j.gmu.Lock()
	}
	j.leading = true
	batch, deferred := j.queue, j.deferred
	j.queue, j.deferred = nil, nil
	j.taken++
	mine := j.taken
	j.gmu.Unlock()

	j.runBatchSafe(batch, deferred)

	j.gmu.Lock()
	j.done = mine
	j.batchDone.Broadcast()
	if len(j.queue) > 0 {
		close(j.queue[0].lead) // its owner leads the next batch
	} else {
		j.leading = false
	}
	j.gmu.Unlock()
	return <-req.done
}

// runBatchSafe runs the batch so that a panic outside bbolt's guard (in the log's
// fold or a frame's write) still answers every request of it: the hold is marked
// failed, as when the log cannot be written, and each request gets that error. The
// lead then passes on and Flush's wait for the batch ends; unanswered, every later
// Commit and Flush of the process would wait for ever.
func (j *Journal) runBatchSafe(batch []*commitReq, deferred []func(*Tx) error) {
	defer func() {
		if p := recover(); p != nil {
			err := j.logFailed(fmt.Errorf("panic: %v", p))
			for _, r := range batch {
				select {
				case r.done <- err:
				default: // answered before the panic
				}
			}
		}
	}()
	j.runBatch(batch, deferred)
}

func (j *Journal) runBatch(batch []*commitReq, deferred []func(*Tx) error) {
	db, err := j.usable()
	if err != nil {
		for _, r := range batch {
			r.done <- err
		}
		return
	}
	// A panic of bbolt on a damaged file becomes every request's error: no waiter of
	// this batch is left hanging, and the lead passes on.
	run := func(ds []func(*Tx) error, rs []*commitReq) error {
		if b := j.broken.Load(); b != nil {
			return *b
		}
		return j.write(db, func(t *Tx) error {
			for _, d := range ds {
				if err := d(t); err != nil {
					return err
				}
			}
			for _, r := range rs {
				if err := r.fn(t); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err = run(deferred, batch)
	if err == nil {
		for _, r := range batch {
			r.done <- nil
		}
		return
	}
	// Something in the shared transaction failed: deferred writes alone (dropped if
	// they fail: recovery redoes them), then each request alone.
	if len(deferred) > 0 {
		run(deferred, nil)
	}
	if len(batch) == 1 && len(deferred) == 0 {
		batch[0].done <- err
		return
	}
	for _, r := range batch {
		r.done <- run(nil, []*commitReq{r})
	}
}

// Defer queues fn to run in the next Commit of this process. It is for writes that
// recovery can redo from the files, such as marking a call committed whose files are
// all written: they need not cost a synced transaction of their own. What is still
// deferred when the last Release closes the journal is dropped, and the next open's
// recovery settles those records again.
func (j *Journal) Defer(fn func(*Tx) error) {
	j.gmu.Lock()
	j.deferred = append(j.deferred, fn)
	j.gmu.Unlock()
}

// Flush commits the deferred writes, if any, and waits for a batch being written,
// which may hold some taken before: before a read that should see every call
// acknowledged so far (an undo must see the call it reverts as committed). Never
// call it from a Commit's fn or a deferred write: it would wait for its own batch.
func (j *Journal) Flush() error {
	j.gmu.Lock()
	if len(j.deferred) > 0 {
		j.gmu.Unlock()
		return j.Commit(func(*Tx) error { return nil })
	}
	for taken := j.taken; j.done < taken; {
		j.batchDone.Wait()
	}
	j.gmu.Unlock()
	return nil
}
