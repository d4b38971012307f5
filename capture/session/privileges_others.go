//go:build !linux

package session

import "os"

// hasNetAdmin reports whether this process may write DCB parameters: root.
func hasNetAdmin() bool { return os.Geteuid() == 0 }
