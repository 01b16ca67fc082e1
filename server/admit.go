package server

import (
	"context"
	"sync/atomic"
)

// admission bounds the calls running at once (slots) and those waiting for
// a slot (the queue). A call waits in FIFO order (a channel's senders are
// served in order) until a slot frees, its context ends, or, when the queue
// is full on arrival, is refused at once.
type admission struct {
	slots    chan struct{}
	maxQueue int64
	queued   atomic.Int64
}

func newAdmission(inFlight, queue int) *admission {
	return &admission{slots: make(chan struct{}, inFlight), maxQueue: int64(queue)}
}

// errQueueFull is returned by acquire when every slot is taken and the
// queue is full.
var errQueueFull = errQueueFullType{}

type errQueueFullType struct{}

func (errQueueFullType) Error() string { return "every slot is taken and the queue is full" }

// acquire takes a slot, waiting in the queue while ctx lasts. It returns
// the release function, errQueueFull, or ctx's error.
func (a *admission) acquire(ctx context.Context) (func(), error) {
	select {
	case a.slots <- struct{}{}:
		return a.release, nil
	default:
	}
	if a.queued.Add(1) > a.maxQueue {
		a.queued.Add(-1)
		return nil, errQueueFull
	}
	defer a.queued.Add(-1)
	select {
	case a.slots <- struct{}{}:
		return a.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *admission) release() { <-a.slots }

// full reports whether a call arriving now would be refused: every slot
// taken and the queue full. It lets a handler refuse before reading a body.
func (a *admission) full() bool {
	return len(a.slots) == cap(a.slots) && a.queued.Load() >= a.maxQueue
}

func (a *admission) inFlight() int { return len(a.slots) }
