package session

import (
	"sync"

	"github.com/dcbtop/dcbtop/capture/control"
)

// An undoStore keeps, per interface, the local state in force before the
// last apply: one level, whichever path the apply took (dcbtop's agent or
// the kernel), and the one undo the screen and dcbtop apply share. Safe
// for concurrent use: the engine goroutine (agent path) and the screen's
// backend (kernel path) both use it.
type undoStore struct {
	mu sync.Mutex
	m  map[string]*control.LocalState
}

func newUndoStore() *undoStore { return &undoStore{m: map[string]*control.LocalState{}} }

// put records the state before an apply on iface.
func (u *undoStore) put(iface string, s *control.LocalState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.m[iface] = s
}

// get returns the state to restore on iface, nil when there is none.
func (u *undoStore) get(iface string) *control.LocalState {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.m[iface]
}

// drop forgets iface's state (undone, or its local source changed).
func (u *undoStore) drop(iface string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, iface)
}
