// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package control

// An AgentLock is held while dcbtop's agent runs on an interface; outside
// Linux there is no per-namespace lock (the control socket's check
// remains).
type AgentLock struct{}

// LockAgent returns a lock that guards nothing outside Linux.
func LockAgent(ifindex int, ifname string) (*AgentLock, error) { return &AgentLock{}, nil }

// Squatter is never anyone outside Linux.
func (l *AgentLock) Squatter() string { return "" }

// Release gives the lock up.
func (l *AgentLock) Release() {}
